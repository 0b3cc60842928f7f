import { replyTokens } from '../preflight/preflight.js';
import { estimateTokens } from '../text/token-estimate.js';
import { combineCostSources, type PriceOverrides, priceFor, tokensCost } from '../prices.js';
import { adapterInfo } from '../adapters/builtins.js';
import type { BudgetLimit, CostSource, Role, RunErrorType } from '../vocabulary.js';
import { type BudgetLimits, type RunPlan, roleForPass, seatForPass } from './plan.js';
import { buildPassPrompt } from './prompt.js';
import { replyMode } from './reply.js';
import { framingOf } from './plan.js';
import { plural } from '../plural.js';
import { configInUse } from '../config/in-use.js';

/** `error.type` of a run a budget stopped (run.json, --json). */
export const BUDGET_ERROR = 'budget' satisfies RunErrorType;

/** Whether any limit is set: a budget may then refuse a dispatch, which is then no certain thing. */
export function hasLimit(limits: BudgetLimits | undefined): boolean {
  return limits !== undefined && (limits.costUsd !== undefined || limits.tokens !== undefined || limits.dispatches !== undefined);
}

/** What has been spent against a budget. */
export interface BudgetSpent {
  costUsd: number;
  tokens: number;
  dispatches: number;
}

/** What a dispatch may spend at most: its prompt's tokens plus the agent's output budget, and their price when the model's price is known. */
export interface DispatchEstimate {
  tokens: number;
  costUsd: number | null;
}

/** What a dispatch did spend, as its adapter reported it (null: not reported, charged as nothing). */
export interface DispatchSpend {
  tokens: number | null;
  costUsd: number | null;
}

/** Whose budget an account holds: its name in messages and the flag and config key of each limit. */
export interface BudgetScope {
  /** `the run`, `the batch`. */
  name: string;
  flags: Readonly<Record<BudgetLimit, string>>;
  keys: Readonly<Record<BudgetLimit, string>>;
  /** Appended to the fix, e.g. that `bounce resume` takes the flags too. */
  after?: string;
}

export const RUN_SCOPE: BudgetScope = {
  name: 'the run',
  flags: { cost_usd: '--max-cost-usd', tokens: '--max-tokens', dispatches: '--max-dispatches' },
  keys: { cost_usd: 'budget.max_cost_usd', tokens: 'budget.max_tokens', dispatches: 'budget.max_dispatches' },
  after: 'bounce resume takes the same flag',
};

export const BATCH_SCOPE: BudgetScope = {
  name: 'the batch',
  flags: RUN_SCOPE.flags,
  keys: { cost_usd: 'budget.batch.max_cost_usd', tokens: 'budget.batch.max_tokens', dispatches: 'budget.batch.max_dispatches' },
};

/** A dispatch admitted and not yet charged: what it holds of the budget meanwhile. */
export interface BudgetHold {
  readonly estimate: DispatchEstimate;
}

const usd = (n: number): string => `$${n.toFixed(n !== 0 && n < 0.01 ? 4 : 2)}`;

/**
 * A budget and what was spent against it. Before a dispatch, `admit` says whether its
 * estimate still fits (null) or which limit it would exceed (the reason, in words); `reserve`
 * holds the estimate while the dispatch runs, so runs sharing an account concurrently cannot
 * together overshoot it; `charge` replaces the hold with what the dispatch really spent.
 * A run has its own account (from its plan, with what it spent before a resume); a batch
 * passes shared ones in `EngineDeps.budgets`.
 */
export class BudgetAccount {
  readonly spent: BudgetSpent;
  private readonly holds = new Set<BudgetHold>();

  constructor(
    readonly limits: BudgetLimits,
    spent: Partial<BudgetSpent> = {},
    readonly scope: BudgetScope = RUN_SCOPE,
  ) {
    this.spent = { costUsd: spent.costUsd ?? 0, tokens: spent.tokens ?? 0, dispatches: spent.dispatches ?? 0 };
  }

  /** null when a dispatch of this estimate may go; otherwise why not, naming the limit, what was spent and how to raise it. */
  admit(estimate: DispatchEstimate): string | null {
    const held = { costUsd: 0, tokens: 0, dispatches: this.holds.size };
    for (const h of this.holds) {
      held.costUsd += h.estimate.costUsd ?? 0;
      held.tokens += h.estimate.tokens;
    }
    const { costUsd, tokens, dispatches } = this.limits;
    if (dispatches !== undefined && this.spent.dispatches + held.dispatches + 1 > dispatches)
      return this.refusal('dispatches', `${dispatches} dispatch${dispatches === 1 ? '' : 'es'}`, `${this.spent.dispatches} made`, 'the next one');
    if (tokens !== undefined && this.spent.tokens + held.tokens + estimate.tokens > tokens)
      return this.refusal('tokens', plural(tokens, 'token'), `${this.spent.tokens} spent`, `the next dispatch may take up to ${estimate.tokens}`);
    if (costUsd !== undefined) {
      // An estimate of unknown cost is held back only once nothing is left.
      const next = estimate.costUsd ?? 0;
      const over = estimate.costUsd === null ? this.spent.costUsd + held.costUsd >= costUsd : this.spent.costUsd + held.costUsd + next > costUsd;
      if (over)
        return this.refusal(
          'cost_usd',
          usd(costUsd),
          `${usd(this.spent.costUsd)} spent`,
          estimate.costUsd === null ? 'nothing is left for the next dispatch' : `the next dispatch may cost up to ${usd(next)}`,
        );
    }
    return null;
  }

  /** Holds an admitted dispatch's estimate until `charge`. */
  reserve(estimate: DispatchEstimate): BudgetHold {
    const hold: BudgetHold = { estimate };
    this.holds.add(hold);
    return hold;
  }

  /** Charges a dispatch's real spending (and ends its hold): one dispatch, its reported tokens and cost. */
  charge(spend: DispatchSpend, hold?: BudgetHold): void {
    if (hold) this.holds.delete(hold);
    this.spent.dispatches += 1;
    this.spent.tokens += spend.tokens ?? 0;
    this.spent.costUsd += spend.costUsd ?? 0;
  }

  /** Ends a hold without charging anything: a dispatch the response cache answered costs no call, token or cent. */
  release(hold?: BudgetHold): void {
    if (hold) this.holds.delete(hold);
  }

  private refusal(limit: BudgetLimit, allowed: string, spent: string, next: string): string {
    const s = this.scope;
    const after = s.after ? `; ${s.after}` : '';
    return `${s.name}'s budget of ${allowed} would be exceeded (${spent}; ${next}): raise ${s.flags[limit]} or ${s.keys[limit]} in ${configInUse()}${after}`;
  }
}

/** True when the limits set anything at all. */
export const hasLimits = (l: BudgetLimits | undefined): boolean =>
  l !== undefined && (l.costUsd !== undefined || l.tokens !== undefined || l.dispatches !== undefined);

/** Whether a role's agent logs in with a subscription (its check resolved `auth: subscription`): billed by plan, not by the token. */
export function bySubscription(plan: Pick<RunPlan, 'resolved'>, role: Role): boolean {
  return plan.resolved[role]?.auth === 'subscription';
}

/** The model a role's dispatches are expected to use before a reply names one: configured, resolved by the check, else the adapter's default. */
export function expectedModel(plan: RunPlan, role: Role): string | null {
  const a = plan.agents[role];
  const resolved = plan.resolved[role].model;
  return a.options.model ?? (typeof resolved === 'string' ? resolved : null) ?? adapterInfo(a.adapter)?.defaultModel ?? null;
}

/** One dispatch's most: a prompt's tokens plus the output budget (null: a reply as long as the document, plus room), priced when the model is. */
export function estimateDispatch(o: {
  prompt: string;
  document: string;
  outputBudget: number | null;
  model: string | null;
  prices?: PriceOverrides;
  /** Characters a token per model, from the runs folder's records (`RunPlan.charsPerToken`); a model not in it: 4. */
  charsPerToken?: Readonly<Record<string, number>>;
}): DispatchEstimate & { promptTokens: number; outputTokens: number; costSource: CostSource } {
  const ratio = o.model === null ? undefined : o.charsPerToken?.[o.model];
  const promptTokens = estimateTokens(o.prompt, ratio);
  const outputTokens = o.outputBudget ?? replyTokens(o.document, ratio);
  const found = priceFor(o.model, o.prices);
  const costUsd = found ? tokensCost(found.price, { input: promptTokens, output: outputTokens }) : null;
  return { tokens: promptTokens + outputTokens, costUsd, promptTokens, outputTokens, costSource: found ? 'table' : 'unknown' };
}

/**
 * What a run spent so far, from run.json (a resumed run's earlier sessions count). `cacheHits`
 * of its dispatches were answered by the response cache (cacheHitsOf): free, not counted.
 */
export function spentOf(
  totals: { input_tokens: number | null; output_tokens: number | null; cost_usd: number | null; dispatches: number },
  cacheHits = 0,
): BudgetSpent {
  return { costUsd: totals.cost_usd ?? 0, tokens: (totals.input_tokens ?? 0) + (totals.output_tokens ?? 0), dispatches: totals.dispatches - cacheHits };
}

/** The estimate of one pass's first dispatch, for --dry-run. */
export interface PassEstimate {
  pass: number;
  role: Role;
  agent: string;
  model: string | null;
  prompt_tokens: number;
  output_tokens: number;
  tokens: number;
  cost_usd: number | null;
  cost_source: CostSource;
  /** Why the run's budget would stop the run before this pass, else null. */
  refused: string | null;
}

/**
 * What a run may spend at most, pass by pass, if every pass takes one dispatch on the input
 * document (retries and repairs add to it): for `--dry-run`. The cost is the sum of the known
 * estimates; its source is `unknown` when a model has no price.
 */
export function estimateRun(plan: RunPlan): { passes: PassEstimate[]; tokens: number; cost_usd: number | null; cost_source: CostSource } {
  const account = new BudgetAccount(plan.budget ?? {});
  let refused: string | null = null;
  const passes = Array.from({ length: plan.passes }, (_, i): PassEstimate => {
    const pass = i + 1;
    const role = roleForPass(pass);
    const seat = seatForPass(plan, pass);
    const { prompt } = buildPassPrompt(plan.templates, {
      document: plan.input.text,
      pass,
      totalPasses: plan.passes,
      role,
      final: pass === plan.passes,
      ...framingOf(plan, pass),
      editFormat: replyMode(plan.replyMode).editFormat,
    });
    const model = expectedModel(plan, seat);
    const e = estimateDispatch({
      prompt,
      document: plan.input.text,
      outputBudget: plan.maxOutputTokens[seat],
      model,
      prices: plan.prices,
      charsPerToken: plan.charsPerToken,
    });
    refused ??= account.admit(e);
    if (!refused) account.charge({ tokens: e.tokens, costUsd: e.costUsd });
    return {
      pass,
      role,
      agent: plan.agents[seat].spec,
      model,
      prompt_tokens: e.promptTokens,
      output_tokens: e.outputTokens,
      tokens: e.tokens,
      cost_usd: e.costUsd,
      cost_source: e.costSource,
      refused,
    };
  });
  const known = passes.filter((p) => p.cost_usd !== null);
  return {
    passes,
    tokens: passes.reduce((n, p) => n + p.tokens, 0),
    cost_usd: known.length ? known.reduce((n, p) => n + (p.cost_usd ?? 0), 0) : null,
    cost_source: passes.reduce<CostSource | null>((s, p) => combineCostSources(s, p.cost_source), null) ?? 'unknown',
  };
}
