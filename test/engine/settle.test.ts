import { describe, expect, it } from 'vitest';
import type { Usage } from '../../src/contract/contract.js';
import { BudgetAccount, type DispatchEstimate } from '../../src/engine/budget.js';
import type { DispatchResult } from '../../src/engine/deps.js';
import { settleDispatch } from '../../src/engine/settle.js';

const usage: Usage = { input_tokens: 1000, output_tokens: 200, cache_read_tokens: 400, cost_usd: 0.5, provider_reported: true };
const base = { stdout: '', stderr: '', exitCode: 0, durationMs: 10 };
const ok = (extra: Partial<DispatchResult> = {}): DispatchResult =>
  ({ ...base, ok: true, response: { ok: true, reply: 'x', stop: 'complete', usage, model: 'm', agent_version: null }, ...extra }) as DispatchResult;
const estimate: DispatchEstimate = { tokens: 5000, costUsd: 1 };

describe('settleDispatch', () => {
  it('prices a reply from its usage, charges every hold with it, and shapes the usage for run.json', () => {
    const a = new BudgetAccount({ tokens: 100_000 });
    const b = new BudgetAccount({});
    const s = settleDispatch(ok(), 'm', undefined, [
      { account: a, hold: a.reserve(estimate) },
      { account: b, hold: b.reserve(estimate) },
    ]);
    expect(s.cost).toEqual({ cost_usd: 0.5, cost_source: 'provider' });
    expect(s.tokens).toBe(1200);
    expect(s.totals).toEqual({ input_tokens: 1000, output_tokens: 200, cache_read_tokens: 400, cost_usd: 0.5, cost_source: 'provider' });
    for (const account of [a, b]) expect(account.spent).toEqual({ costUsd: 0.5, tokens: 1200, dispatches: 1 });
  });

  it('a reply from the response cache or a recorded run is free: the holds are released, nothing is charged', () => {
    for (const extra of [
      { cache: { hit: true, of: '01KRMEXK0R3YJYHYWZW460CCMF', run: 'r' } },
      { replay: { of: '01KRMEXK0R3YJYHYWZW460CCMF', run: 'r' } },
    ] as const) {
      const a = new BudgetAccount({ dispatches: 1 });
      const s = settleDispatch(ok(extra as Partial<DispatchResult>), 'm', undefined, [{ account: a, hold: a.reserve(estimate) }]);
      expect(s.cost.cost_usd).toBe(0);
      expect(s.cost.cost_source).toBe('cache' in extra ? 'cache' : 'replay');
      expect(a.spent).toEqual({ costUsd: 0, tokens: 0, dispatches: 0 });
      // The hold is gone: the next dispatch is admitted.
      expect(a.admit(estimate)).toBeNull();
    }
  });

  it('a failure with no usage costs unknown and counts one dispatch', () => {
    const a = new BudgetAccount({});
    const s = settleDispatch({ ...base, ok: false, error: { type: 'network', message: 'down' } } as DispatchResult, null, undefined, [
      { account: a, hold: a.reserve(estimate) },
    ]);
    expect(s).toEqual({ usage: undefined, cost: { cost_usd: null, cost_source: 'unknown' }, tokens: null, totals: null });
    expect(a.spent).toEqual({ costUsd: 0, tokens: 0, dispatches: 1 });
  });
});
