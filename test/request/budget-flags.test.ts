import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunPlan } from '../../src/engine/plan.js';
import { subscriptionWarnings } from '../../src/request/budget-flags.js';
import { testPlan } from '../support/engine.js';

let runs = '';
afterEach(() => rmSync(runs, { recursive: true, force: true }));

async function plan(auth: Record<'reviewer' | 'composer', string>): Promise<RunPlan> {
  runs = mkdtempSync(join(tmpdir(), 'bounce-budget-flags-'));
  const base = await testPlan(runs);
  return { ...base, resolved: { reviewer: { ...base.resolved.reviewer, auth: auth.reviewer }, composer: { ...base.resolved.composer, auth: auth.composer } } };
}

describe('subscriptionWarnings', () => {
  it('says at the start that a cost limit holds the list-price cost of an agent logged in with a subscription', async () => {
    const p = await plan({ reviewer: 'subscription', composer: 'api_key' });
    const warnings = subscriptionWarnings(p, [{ costUsd: 1 }]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toBe(
      `${p.agents.reviewer.spec} logs in with a subscription, billed by plan and not by the token: the cost limit (--max-cost-usd, budget.max_cost_usd) limits its list-price cost`,
    );
    expect(warnings[0]!.fix).toContain('--max-tokens');
  });

  it('says nothing without a cost limit, nor for a key login', async () => {
    expect(subscriptionWarnings(await plan({ reviewer: 'subscription', composer: 'subscription' }), [{ tokens: 100 }, undefined])).toEqual([]);
    rmSync(runs, { recursive: true, force: true });
    expect(subscriptionWarnings(await plan({ reviewer: 'api_key', composer: 'oauth_token' }), [{ costUsd: 1 }])).toEqual([]);
  });
});
