import { describe, expect, it } from 'vitest';
import { BudgetAccount } from '../../src/engine/budget.js';
import { closedBreaker, repairHeading, type SideCall, type SideContext, sideDispatch, sideRepairPrompt } from '../../src/side/dispatch.js';
import { packageTemplate } from '../../src/prompt-files.js';
import { type Answer, fakeDispatcher, instantClock } from '../support/engine.js';
import { testAgent } from '../support/test-agent.js';

const context = (answers: Answer[], over: Partial<SideContext> = {}) => {
  const dispatch = fakeDispatcher(answers);
  const clock = instantClock();
  const ctx: SideContext = {
    dispatch,
    signal: new AbortController().signal,
    env: {},
    clock,
    retryBaseMs: 100,
    rec: null,
    runId: 'gate-test',
    pass: 1,
    totalPasses: 1,
    budgets: [],
    maxBytes: 10_000,
    breaker: closedBreaker(),
    ...over,
  };
  return { ctx, dispatch, clock };
};

const call = (over: Partial<SideCall<string>> = {}): SideCall<string> => ({
  role: 'judge',
  agent: testAgent({ spec: 'judge-agent', adapter: 'mock' }),
  agentVersion: null,
  stem: 'judge-1',
  prompt: 'Say OK first.',
  goal: 'Say OK.',
  contract: 'a first line OK',
  documents: [],
  timeoutMs: 5000,
  maxOutputTokens: 100,
  read: (reply) => (reply.startsWith('OK') ? { ok: true, value: reply.split('\n')[0]! } : { ok: false, reason: 'the reply must start with OK' }),
  ...over,
});

describe('sideDispatch', () => {
  it('returns the value read from a usable reply, with its id and what it spent', async () => {
    const { ctx, dispatch } = context([{ reply: 'OK then', usage: { input_tokens: 7, output_tokens: 3, cost_usd: 0.01 } }]);
    const out = await sideDispatch(ctx, call());
    expect(out).toMatchObject({ ok: true, value: 'OK then', reply: 'OK then' });
    expect(out.ids).toHaveLength(1);
    expect(out.spend).toMatchObject({ inputTokens: 7, outputTokens: 3, costUsd: 0.01, costSource: 'provider', model: 'm' });
    expect(dispatch.requests[0]).toMatchObject({
      role: 'reviewer',
      final: false,
      pass: 1,
      total_passes: 1,
      run_id: 'gate-test',
      attempt: { kind: 'pass', index: 0 },
    });
  });

  it('repairs a malformed reply once, with the wording of prompts/repair.md, then gives up', async () => {
    const { ctx, dispatch } = context([{ reply: 'no' }, { reply: 'OK now' }]);
    expect(await sideDispatch(ctx, call())).toMatchObject({ ok: true, value: 'OK now' });
    expect(dispatch.requests[1]).toMatchObject({ attempt: { kind: 'repair', index: 1 }, repair_error: 'the reply must start with OK' });
    expect(dispatch.requests[1]!.prompt.startsWith(repairHeading())).toBe(true);
    expect(repairHeading()).toBe(packageTemplate('repair').split('\n')[0]);
    expect(dispatch.requests[1]!.prompt).toContain('Say OK first.');

    const again = context([{ reply: 'no' }, { reply: 'still no' }]);
    const out = await sideDispatch(again.ctx, call());
    expect(out).toMatchObject({ ok: false, type: 'malformed' });
    expect(out.ids).toHaveLength(2);
    expect(again.dispatch.requests).toHaveLength(2);
  });

  it('with no repairs allowed, the first malformed reply is the answer', async () => {
    const { ctx, dispatch } = context([{ reply: 'no' }]);
    expect(await sideDispatch(ctx, call({ maxRepairs: 0 }))).toMatchObject({ ok: false, type: 'malformed' });
    expect(dispatch.requests).toHaveLength(1);
  });

  it('an empty, truncated or oversized reply is malformed too', async () => {
    for (const answer of [{ reply: '  ' }, { reply: 'OK but cut', stop: 'truncated' as const }, { reply: `OK ${'x'.repeat(20_000)}` }]) {
      const { ctx } = context([answer]);
      expect(await sideDispatch(ctx, call({ maxRepairs: 0 }))).toMatchObject({ ok: false, type: 'malformed' });
    }
  });

  it('retries a transient error with backoff, and stops at a permanent one', async () => {
    const { ctx, dispatch, clock } = context([{ error: { type: 'rate_limit', retry_after_ms: 700 } }, { error: { type: 'network' } }, { reply: 'OK' }]);
    expect(await sideDispatch(ctx, call())).toMatchObject({ ok: true, value: 'OK' });
    expect(clock.slept).toEqual([700, 200]);
    expect(dispatch.requests.map((r) => r.attempt)).toEqual([
      { kind: 'pass', index: 0 },
      { kind: 'retry', index: 1 },
      { kind: 'retry', index: 2 },
    ]);
    const auth = context([{ error: { type: 'auth' } }]);
    expect(await sideDispatch(auth.ctx, call())).toMatchObject({ ok: false, type: 'auth' });
    expect(auth.dispatch.requests).toHaveLength(1);
  });

  it('opens the breaker after three failures in a row, and then calls no agent', async () => {
    const { ctx, dispatch } = context([{ error: { type: 'network' } }, { error: { type: 'network' } }, { error: { type: 'network' } }]);
    expect(await sideDispatch(ctx, call())).toMatchObject({ ok: false, type: 'network' });
    expect(ctx.breaker.open).toBe(true);
    expect(await sideDispatch(ctx, call())).toMatchObject({ ok: false, type: 'breaker' });
    expect(dispatch.requests).toHaveLength(3);
  });

  it('asks every budget first: a refusal sends nothing; a call is charged to all of them', async () => {
    const tight = new BudgetAccount({ dispatches: 0 });
    const refused = context([{ reply: 'OK' }], { budgets: [tight] });
    expect(await sideDispatch(refused.ctx, call())).toMatchObject({ ok: false, type: 'budget' });
    expect(refused.dispatch.requests).toHaveLength(0);
    const ledger = new BudgetAccount({ dispatches: 5 });
    const charged = context([{ reply: 'OK' }], { budgets: [ledger] });
    await sideDispatch(charged.ctx, call());
    expect(ledger.spent).toMatchObject({ dispatches: 1, tokens: 30 });
  });

  it('an aborted signal sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const { ctx, dispatch } = context([{ reply: 'OK' }], { signal: controller.signal });
    expect(await sideDispatch(ctx, call())).toMatchObject({ ok: false, type: 'interrupted' });
    expect(dispatch.requests).toHaveLength(0);
  });

  it('a repair prompt quotes the start of the reply it rejects, without NUL bytes', () => {
    const prompt = sideRepairPrompt('The request.', 'it was wrong', 'line one\0\nline two');
    expect(prompt).toContain('Reason: it was wrong');
    expect(prompt).toContain('line one\nline two');
    expect(prompt).not.toContain('\0');
    expect(prompt.endsWith('The request.')).toBe(true);
  });
});
