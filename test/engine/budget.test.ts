import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/text/token-estimate.js';
import { fmtRunCost } from '../../src/report/format.js';
import { listRecordFiles, readRecord } from '../../src/store/dispatch-record.js';
import { verifyRun } from '../../src/audit/verify.js';
import { BATCH_SCOPE, BudgetAccount, estimateRun } from '../../src/engine/budget.js';
import type { RunPlan } from '../../src/engine/plan.js';
import { runDocument } from '../../src/engine/run-document.js';
import { readManifest } from '../../src/store/manifest.js';
import { writeManifest } from '../../src/store/recorder.js';
import type { HostResult } from '../../src/contract/host.js';
import type { Dispatcher } from '../../src/engine/deps.js';
import { DOC, engineDeps, fakeDispatcher, NOTED, testPlan } from '../support/engine.js';
import { waitFor } from '../support/wait-for.js';

let runs: string;
beforeEach(() => {
  runs = mkdtempSync(join(tmpdir(), 'bounce-budget-'));
});
afterEach(() => rmSync(runs, { recursive: true, force: true }));

/** A plan whose agents name a model (`m`, priced by the plan's own `prices`) and have an output budget of 100 tokens. */
async function pricedPlan(over: Partial<RunPlan> = {}): Promise<RunPlan> {
  const base = await testPlan(runs);
  const withModel = (a: RunPlan['agents']['reviewer']) => ({ ...a, options: { ...a.options, model: 'm' } });
  return {
    ...base,
    agents: { reviewer: withModel(base.agents.reviewer), composer: withModel(base.agents.composer) },
    maxOutputTokens: { reviewer: 100, composer: 100 },
    // $1000 per million tokens: a tenth of a cent a token, so costs are easy to read.
    prices: { 'test/m': { input: 1000, output: 1000 } },
    ...over,
  };
}

/** A dispatcher whose calls wait until the test releases them: NOTED on pass 1, DOC on pass 2. */
interface Call {
  pass: number;
  go: () => void;
}
function gatedDispatcher(): { dispatch: Dispatcher; pending: Call[]; calls: Call[]; release(c: Call): void } {
  const pending: Call[] = [];
  const calls: Call[] = [];
  const release = (c: Call): void => {
    pending.splice(pending.indexOf(c), 1);
    c.go();
  };
  const dispatch: Dispatcher = async (_agent, request) => {
    await new Promise<void>((go) => {
      const call = { pass: request.pass, go };
      calls.push(call);
      pending.push(call);
    });
    const usage = { input_tokens: 10, output_tokens: 20, cost_usd: null, provider_reported: true };
    const reply = request.pass === 1 ? NOTED : DOC;
    const result: HostResult = {
      stdout: '',
      stderr: '',
      exitCode: 0,
      durationMs: 5,
      ok: true,
      response: { ok: true, reply, stop: 'complete', usage, model: 'm', agent_version: '1.0' },
    };
    return result;
  };
  return { dispatch, pending, calls, release };
}

const prompts = (runDir: string): string[] => readdirSync(runDir).filter((f) => f.endsWith('.prompt.md'));

describe('a budget stops the run before the dispatch that would exceed it', () => {
  it('--max-dispatches: the second pass is never sent; the run fails with type budget, exit 3, and audits clean', async () => {
    const dispatch = fakeDispatcher([{ reply: NOTED }, { reply: DOC }]);
    const r = await runDocument(await testPlan(runs, { budget: { dispatches: 1 } }), engineDeps(dispatch));
    expect(dispatch.requests).toHaveLength(1);
    expect(r).toMatchObject({ status: 'failed', exitCode: 3, error: { type: 'budget' } });
    expect(r.error?.message).toBe(
      "the run's budget of 1 dispatch would be exceeded (1 made; the next one): raise --max-dispatches or budget.max_dispatches in bounce.config.yaml; bounce resume takes the same flag",
    );
    const m = readManifest(r.runDir);
    expect(m.totals.dispatches).toBe(1);
    // The refused pass is on record, failed, with no dispatch; nothing was written for the call.
    expect(m.pass_records.map((p) => [p.pass, p.status, p.dispatches.length])).toEqual([
      [1, 'completed', 1],
      [2, 'failed', 0],
    ]);
    expect(m.pass_records[1]!.errors).toEqual([`budget: ${r.error!.message}`]);
    expect(m.error?.type).toBe('budget');
    expect(prompts(r.runDir)).toEqual(['pass-1-reviewer-rev.prompt.md']);
    expect(listRecordFiles(r.runDir)).toHaveLength(1);
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('--max-tokens: a first dispatch whose estimate (prompt + output budget) is over the limit is never sent', async () => {
    const plan = await pricedPlan();
    const first = estimateRun(plan).passes[0]!;
    expect(first.tokens).toBe(first.prompt_tokens + 100);
    const dispatch = fakeDispatcher([{ reply: NOTED }, { reply: DOC }]);
    const r = await runDocument({ ...plan, budget: { tokens: first.tokens - 1 } }, engineDeps(dispatch));
    expect(dispatch.requests).toHaveLength(0);
    expect(r).toMatchObject({ status: 'failed', exitCode: 3, error: { type: 'budget' } });
    expect(r.error?.message).toContain(`budget of ${first.tokens - 1} tokens would be exceeded (0 spent; the next dispatch may take up to ${first.tokens})`);
    expect(r.error?.message).toContain('raise --max-tokens or budget.max_tokens');
    expect(prompts(r.runDir)).toEqual([]);
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('--max-tokens: an estimate exactly at the limit goes; the next one, over it after the charge, does not', async () => {
    const plan = await pricedPlan();
    const limit = estimateRun(plan).passes[0]!.tokens;
    const dispatch = fakeDispatcher([{ reply: NOTED }, { reply: DOC }]);
    const r = await runDocument({ ...plan, budget: { tokens: limit } }, engineDeps(dispatch));
    expect(dispatch.requests).toHaveLength(1);
    // The fake reports 10 input and 20 output tokens: what the run is charged.
    expect(r.error?.message).toContain(`budget of ${limit} tokens would be exceeded (30 spent;`);
  });

  it("--max-cost-usd: the estimate is priced for the agent's model; the second pass would cost more than is left", async () => {
    const plan = await pricedPlan();
    const first = estimateRun(plan).passes[0]!;
    expect(first.cost_source).toBe('table');
    expect(first.cost_usd).toBeCloseTo(first.tokens / 1000, 10);
    const dispatch = fakeDispatcher([{ reply: NOTED }, { reply: DOC }]);
    const r = await runDocument({ ...plan, budget: { costUsd: first.cost_usd! } }, engineDeps(dispatch));
    expect(dispatch.requests).toHaveLength(1);
    expect(r).toMatchObject({ status: 'failed', exitCode: 3, error: { type: 'budget' } });
    // 30 tokens at $0.001 each were charged.
    expect(r.error?.message).toMatch(
      /^the run's budget of \$0\.\d\d would be exceeded \(\$0\.03 spent; the next dispatch may cost up to \$0\.\d\d\): raise --max-cost-usd/,
    );
    const m = readManifest(r.runDir);
    expect(m.totals.cost_usd).toBeCloseTo(0.03, 10);
    expect(m.totals.cost_source).toBe('table');
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('charges what the agent reported after each dispatch, not the estimate', async () => {
    const plan = await pricedPlan({ budget: { tokens: 50_000 } });
    // Reported far above its estimate (a few hundred tokens): the run may not send another dispatch.
    const dispatch = fakeDispatcher([{ reply: NOTED, usage: { input_tokens: 60_000, output_tokens: 0 } }, { reply: DOC }]);
    const r = await runDocument(plan, engineDeps(dispatch));
    expect(dispatch.requests).toHaveLength(1);
    expect(r.error?.message).toContain('budget of 50000 tokens would be exceeded (60000 spent;');
    // With small reports, the same budget runs both passes.
    const small = fakeDispatcher([{ reply: NOTED }, { reply: DOC }]);
    expect((await runDocument(plan, engineDeps(small))).status).toBe('converged');
    expect(small.requests).toHaveLength(2);
  });

  it('an unpriced model is not held back by a cost limit until the known spending reaches it', async () => {
    const plan = await testPlan(runs, { budget: { costUsd: 0.01 } });
    expect(estimateRun(plan).passes.map((p) => p.cost_source)).toEqual(['unknown', 'unknown']);
    const dispatch = fakeDispatcher([{ reply: NOTED, usage: { cost_usd: 0.02 } }, { reply: DOC }]);
    const r = await runDocument(plan, engineDeps(dispatch));
    expect(dispatch.requests).toHaveLength(1);
    expect(r.error?.message).toContain('budget of $0.01 would be exceeded ($0.02 spent; nothing is left for the next dispatch)');
  });
});

describe('resuming a run its budget stopped', () => {
  it('counts what the run spent before, and goes on with a larger budget', async () => {
    const dispatch = fakeDispatcher([{ reply: NOTED }, { reply: DOC }]);
    const stopped = await runDocument(await testPlan(runs, { budget: { dispatches: 1 } }), engineDeps(dispatch));
    expect(stopped.error?.type).toBe('budget');
    // The same budget again: the one dispatch made counts, so nothing is sent.
    const same = await runDocument(await testPlan(runs, { budget: { dispatches: 1 } }), engineDeps(dispatch), { runDir: stopped.runDir });
    expect(same).toMatchObject({ status: 'failed', exitCode: 3, error: { type: 'budget' } });
    expect(dispatch.requests).toHaveLength(1);
    const done = await runDocument(await testPlan(runs, { budget: { dispatches: 2 } }), engineDeps(dispatch), { runDir: stopped.runDir });
    expect(done).toMatchObject({ status: 'converged', exitCode: 0, error: null });
    expect(dispatch.requests.map((q) => q.pass)).toEqual([1, 2]);
    const m = readManifest(done.runDir);
    expect(m.totals.dispatches).toBe(2);
    expect(m.pass_records.map((p) => `${p.pass}:${p.status}`)).toEqual(['1:completed', '2:failed', '2:failed', '2:completed']);
    expect(verifyRun(done.runDir).problems).toEqual([]);
  });
});

describe('a budget shared by several runs in one process (a batch)', () => {
  it('admits a dispatch only if the shared account does too, and charges it every dispatch', async () => {
    const batch = new BudgetAccount({ dispatches: 3 }, {}, BATCH_SCOPE);
    const a = await runDocument(await testPlan(runs, { name: 'a' }), engineDeps(fakeDispatcher([{ reply: NOTED }, { reply: DOC }]), { budgets: [batch] }));
    expect(a.status).toBe('converged');
    expect(batch.spent).toEqual({ costUsd: 0, tokens: 60, dispatches: 2 });
    const dispatchB = fakeDispatcher([{ reply: NOTED }, { reply: DOC }]);
    const b = await runDocument(await testPlan(runs, { name: 'b' }), engineDeps(dispatchB, { budgets: [batch] }));
    expect(dispatchB.requests).toHaveLength(1);
    expect(b).toMatchObject({ status: 'failed', exitCode: 3, error: { type: 'budget' } });
    expect(b.error?.message).toBe(
      "the batch's budget of 3 dispatches would be exceeded (3 made; the next one): raise --max-dispatches or budget.batch.max_dispatches in bounce.config.yaml",
    );
    expect(batch.spent.dispatches).toBe(3);
  });

  it('runs at the same time cannot together overshoot it: an admitted dispatch holds its share until charged', async () => {
    const batch = new BudgetAccount({ dispatches: 3 }, {}, BATCH_SCOPE);
    const gate = gatedDispatcher();
    let finished = 0;
    const all = Promise.all(
      [0, 1].map(async (i) => {
        const r = await runDocument(await testPlan(runs, { name: `run${i}` }), engineDeps(gate.dispatch, { budgets: [batch] }));
        finished += 1;
        return r;
      }),
    );
    // Both first passes in flight; the first to answer starts its second pass while the other's first is still out.
    await waitFor(() => gate.pending.length === 2, 5000, 'both runs to dispatch');
    gate.release(gate.pending[0]!);
    await waitFor(() => gate.calls.length === 3, 5000, 'the second pass of the first run');
    // The other run's first pass answers now: its second pass would be the 4th dispatch, held back by the one in flight.
    gate.release(gate.pending.find((p) => p.pass === 1)!);
    await waitFor(() => finished === 1 || gate.calls.length === 4, 5000, 'the other run to stop or dispatch again');
    while (finished < 2) {
      for (const p of [...gate.pending]) gate.release(p);
      await new Promise((r) => setImmediate(r));
    }
    const results = await all;
    expect(gate.calls).toHaveLength(3);
    expect(results.map((r) => r.status).sort()).toEqual(['converged', 'failed']);
    expect(batch.spent.dispatches).toBe(3);
  });
});

describe('cost_source per dispatch, pass and run', () => {
  async function costs(plan: RunPlan, script: Parameters<typeof fakeDispatcher>[0]) {
    const r = await runDocument(plan, engineDeps(fakeDispatcher(script)));
    expect(verifyRun(r.runDir).problems).toEqual([]);
    const m = readManifest(r.runDir);
    const records = listRecordFiles(r.runDir).map((rel) => readRecord(join(r.runDir, rel)).response!.metadata);
    return { m, records };
  }

  it('provider: the adapter reported a cost; table: the tokens priced for the model; a total takes the less certain', async () => {
    const { m, records } = await costs(await pricedPlan(), [
      { reply: NOTED, usage: { cost_usd: 0.5 } },
      { reply: DOC, usage: { input_tokens: 1000, output_tokens: 200 } },
    ]);
    expect(records.map((x) => [x.cost_usd, x.cost_source])).toEqual([
      [0.5, 'provider'],
      [1.2, 'table'],
    ]);
    expect(m.pass_records.map((p) => [p.usage.cost_usd, p.usage.cost_source])).toEqual([
      [0.5, 'provider'],
      [1.2, 'table'],
    ]);
    expect(m.totals.cost_usd).toBeCloseTo(1.7, 10);
    expect(m.totals.cost_source).toBe('table');
  });

  it('subscription: an agent logged in with a subscription has its cost, reported or priced, recorded as list price; a total with it says so', async () => {
    const base = await pricedPlan();
    const plan = { ...base, resolved: { ...base.resolved, reviewer: { ...base.resolved.reviewer, auth: 'subscription' } } };
    const { m, records } = await costs(plan, [
      { reply: NOTED, usage: { cost_usd: 0.5 } },
      { reply: DOC, usage: { input_tokens: 1000, output_tokens: 200 } },
    ]);
    expect(records.map((x) => [x.cost_usd, x.cost_source])).toEqual([
      [0.5, 'subscription'],
      [1.2, 'table'],
    ]);
    expect(m.totals.cost_usd).toBeCloseTo(1.7, 10);
    expect(m.totals.cost_source).toBe('subscription');
    expect(fmtRunCost(m.totals)).toBe('$1.70 (list price)');
  });

  it('cache reads and writes are priced at their own rates, the rest of the input at the input rate', async () => {
    const plan = await pricedPlan({ prices: { 'test/m': { input: 10, output: 100, cache_read: 1, cache_write: 20 } } });
    const { records } = await costs(plan, [
      { reply: NOTED, usage: { input_tokens: 1_000_000, cache_read_tokens: 500_000, cache_write_tokens: 100_000, output_tokens: 10_000 } },
      { reply: DOC },
    ]);
    // 400k plain input at $10, 500k cache reads at $1, 100k cache writes at $20, 10k output at $100 (per million).
    expect(records[0]!.cost_usd).toBeCloseTo(4 + 0.5 + 2 + 1, 10);
  });

  it('unknown: no cost and no price for the model the reply names; the run total is then unknown too', async () => {
    const { m, records } = await costs(await pricedPlan(), [{ reply: NOTED, model: 'a-local-model' }, { reply: DOC }]);
    expect(records.map((x) => [x.cost_usd, x.cost_source])).toEqual([
      [null, 'unknown'],
      [0.03, 'table'],
    ]);
    expect(m.totals.cost_usd).toBeCloseTo(0.03, 10);
    expect(m.totals.cost_source).toBe('unknown');
  });

  it("bounce audit names a cost in run.json that is not its records' or not the sum of its dispatches'", async () => {
    const r = await runDocument(await pricedPlan(), engineDeps(fakeDispatcher([{ reply: NOTED }, { reply: DOC }])));
    const m = readManifest(r.runDir);
    m.totals.cost_usd = 1;
    m.pass_records[0]!.dispatches[0]!.usage!.cost_source = 'provider';
    writeManifest(r.runDir, m);
    const problems = verifyRun(r.runDir).problems.map((p) => p.message);
    expect(problems).toContain("metadata.cost_source table differs from run.json's provider");
    expect(problems).toContain("totals cost (1, table) is not the sum of the dispatches' (0.06, table)");
  });

  it('a reply that names no model is priced for the configured one', async () => {
    const { records } = await costs(await pricedPlan(), [{ reply: NOTED, model: null }, { reply: DOC }]);
    expect(records.map((x) => x.cost_source)).toEqual(['table', 'table']);
  });

  it('config prices override the built-in table for a model it has', async () => {
    const { records: listed } = await costs(await pricedPlan({ prices: {} }), [
      { reply: NOTED, model: 'gpt-5-2025-08-07', usage: { input_tokens: 1_000_000, output_tokens: 0 } },
      { reply: DOC },
    ]);
    expect(listed[0]).toMatchObject({ cost_usd: 1.25, cost_source: 'table' });
    const plan = await pricedPlan({ prices: { 'openai/gpt-5': { input: 2, output: 20 } } });
    const { records } = await costs(plan, [{ reply: NOTED, model: 'gpt-5-2025-08-07', usage: { input_tokens: 1_000_000, output_tokens: 0 } }, { reply: DOC }]);
    expect(records[0]).toMatchObject({ cost_usd: 2, cost_source: 'table' });
  });
});

describe('the dry run estimate', () => {
  it("is each pass's prompt tokens plus the output budget, or the document again when there is none", async () => {
    const plan = await testPlan(runs);
    const e = estimateRun(plan);
    const reply = Math.ceil(estimateTokens(DOC) * 1.2);
    expect(e.passes.map((p) => p.output_tokens)).toEqual([reply, reply]);
    expect(e.tokens).toBe(e.passes.reduce((n, p) => n + p.prompt_tokens + reply, 0));
    expect(e).toMatchObject({ cost_usd: null, cost_source: 'unknown' });
    expect(estimateRun({ ...plan, budget: { dispatches: 1 } }).passes.map((p) => p.refused === null)).toEqual([true, false]);
  });
});
