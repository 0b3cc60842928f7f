/**
 * The response cache in the engine: a run whose dispatches are all answered from the cache
 * needs no budget room (EngineDeps.cached is asked before the budgets are), is recorded as
 * hits (response.cache, cost 0, cost_source cache) and passes the audit.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/audit/verify.js';
import { cachingDispatcher } from '../../src/cache/dispatcher.js';
import { ResponseCache } from '../../src/cache/entries.js';
import { spentOf } from '../../src/engine/budget.js';
import type { EngineDeps } from '../../src/engine/deps.js';
import { runDocument } from '../../src/engine/run-document.js';
import { listRecordFiles, readRecord } from '../../src/store/dispatch-record.js';
import { cacheHitsOf, readManifest } from '../../src/store/manifest.js';
import { tempDir } from '../support/cli.js';
import { DOC, engineDeps, fakeDispatcher, NOTED, testPlan } from '../support/engine.js';

/** The engine's deps with the cache around `inner`; `ask: false` leaves out the question asked before the budgets. */
function cachedDeps(inner: EngineDeps['dispatch'], folder: string, ask = true): EngineDeps {
  const c = cachingDispatcher(inner, new ResponseCache(folder), []);
  return engineDeps(c.dispatch, { accepted: c.accepted, ...(ask ? { cached: c.cached } : {}) });
}

describe('a run answered from the response cache', () => {
  it('is free for every budget, recorded as hits, and audited clean', async () => {
    const runs = tempDir();
    const folder = join(runs, 'cache');
    const first = await runDocument(await testPlan(runs), cachedDeps(fakeDispatcher([{ reply: NOTED }, { reply: DOC }]), folder));
    expect(first.status).toBe('converged');
    // Budgets no dispatch of an agent could fit: a token, and a single dispatch for two passes.
    const tight = await testPlan(runs, { budget: { tokens: 1, dispatches: 1 } });
    const none = fakeDispatcher([]);
    const again = await runDocument(tight, cachedDeps(none, folder));
    expect(again.status).toBe('converged');
    expect(again.document).toBe(first.document);
    expect(none.requests).toHaveLength(0);
    const m = readManifest(again.runDir);
    expect(m.totals).toMatchObject({ dispatches: 2, input_tokens: 0, output_tokens: 0, cost_usd: 0, cost_source: 'cache' });
    expect(cacheHitsOf(m)).toBe(2);
    // What a resume of it would count as spent: nothing.
    expect(spentOf(m.totals, cacheHitsOf(m))).toEqual({ costUsd: 0, tokens: 0, dispatches: 0 });
    const records = listRecordFiles(again.runDir).map((f) => readRecord(join(again.runDir, f)));
    expect(records).toHaveLength(2);
    const firstIds = readManifest(first.runDir).pass_records.flatMap((p) => p.dispatches.map((d) => d.id));
    for (const [i, r] of records.entries()) {
      expect(r.response?.cache).toEqual({ hit: true, of: firstIds[i], run: first.runId });
      expect(r.response?.metadata).toMatchObject({ cost_usd: 0, cost_source: 'cache' });
    }
    expect(verifyRun(again.runDir).problems).toEqual([]);
  });

  it('without the question before the budgets, the same budget stops it: the budgets would count a hit', async () => {
    const runs = tempDir();
    const folder = join(runs, 'cache');
    await runDocument(await testPlan(runs), cachedDeps(fakeDispatcher([{ reply: NOTED }, { reply: DOC }]), folder));
    const tight = await testPlan(runs, { budget: { tokens: 1, dispatches: 1 } });
    const r = await runDocument(tight, cachedDeps(fakeDispatcher([]), folder, false));
    expect(r.status).toBe('failed');
    expect(r.error?.type).toBe('budget');
  });
});
