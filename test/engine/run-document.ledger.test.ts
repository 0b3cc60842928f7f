import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRecord } from '../../src/store/dispatch-record.js';
import { verifyRun } from '../../src/audit/verify.js';
import { policyOf } from '../../src/engine/policy.js';
import { runDocument } from '../../src/engine/run-document.js';
import { readManifest, type RunManifest } from '../../src/store/manifest.js';
import { DOC, engineDeps, fakeDispatcher, NOTED, testPlan } from '../support/engine.js';

let runs: string;
beforeEach(() => {
  runs = mkdtempSync(join(tmpdir(), 'bounce-ledger-'));
});
afterEach(() => rmSync(runs, { recursive: true, force: true }));

const CONTEST = '[CONTESTED] Monday is a release freeze. Ship on Tuesday instead.';
/** Pass 1's reply: a [CONTESTED] note under line 3 and a [CLARIFY] note under line 5. */
const REVIEWED = NOTED.replace('every user on Monday.\n', `every user on Monday.\n${CONTEST}\n`);
/** Acts on the [CONTESTED] note (its line changes) and dismisses the [CLARIFY] one. */
const MIXED = DOC.replace('on Monday.', 'on Tuesday.');
/** Deletes both notes and changes nothing else: two dismissals. */
const DISMISSED = DOC;

/** The resolved notes of the dispatch that produced pass `n`'s document, as its record holds them. */
function resolvedOf(runDir: string, m: RunManifest, n: number) {
  const p = m.pass_records.filter((r) => r.pass === n).at(-1)!;
  const ref = p.dispatches.find((d) => d.status === 'completed')!;
  return readRecord(join(runDir, ref.record!)).response!.resolved;
}

describe('the ledger of notes in a run', () => {
  it('records each resolved note as acted or dismissed, who raised it, and the counts per pass', async () => {
    const r = await runDocument(await testPlan(runs), engineDeps(fakeDispatcher([{ reply: REVIEWED }, { reply: MIXED }])));
    expect(r.status).toBe('converged');
    const m = readManifest(r.runDir);
    expect(m.pass_records.map((p) => [p.added, p.resolved, p.acted, p.dismissed])).toEqual([
      [2, 0, 0, 0],
      [0, 2, 1, 1],
    ]);
    expect(resolvedOf(r.runDir, m, 2).map((n) => ({ type: n.type, fate: n.fate, raised_by: n.raised_by, refers_to: n.refers_to }))).toEqual([
      { type: 'contested', fate: 'acted', raised_by: { pass: 1, agent: 'rev' }, refers_to: [3, 3] },
      { type: 'clarify', fate: 'dismissed', raised_by: { pass: 1, agent: 'rev' }, refers_to: [6, 6] },
    ]);
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('a note the input held was raised by the input', async () => {
    const r = await runDocument(
      await testPlan(runs, {}, NOTED),
      engineDeps(fakeDispatcher([{ reply: NOTED }, { reply: DOC.replace('manual.', 'run by on-call.') }])),
    );
    const m = readManifest(r.runDir);
    expect(resolvedOf(r.runDir, m, 2).map((n) => [n.fate, n.raised_by])).toEqual([['acted', { pass: null, agent: 'input' }]]);
  });

  it('an edited note is the old note resolved and a new one raised by the pass that edited it', async () => {
    const edited = REVIEWED.replace('Ship on Tuesday instead.', 'Ship on Wednesday instead.');
    const r = await runDocument(await testPlan(runs, { passes: 3 }), engineDeps(fakeDispatcher([{ reply: REVIEWED }, { reply: edited }, { reply: MIXED }])));
    const m = readManifest(r.runDir);
    expect(m.pass_records.map((p) => [p.added, p.resolved, p.acted, p.dismissed])).toEqual([
      [2, 0, 0, 0],
      [1, 1, 0, 1],
      [0, 2, 1, 1],
    ]);
    expect(resolvedOf(r.runDir, m, 3).map((n) => [n.type, n.fate, n.raised_by])).toEqual([
      ['contested', 'acted', { pass: 2, agent: 'com' }],
      ['clarify', 'dismissed', { pass: 1, agent: 'rev' }],
    ]);
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('a resumed run knows who raised the notes of the passes before it', async () => {
    const plan = await testPlan(runs, { passes: 2 });
    const ctrl = new AbortController();
    const first = fakeDispatcher([{ reply: REVIEWED }]);
    const stopping: typeof first = Object.assign(
      async (...args: Parameters<typeof first>) => {
        if (args[1].pass === 1) return first(...args);
        ctrl.abort();
        return { ok: false as const, error: { type: 'interrupted' as const, message: 'interrupted' }, stdout: '', stderr: '', exitCode: null, durationMs: 1 };
      },
      { requests: first.requests },
    );
    const cut = await runDocument(plan, engineDeps(stopping, { signal: ctrl.signal }));
    expect(cut.status).toBe('interrupted');
    const done = await runDocument(plan, engineDeps(fakeDispatcher([{ reply: MIXED }])), { runDir: cut.runDir });
    expect(done.status).toBe('converged');
    const m = readManifest(done.runDir);
    expect(resolvedOf(done.runDir, m, 2).map((n) => n.raised_by)).toEqual([
      { pass: 1, agent: 'rev' },
      { pass: 1, agent: 'rev' },
    ]);
    expect(verifyRun(done.runDir).problems).toEqual([]);
  });
});

describe('config dismissals on the final pass', () => {
  it('allow (the default): a dismissed [CONTESTED] note is recorded and nothing more', async () => {
    const deps = engineDeps(fakeDispatcher([{ reply: REVIEWED }, { reply: DISMISSED }]));
    const r = await runDocument(await testPlan(runs), deps);
    const m = readManifest(r.runDir);
    expect(r.status).toBe('converged');
    expect(m.pass_records[1]).toMatchObject({ acted: 0, dismissed: 2, repairs: 0, warnings: [] });
    expect(deps.seen.filter((e) => e.type === 'warning')).toEqual([]);
  });

  it('warn: the run converges with a warning event and the warning in the pass record', async () => {
    const deps = engineDeps(fakeDispatcher([{ reply: REVIEWED }, { reply: DISMISSED }]));
    const r = await runDocument(await testPlan(runs, { dismissals: 'warn' }), deps);
    const m = readManifest(r.runDir);
    expect(r.status).toBe('converged');
    expect(m.pass_records[1]!.repairs).toBe(0);
    expect(m.pass_records[1]!.warnings).toEqual([
      'the final pass dismissed 1 [CONTESTED] note of the document you were sent (line 4: [CONTESTED]): deleted, the text each refers to left as it was',
    ]);
    expect(deps.seen.filter((e) => e.type === 'warning').map((e) => e.type === 'warning' && e.pass)).toEqual([2]);
    expect(m.policy.dismissals).toBe('warn');
  });

  it('repair: one repair request names the note by line and kind, and a reply that acts on it converges', async () => {
    const dispatch = fakeDispatcher([{ reply: REVIEWED }, { reply: DISMISSED }, { reply: MIXED }]);
    const r = await runDocument(await testPlan(runs, { dismissals: 'repair' }), engineDeps(dispatch));
    expect(r.status).toBe('converged');
    const m = readManifest(r.runDir);
    expect(m.pass_records[1]!.dispatches.map((d) => `${d.kind}:${d.status}`)).toEqual(['pass:rejected', 'repair:completed']);
    const repair = dispatch.requests[2]!;
    expect(repair.attempt).toEqual({ kind: 'repair', index: 1 });
    expect(repair.repair_error).toMatch(/^your reply deleted 1 \[CONTESTED\] note of the document you were sent \(line 4: \[CONTESTED\]\) without changing/);
    // The note's words stand only inside the document's frame: the repair resends the document the pass was sent.
    expect(repair.repair_error).not.toContain('release freeze');
    expect(repair.prompt.split('release freeze').length - 1).toBe(1);
    expect(m.pass_records[1]).toMatchObject({ acted: 1, dismissed: 1, repairs: 1, warnings: [] });
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('repair: a [CLARIFY] dismissal is not repaired; a second dismissal after the repair is accepted with a warning', async () => {
    const onlyClarify = await runDocument(await testPlan(runs, { dismissals: 'repair' }), engineDeps(fakeDispatcher([{ reply: REVIEWED }, { reply: MIXED }])));
    expect(readManifest(onlyClarify.runDir).pass_records[1]!.repairs).toBe(0);

    const deps = engineDeps(fakeDispatcher([{ reply: REVIEWED }, { reply: DISMISSED }, { reply: DISMISSED }]));
    const r = await runDocument(await testPlan(runs, { dismissals: 'repair' }), deps);
    expect(r.status).toBe('converged');
    const p = readManifest(r.runDir).pass_records[1]!;
    expect(p.dispatches.map((d) => `${d.kind}:${d.status}`)).toEqual(['pass:rejected', 'repair:completed']);
    expect(p.warnings).toHaveLength(1);
    expect(deps.seen.filter((e) => e.type === 'warning')).toHaveLength(1);
  });

  it('repair: with no repair left (max_repairs 0) the dismissal is a warning', async () => {
    const r = await runDocument(
      await testPlan(runs, { dismissals: 'repair', maxRepairs: 0 }),
      engineDeps(fakeDispatcher([{ reply: REVIEWED }, { reply: DISMISSED }])),
    );
    const p = readManifest(r.runDir).pass_records[1]!;
    expect(p.dispatches).toHaveLength(1);
    expect(p.warnings).toHaveLength(1);
  });

  it('a non-final pass is never repaired for a dismissal', async () => {
    const dispatch = fakeDispatcher([{ reply: REVIEWED }, { reply: DISMISSED }]);
    const r = await runDocument(await testPlan(runs, { dismissals: 'repair', passes: 4 }), engineDeps(dispatch));
    expect(r.status).toBe('converged');
    expect(dispatch.requests.map((q) => q.attempt?.kind)).toEqual(['pass', 'pass']);
  });

  it('is in the policy only when it is not allow, so runs made before it resume under the same policy', async () => {
    const plan = await testPlan(runs);
    expect(policyOf({ ...plan, dismissals: 'allow' })).toEqual(policyOf(plan));
    expect(policyOf(plan)).not.toHaveProperty('dismissals');
    expect(policyOf({ ...plan, dismissals: 'repair' }).version).not.toBe(policyOf(plan).version);
  });
});
