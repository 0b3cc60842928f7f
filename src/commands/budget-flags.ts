import { BUDGET_LIMIT_RULES, type BudgetConfig } from '../config/schema.js';
import type { BudgetLimits } from '../engine/plan.js';
import { usageError } from '../errors.js';

/** `--max-cost-usd`, `--max-tokens`, `--max-dispatches` as commander hands them over (refine and resume). */
export interface BudgetFlags {
  maxCostUsd?: string | number;
  maxTokens?: string | number;
  maxDispatches?: string | number;
}

const FLAGS = [
  ['maxCostUsd', '--max-cost-usd', 'max_cost_usd', 'costUsd'],
  ['maxTokens', '--max-tokens', 'max_tokens', 'tokens'],
  ['maxDispatches', '--max-dispatches', 'max_dispatches', 'dispatches'],
] as const;

/** The limits the flags set, each checked by the rule of its config key; `abc`, `0` and `-1` are usage errors (exit 2). */
export function budgetFromFlags(flags: BudgetFlags): BudgetLimits {
  const out: BudgetLimits = {};
  for (const [prop, flag, key, limit] of FLAGS) {
    const value = flags[prop];
    if (value === undefined) continue;
    const text = String(value).trim();
    const rule = BUDGET_LIMIT_RULES[key];
    const parsed = rule.schema.safeParse(text === '' ? Number.NaN : Number(text));
    if (!parsed.success) throw usageError(`${flag} must be ${rule.text}, not ${JSON.stringify(text)}`, `pass e.g. ${flag} ${rule.example}`, 'usage');
    out[limit] = parsed.data;
  }
  return out;
}

/** A run's limits: each flag given, else the config's `budget:` key. */
export function runBudget(flags: BudgetLimits | undefined, config: BudgetConfig): BudgetLimits {
  const out: BudgetLimits = {};
  for (const [, , key, limit] of FLAGS) {
    const value = flags?.[limit] ?? config[key];
    if (value !== undefined) out[limit] = value;
  }
  return out;
}

/** A batch's limits from config `budget.batch` (for the runner of several documents). */
export function batchBudget(config: BudgetConfig): BudgetLimits {
  return runBudget(undefined, config.batch ?? {});
}
