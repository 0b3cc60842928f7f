import type { CheckProblem } from '../contract/contract.js';
import { priceFor } from '../prices.js';
import { BUDGET_LIMIT_RULES, type BudgetConfig } from '../config/schema.js';
import { bySubscription, expectedModel } from '../engine/budget.js';
import type { BudgetLimits } from '../engine/plan.js';
import type { RunPlan } from '../engine/plan.js';
import { ROLES, type Role } from '../vocabulary.js';
import { usageError } from '../errors.js';
import { configInUse } from '../config/in-use.js';

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

/**
 * One problem per distinct agent the plan calls (the reviewer, the composer when a second pass
 * runs) that `problem` finds something to say of, when any of `limits` (the run's, a batch's)
 * sets a cost: the start-of-run notices about what a cost limit cannot do.
 */
function costLimitNotices(
  plan: RunPlan,
  limits: readonly (BudgetLimits | undefined)[],
  problem: (role: Role, agent: RunPlan['agents'][Role]) => CheckProblem | null,
): CheckProblem[] {
  if (!limits.some((l) => l?.costUsd !== undefined)) return [];
  const seen = new Set<string>();
  const out: CheckProblem[] = [];
  for (const role of ROLES.filter((r) => r === 'reviewer' || plan.passes > 1)) {
    const agent = plan.agents[role];
    if (seen.has(agent.spec)) continue;
    const found = problem(role, agent);
    if (!found) continue;
    seen.add(agent.spec);
    out.push(found);
  }
  return out;
}

/**
 * A cost limit on a run whose agent logs in with a subscription (a Claude or ChatGPT plan):
 * such a login bills no token, so the limit holds the list price of what it uses, not a
 * charge. One notice per such agent, at the start.
 */
export function subscriptionWarnings(plan: RunPlan, limits: readonly (BudgetLimits | undefined)[]): CheckProblem[] {
  return costLimitNotices(plan, limits, (role, agent) =>
    bySubscription(plan, role)
      ? {
          kind: 'config',
          message: `${agent.spec} logs in with a subscription, billed by plan and not by the token: the cost limit (--max-cost-usd, budget.max_cost_usd) limits its list-price cost`,
          fix: 'limit it with --max-tokens or --max-dispatches to bound its use of the plan instead',
        }
      : null,
  );
}

/**
 * A cost limit cannot hold a dispatch to an agent with no price (mock, a `cmd:` program, a
 * local model): it is estimated at nothing. One warning per such agent, naming it and the fix.
 */
export function unpricedWarnings(plan: RunPlan, limits: readonly (BudgetLimits | undefined)[]): CheckProblem[] {
  return costLimitNotices(plan, limits, (role, agent) => {
    const model = expectedModel(plan, role);
    if (priceFor(model, plan.prices)) return null;
    const why = model ? `its model ${model} has no price` : 'it names no model, so no price applies';
    const fix = model
      ? `add one under prices: in ${configInUse()} (e.g. ${agent.provider}/${model}: { input: 0, output: 0 }), or limit it with --max-tokens`
      : 'limit it with --max-tokens or --max-dispatches instead';
    return { kind: 'config', message: `the cost limit (--max-cost-usd, budget.max_cost_usd) is not enforced for ${agent.spec}: ${why}`, fix };
  });
}
