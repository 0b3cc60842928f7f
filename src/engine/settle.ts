/**
 * What a finished agent call cost, once for every kind of dispatch (a pass's, src/engine/pass.ts;
 * a side dispatch, src/side/dispatch.ts): priced from the usage it reported, the budgets' holds
 * charged with it (or released: a reply from the response cache or a recorded run called no
 * agent, costs nothing and no budget counts it), and the usage in run.json's shape.
 */
import type { Usage } from '../contract/contract.js';
import { dispatchCost, type PriceOverrides } from '../prices.js';
import type { UsageTotals } from '../store/manifest.js';
import type { CostSource } from '../vocabulary.js';
import type { BudgetAccount, BudgetHold } from './budget.js';
import type { DispatchResult } from './deps.js';

export interface Settled {
  usage: Usage | undefined;
  cost: { cost_usd: number | null; cost_source: CostSource };
  /** Input and output tokens together; null when the agent reported neither. */
  tokens: number | null;
  /** The usage as run.json and its pass records total it; null when none was reported. */
  totals: UsageTotals | null;
}

export function settleDispatch(
  host: DispatchResult,
  model: string | null,
  prices: PriceOverrides | undefined,
  holds: readonly { account: BudgetAccount; hold: BudgetHold }[],
  /** The agent logs in with a subscription: a known cost is list price, `cost_source: subscription`. */
  subscription = false,
): Settled {
  const usage: Usage | undefined = host.ok ? host.response.usage : host.usage;
  const free = host.cache ? ('cache' as const) : host.replay ? ('replay' as const) : null;
  const priced = usage ? dispatchCost(usage, model, prices) : null;
  const cost = free
    ? { cost_usd: 0, cost_source: free }
    : priced
      ? subscription && priced.cost_usd !== null
        ? { ...priced, cost_source: 'subscription' as const }
        : priced
      : { cost_usd: null, cost_source: 'unknown' as const };
  const tokens = usage && (usage.input_tokens !== null || usage.output_tokens !== null) ? (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) : null;
  for (const { account, hold } of holds) {
    if (free) account.release(hold);
    else account.charge({ tokens, costUsd: cost.cost_usd }, hold);
  }
  const totals: UsageTotals | null = usage
    ? {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        ...(typeof usage.cache_read_tokens === 'number' ? { cache_read_tokens: usage.cache_read_tokens } : {}),
        ...(typeof usage.cache_write_tokens === 'number' ? { cache_write_tokens: usage.cache_write_tokens } : {}),
        cost_usd: cost.cost_usd,
        cost_source: cost.cost_source,
      }
    : null;
  return { usage, cost, tokens, totals };
}
