import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/audit/verify.js';
import type { Dispatcher } from '../../src/engine/deps.js';
import { runDocument } from '../../src/engine/run-document.js';
import { readManifest } from '../../src/store/manifest.js';
import { listRuns } from '../../src/store/resolve-run.js';
import { type Answer, DOC, engineDeps, fakeDispatcher, instantClock, NOTED, testPlan } from '../support/engine.js';

let runs: string;
beforeEach(() => {
  runs = mkdtempSync(join(tmpdir(), 'bounce-engine-'));
});
afterEach(() => rmSync(runs, { recursive: true, force: true }));

/** A document long enough for the summary check (over 50 words). */
const LONG = `${Array.from({ length: 12 }, (_, i) => `Paragraph ${i} says what the service does when a call fails.`).join('\n\n')}\n`;
const LONG_NOTED = `${LONG}[CONTESTED] Two retries, not five.\n`;
const SUMMARY = 'The service retries.\n';
const FENCED = '# Deploy\n\n```sh\nmake deploy\n```\n\nRollback is manual.\n';
const FENCED_NOTED = `${FENCED}[CLARIFY] Who rolls back: (A) on-call, (B) the owner?\n`;
/** The closing fence deleted: the note below turns into code, and a scan would call it resolved. */
const FENCE_OPEN = FENCED_NOTED.replace('make deploy\n```\n', 'make deploy\n');
const CODE_CHANGED = FENCED.replace('make deploy', 'make deploy-all');
const fail = (
  type: Extract<Answer, { error: unknown }>['error']['type'],
  extra: { status?: number; retry_after_ms?: number; resets_at?: string } = {},
): Answer => ({
  error: { type, ...extra },
});

interface Row {
  name: string;
  script: Answer[];
  input?: string;
  passes?: number;
  maxRepairs?: number;
  allPasses?: boolean;
  status: 'converged' | 'not-converged' | 'failed';
  exitCode: number;
  errorType?: string;
  /** Per pass, the dispatches as `<kind>:<status>`. */
  passes_: string[][];
  slept?: number[];
  breaker?: { consecutive_failures: number; open: boolean };
  /** For a run that did not converge: the notes of the document it keeps. */
  notesLeft?: number;
}

// The README's table "Replies, retries and repairs", row by row, against a fake dispatcher.
const ROWS: Row[] = [
  {
    name: 'two clean passes converge in two calls',
    script: [{ reply: NOTED }, { reply: DOC }],
    status: 'converged',
    exitCode: 0,
    passes_: [['pass:completed'], ['pass:completed']],
  },
  {
    name: 'an empty reply is sent once more (a retry, not a repair)',
    script: [{ reply: '' }, { reply: NOTED }, { reply: DOC }],
    status: 'converged',
    exitCode: 0,
    passes_: [['pass:rejected', 'retry:completed'], ['pass:completed']],
  },
  {
    name: 'an empty reply after its resend is repaired',
    script: [{ reply: '' }, { reply: ' \n' }, { reply: NOTED }, { reply: DOC }],
    status: 'converged',
    exitCode: 0,
    passes_: [['pass:rejected', 'retry:rejected', 'repair:completed'], ['pass:completed']],
  },
  {
    name: 'a summary instead of the document is repaired',
    input: LONG,
    script: [{ reply: SUMMARY }, { reply: LONG_NOTED }, { reply: LONG }],
    status: 'converged',
    exitCode: 0,
    passes_: [['pass:rejected', 'repair:completed'], ['pass:completed']],
  },
  {
    name: 'notes left on the final pass are repaired',
    script: [{ reply: NOTED }, { reply: NOTED }, { reply: DOC }],
    status: 'converged',
    exitCode: 0,
    passes_: [['pass:completed'], ['pass:rejected', 'repair:completed']],
  },
  {
    name: 'notes still left after the repair: not-converged, exit 1',
    script: [{ reply: NOTED }, { reply: NOTED }, { reply: NOTED }],
    status: 'not-converged',
    exitCode: 1,
    errorType: 'not-converged',
    passes_: [['pass:completed'], ['pass:rejected', 'repair:rejected']],
  },
  {
    name: 'a reply cut at the output limit fails the pass, exit 3, no repair',
    script: [{ reply: NOTED, stop: 'truncated' }],
    status: 'failed',
    exitCode: 3,
    errorType: 'truncated',
    passes_: [['pass:rejected']],
  },
  {
    name: 'no usable document after the repair on a pass that is not final: failed, exit 3',
    input: LONG,
    script: [{ reply: SUMMARY }, { reply: SUMMARY }],
    status: 'failed',
    exitCode: 3,
    errorType: 'malformed',
    passes_: [['pass:rejected', 'repair:rejected']],
  },
  {
    name: 'no usable reply after the repair on the final pass with notes: not-converged, exit 1',
    script: [{ reply: NOTED }, { reply: '' }, { reply: '' }, { reply: '' }],
    status: 'not-converged',
    notesLeft: 1,
    exitCode: 1,
    errorType: 'not-converged',
    passes_: [['pass:completed'], ['pass:rejected', 'retry:rejected', 'repair:rejected']],
  },
  {
    name: 'a rate limit is retried after its Retry-After',
    script: [fail('rate_limit', { status: 429, retry_after_ms: 3000 }), { reply: NOTED }, { reply: DOC }],
    status: 'converged',
    exitCode: 0,
    passes_: [['pass:error', 'retry:completed'], ['pass:completed']],
    slept: [3000],
    breaker: { consecutive_failures: 0, open: false },
  },
  {
    name: 'network errors and 5xx back off exponentially',
    script: [fail('network'), fail('provider', { status: 503 }), { reply: NOTED }, { reply: DOC }],
    status: 'converged',
    exitCode: 0,
    passes_: [['pass:error', 'retry:error', 'retry:completed'], ['pass:completed']],
    slept: [1000, 2000],
  },
  {
    name: 'at most 2 transient retries a pass, even when a reply in between resets the breaker',
    script: [fail('provider', { status: 500 }), fail('provider', { status: 500 }), { reply: '' }, fail('provider', { status: 500 })],
    status: 'failed',
    exitCode: 3,
    errorType: 'provider',
    passes_: [['pass:error', 'retry:error', 'retry:rejected', 'retry:error']],
    slept: [1000, 2000],
    breaker: { consecutive_failures: 1, open: false },
  },
  {
    name: 'auth fails at once and counts toward the breaker',
    script: [fail('auth', { status: 401 })],
    status: 'failed',
    exitCode: 3,
    errorType: 'auth',
    passes_: [['pass:error']],
    breaker: { consecutive_failures: 1, open: false },
  },
  {
    name: 'a 4xx provider error is not retried',
    script: [fail('provider', { status: 400 })],
    status: 'failed',
    exitCode: 3,
    errorType: 'provider',
    passes_: [['pass:error']],
  },
  {
    name: 'a timeout fails at once with dispatch status timeout',
    script: [fail('timeout')],
    status: 'failed',
    exitCode: 3,
    errorType: 'timeout',
    passes_: [['pass:timeout']],
  },
  {
    name: 'an adapter not found, a crash or invalid output fail at once',
    script: [fail('not_found')],
    status: 'failed',
    exitCode: 3,
    errorType: 'not_found',
    passes_: [['pass:error']],
  },
  {
    name: 'three counted failures in a row open the breaker',
    script: [fail('provider', { status: 500 }), fail('network'), fail('rate_limit')],
    status: 'failed',
    exitCode: 3,
    errorType: 'breaker',
    passes_: [['pass:error', 'retry:error', 'retry:error']],
    breaker: { consecutive_failures: 3, open: true },
  },
  {
    name: 'a success resets the breaker count across passes',
    script: [fail('network'), fail('network'), { reply: NOTED }, fail('network'), fail('network'), { reply: DOC }],
    status: 'converged',
    exitCode: 0,
    passes_: [
      ['pass:error', 'retry:error', 'retry:completed'],
      ['pass:error', 'retry:error', 'retry:completed'],
    ],
    breaker: { consecutive_failures: 0, open: false },
  },
  {
    name: '--max-repairs 0 sends no repair',
    maxRepairs: 0,
    script: [{ reply: NOTED }, { reply: NOTED }],
    status: 'not-converged',
    notesLeft: 1,
    exitCode: 1,
    passes_: [['pass:completed'], ['pass:rejected']],
  },
  {
    name: '--max-repairs 2 sends two repairs in one pass',
    maxRepairs: 2,
    script: [{ reply: NOTED }, { reply: NOTED }, { reply: NOTED }, { reply: DOC }],
    status: 'converged',
    exitCode: 0,
    passes_: [['pass:completed'], ['pass:rejected', 'repair:rejected', 'repair:completed']],
  },
  {
    name: 'a reply that leaves a fence unclosed is repaired, on any pass',
    input: FENCED,
    script: [{ reply: FENCE_OPEN }, { reply: FENCED_NOTED }, { reply: FENCED }],
    status: 'converged',
    exitCode: 0,
    passes_: [['pass:rejected', 'repair:completed'], ['pass:completed']],
  },
  {
    name: 'a final pass that hides its notes by deleting a closing fence does not converge',
    input: FENCED,
    script: [{ reply: FENCED_NOTED }, { reply: FENCE_OPEN }, { reply: FENCE_OPEN }],
    status: 'not-converged',
    notesLeft: 1,
    exitCode: 1,
    errorType: 'not-converged',
    passes_: [['pass:completed'], ['pass:rejected', 'repair:rejected']],
  },
  {
    name: 'a final pass that changes a code block is repaired, and fails to converge if it keeps doing so',
    input: FENCED,
    script: [{ reply: FENCED_NOTED }, { reply: CODE_CHANGED }, { reply: CODE_CHANGED }],
    status: 'not-converged',
    notesLeft: 1,
    exitCode: 1,
    passes_: [['pass:completed'], ['pass:rejected', 'repair:rejected']],
  },
  {
    name: 'a pass that is not final may change code',
    input: FENCED,
    passes: 3,
    script: [{ reply: FENCED_NOTED.replace('make deploy', 'make deploy-all') }, { reply: CODE_CHANGED }],
    status: 'converged',
    exitCode: 0,
    passes_: [['pass:completed'], ['pass:completed']],
  },
  { name: 'zero notes stop the run early', passes: 4, script: [{ reply: DOC }], status: 'converged', exitCode: 0, passes_: [['pass:completed']] },
  {
    name: '--all-passes runs every pass',
    passes: 3,
    allPasses: true,
    script: [{ reply: DOC }, { reply: DOC }, { reply: DOC }],
    status: 'converged',
    exitCode: 0,
    passes_: [['pass:completed'], ['pass:completed'], ['pass:completed']],
  },
];

describe('the engine, row by row of the retry and repair table', () => {
  it.each(ROWS)('$name', async (row) => {
    const plan = await testPlan(runs, { passes: row.passes ?? 2, maxRepairs: row.maxRepairs ?? 1, allPasses: row.allPasses ?? false }, row.input);
    const dispatch = fakeDispatcher([...row.script]);
    const clock = instantClock();
    const r = await runDocument(plan, engineDeps(dispatch, { clock }));
    expect(dispatch.requests).toHaveLength(row.script.length);
    expect({ status: r.status, exitCode: r.exitCode }).toEqual({ status: row.status, exitCode: row.exitCode });
    if (row.errorType) expect(r.error?.type).toBe(row.errorType);
    const m = readManifest(r.runDir);
    expect(m.status).toBe(row.status);
    expect(m.exit_code).toBe(row.exitCode);
    expect(m.pass_records.map((p) => p.dispatches.map((d) => `${d.kind}:${d.status}`))).toEqual(row.passes_);
    expect(m.totals.dispatches).toBe(row.script.length);
    if (row.slept) expect(clock.slept).toEqual(row.slept);
    if (row.breaker) expect(m.breaker).toMatchObject(row.breaker);
    // The run keeps the last accepted document, and notes_left is that document's notes, whatever the reply did.
    if (row.notesLeft !== undefined) expect({ run: m.notes_left, result: r.notesLeft }).toEqual({ run: row.notesLeft, result: row.notesLeft });
    expect(existsSync(join(r.runDir, 'final.md'))).toBe(row.status === 'converged');
    if (row.status === 'converged') expect(readFileSync(join(r.runDir, 'final.md'), 'utf8')).toBe(r.document);
    // Whatever the outcome, the run folder passes the audit.
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('a quota stop names the reset time in the error and run.json, and the run resumes after it', async () => {
    const plan = await testPlan(runs);
    const r = await runDocument(plan, engineDeps(fakeDispatcher([fail('quota', { resets_at: '2026-12-02T04:20:00Z' })])));
    expect(r.error).toEqual({
      type: 'quota',
      message: 'rev hit its usage limit (it resets at 2026-12-02T04:20:00Z): quota from the fake',
      resets_at: '2026-12-02T04:20:00Z',
    });
    expect(readManifest(r.runDir).error?.resets_at).toBe('2026-12-02T04:20:00Z');
    const done = await runDocument(plan, engineDeps(fakeDispatcher([{ reply: NOTED }, { reply: DOC }])), { runDir: r.runDir });
    expect(done.status).toBe('converged');
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('a repair of notes carries the rejected reply; a repair of a summary carries the pass input again', async () => {
    const plan = await testPlan(runs, {}, LONG);
    const dispatch = fakeDispatcher([{ reply: SUMMARY }, { reply: LONG_NOTED }, { reply: LONG_NOTED }, { reply: LONG }]);
    const r = await runDocument(plan, engineDeps(dispatch));
    expect(r.status).toBe('converged');
    const [, summaryRepair, , notesRepair] = dispatch.requests;
    expect(summaryRepair?.attempt).toEqual({ kind: 'repair', index: 1 });
    expect(summaryRepair?.prompt).toContain('Paragraph 11');
    expect(summaryRepair?.prompt).not.toContain('Two retries, not five');
    expect(notesRepair?.prompt).toContain('Two retries, not five');
    expect(notesRepair?.repair_error).toBe('1 note left on the final pass, which must resolve every note and add none (line 24: [CONTESTED])');
    // The reason stands above the document's frame: it names lines and kinds, never a note's text.
    const frameStart = notesRepair?.prompt.indexOf('<<<BOUNCE-DOCUMENT-') ?? -1;
    expect(notesRepair?.prompt.slice(0, frameStart)).not.toContain('Two retries');
  });
});

describe('runDocument', () => {
  it('emits events in order and writes nothing to the terminal', async () => {
    const deps = engineDeps(fakeDispatcher([{ reply: NOTED }, { reply: DOC }]));
    const r = await runDocument(await testPlan(runs), deps);
    expect(deps.seen.map((e) => e.type)).toEqual([
      'run-started',
      'pass-started',
      'dispatch-started',
      'dispatch-finished',
      'pass-finished',
      'pass-started',
      'dispatch-started',
      'dispatch-finished',
      'pass-finished',
      'run-finished',
    ]);
    expect(deps.seen.at(-1)).toEqual({ type: 'run-finished', runId: r.runId, status: 'converged', exitCode: 0 });
    expect(deps.seen[4]).toEqual({ type: 'pass-finished', pass: 1, notesAfter: 1, outcome: 'done' });
  });

  it('a retry names its cause: the HTTP status and the endpoint host, or the kind of error', async () => {
    const plan = await testPlan(runs, { resolved: { reviewer: { base_url: 'https://models.example.com/v1' }, composer: {} } });
    const deps = engineDeps(fakeDispatcher([fail('provider', { status: 500 }), fail('network'), { reply: NOTED }, { reply: DOC }]));
    await runDocument(plan, deps);
    const retries = deps.seen.filter((e) => e.type === 'retry-scheduled').map((e) => (e.type === 'retry-scheduled' ? e.message : ''));
    expect(retries).toEqual(['HTTP 500 from models.example.com', 'network error from models.example.com']);
  });

  it('a timeout says which setting to raise', async () => {
    const r = await runDocument(await testPlan(runs), engineDeps(fakeDispatcher([fail('timeout')])));
    expect(r.error?.message).toMatch(
      /: pass a longer deadline, e\.g\. --timeout 120 \(bounce resume takes it too\), or set timeout_s under agents\.rev in bounce\.config\.yaml$/,
    );
  });

  it('two runs in one process at once keep apart', async () => {
    const plan = await testPlan(runs);
    const a = fakeDispatcher([{ reply: NOTED }, { reply: DOC }]);
    const b = fakeDispatcher([{ reply: '' }, { reply: NOTED }, { reply: NOTED }, { reply: DOC }]);
    const [ra, rb] = await Promise.all([runDocument(plan, engineDeps(a)), runDocument({ ...plan, name: 'other' }, engineDeps(b))]);
    expect(ra.runDir).not.toBe(rb.runDir);
    expect(readManifest(ra.runDir).totals.dispatches).toBe(2);
    expect(readManifest(rb.runDir).totals.dispatches).toBe(4);
    expect(new Set([...a.requests, ...b.requests].map((q) => q.run_id))).toEqual(new Set([ra.runId, rb.runId]));
    for (const r of [ra, rb]) expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('an abort during a call leaves an interrupted run that resumes under .resume-<k> names and passes the audit', async () => {
    const plan = await testPlan(runs, { passes: 3 });
    const ctrl = new AbortController();
    const interrupting = async (...args: Parameters<ReturnType<typeof fakeDispatcher>>) => {
      if (args[1].pass === 2) {
        ctrl.abort();
        return { ok: false as const, error: { type: 'interrupted' as const, message: 'interrupted' }, stdout: '', stderr: '', exitCode: null, durationMs: 3 };
      }
      return fakeDispatcher([{ reply: NOTED }])(...args);
    };
    const first = await runDocument(plan, engineDeps(interrupting, { signal: ctrl.signal }));
    expect({ status: first.status, exitCode: first.exitCode }).toEqual({ status: 'interrupted', exitCode: 130 });
    expect(readManifest(first.runDir).pass_records.map((p) => p.status)).toEqual(['completed', 'interrupted']);

    // Interrupted again in the same pass, then finished: every attempt keeps its own files.
    const ctrl2 = new AbortController();
    const again = async (...args: Parameters<ReturnType<typeof fakeDispatcher>>) => {
      ctrl2.abort();
      return {
        ok: false as const,
        error: { type: 'interrupted' as const, message: 'interrupted' },
        stdout: '',
        stderr: '',
        exitCode: null,
        durationMs: 1,
        ...args.slice(2),
      };
    };
    expect((await runDocument(plan, engineDeps(again, { signal: ctrl2.signal }), { runDir: first.runDir })).status).toBe('interrupted');
    const last = fakeDispatcher([{ reply: NOTED }, { reply: DOC }]);
    const done = await runDocument(plan, engineDeps(last), { runDir: first.runDir });
    expect(done.status).toBe('converged');
    expect(last.requests.map((q) => q.pass)).toEqual([2, 3]);
    const files = readdirSync(first.runDir).filter((f) => f.startsWith('pass-2-') && f.endsWith('.prompt.md'));
    expect(files.sort()).toEqual(['pass-2-composer-com.prompt.md', 'pass-2-composer-com.resume-1.prompt.md', 'pass-2-composer-com.resume-2.prompt.md']);
    const m = readManifest(first.runDir);
    expect(m.pass_records.map((p) => `${p.pass}:${p.status}`)).toEqual(['1:completed', '2:interrupted', '2:interrupted', '2:completed', '3:completed']);
    expect(m.pass_records[3]?.dispatches[0]?.stem).toBe('pass-2-composer-com.resume-2');
    expect(verifyRun(first.runDir).problems).toEqual([]);
  });
});

describe('resuming after a lost artifact', () => {
  it('builds on the newest completed pass whose document is on disk as recorded, not on a damaged one', async () => {
    const plan = await testPlan(runs, { passes: 3 });
    const first = await runDocument(plan, engineDeps(fakeDispatcher([{ reply: NOTED }, { reply: NOTED }, { error: { type: 'timeout' } }])));
    expect(first.status).toBe('failed');
    // What a power cut can do to a file that was never synced: it comes back empty.
    writeFileSync(join(first.runDir, 'pass-2-composer-com.md'), '');
    const again = fakeDispatcher([{ reply: NOTED }, { reply: DOC }]);
    const r = await runDocument(plan, engineDeps(again), { runDir: first.runDir });
    expect(r.status).toBe('converged');
    expect(again.requests.map((q) => q.pass)).toEqual([2, 3]);
  });
});

describe('resuming a run whose breaker opened', () => {
  it('starts with the breaker closed, counts the reopening, and converges once the agent answers', async () => {
    const plan = await testPlan(runs);
    const broken = await runDocument(plan, engineDeps(fakeDispatcher([fail('provider', { status: 500 }), fail('network'), fail('network')])));
    expect(broken.error?.type).toBe('breaker');
    expect(readManifest(broken.runDir).breaker).toMatchObject({ open: true, consecutive_failures: 3, reopened: 0 });
    const r = await runDocument(
      { ...plan, timeoutMs: { reviewer: 90_000, composer: 120_000 } },
      engineDeps(fakeDispatcher([{ reply: NOTED }, { reply: DOC }])),
      {
        runDir: broken.runDir,
      },
    );
    expect(r.status).toBe('converged');
    const m = readManifest(broken.runDir);
    expect(m.breaker).toMatchObject({ open: false, consecutive_failures: 0, reopened: 1 });
    // A deadline is not policy: the resumed run records the one it ran with.
    expect([m.agents.reviewer.timeout_s, m.agents.composer.timeout_s]).toEqual([90, 120]);
    expect(verifyRun(broken.runDir).problems).toEqual([]);
  });
});

describe('crash consistency: a crash at any write, then a resume, leaves a run the audit accepts', () => {
  /** Answers every call of a 2-pass run: a note on pass 1, resolved on pass 2. */
  const answers = (): Answer[] => Array.from({ length: 8 }, () => (q: { pass: number }) => (q.pass === 1 ? NOTED : DOC));

  it('at every one of its writes in turn', async () => {
    const plan = await testPlan(runs);
    // Count the writes of a whole run first.
    let total = 0;
    await runDocument({ ...plan, runsDir: join(runs, 'count') }, engineDeps(fakeDispatcher(answers()), { recorder: { beforeWrite: () => void total++ } }));
    expect(total).toBeGreaterThan(15);
    for (let k = 1; k <= total; k++) {
      const dir = join(runs, `k${k}`);
      let n = 0;
      const crash = new Error(`crash at write ${k}`);
      const beforeWrite = (): void => {
        if (++n === k) throw crash;
      };
      await expect(runDocument({ ...plan, runsDir: dir }, engineDeps(fakeDispatcher(answers()), { recorder: { beforeWrite } }))).rejects.toBe(crash);
      const found = listRuns(dir);
      if (found.length === 0) {
        // Killed before the run folder was renamed into place: no run exists, and nothing half-made shows.
        expect(readdirSync(dir).filter((f) => !f.startsWith('.'))).toEqual([]);
        continue;
      }
      expect(found).toHaveLength(1);
      const runDir = found[0]!.dir;
      const before = readManifest(runDir);
      if (before.status === 'running') {
        const r = await runDocument(plan, engineDeps(fakeDispatcher(answers())), { runDir });
        expect(r.status, `write ${k}`).toBe('converged');
      }
      expect(verifyRun(runDir).problems, `write ${k}`).toEqual([]);
      expect(readManifest(runDir).status).toBe('converged');
    }
  });

  it('the dispatcher is called before the dispatch is recorded, and may send only once its prompt and pending record are on disk', async () => {
    const plan = await testPlan(runs);
    const seen: Array<{ promptAtCall: boolean; pendingWhenReady: boolean; promptWhenReady: boolean }> = [];
    let runDir = '';
    const inner = fakeDispatcher(answers());
    const dispatch: Dispatcher = async (agent, request, opts) => {
      const stem = `pass-${request.pass}-${request.role}-${agent.slug}`;
      const promptAtCall = existsSync(join(runDir, `${stem}.prompt.md`));
      await opts.ready;
      const m = readManifest(runDir);
      const ref = m.pass_records.at(-1)?.dispatches.find((d) => d.id === request.dispatch_id);
      seen.push({
        promptAtCall,
        pendingWhenReady: ref?.status === 'pending' && ref.record !== null && existsSync(join(runDir, ref.record)),
        promptWhenReady: existsSync(join(runDir, `${stem}.prompt.md`)),
      });
      return inner(agent, request, opts);
    };
    const deps = engineDeps(dispatch, {
      events: (e) => {
        if (e.type === 'run-started') runDir = e.runDir;
      },
    });
    expect((await runDocument(plan, deps)).status).toBe('converged');
    expect(seen).toEqual([
      { promptAtCall: false, pendingWhenReady: true, promptWhenReady: true },
      { promptAtCall: false, pendingWhenReady: true, promptWhenReady: true },
    ]);
  });

  it.each([
    [
      'every pass run (--all-passes)',
      { allPasses: true, passes: 3 },
      (q: { pass: number }) => (q.pass === 3 ? DOC : NOTED),
      ['start reviewer', 'start composer', 'start reviewer'],
    ],
    ['a note left after pass 1', { passes: 2 }, (q: { pass: number }) => (q.pass === 1 ? NOTED : DOC), ['start reviewer', 'start composer']],
    ['pass 1 leaves no note: the run ends there', { passes: 2 }, () => DOC, ['start reviewer']],
    ['under a budget, which may refuse a dispatch: none', { passes: 2, budget: { dispatches: 10 } }, (q: { pass: number }) => (q.pass === 1 ? NOTED : DOC), []],
  ] as const)("starts each pass's CLI ahead where the next dispatch is certain: %s", async (_what, over, reply, expected) => {
    const plan = await testPlan(runs, over);
    const calls: string[] = [];
    let folderAtFirstStart: boolean | null = null;
    const warm = {
      start: (agent: { spec: string }) => {
        const role = agent === plan.agents.reviewer ? 'reviewer' : 'composer';
        if (folderAtFirstStart === null) folderAtFirstStart = listRuns(runs).length > 0;
        calls.push(`start ${role}`);
      },
      close: () => calls.push('close'),
    };
    const answers: Answer[] = Array.from({ length: 6 }, () => reply);
    expect((await runDocument(plan, engineDeps(fakeDispatcher(answers), { warm }))).status).toBe('converged');
    expect(calls).toEqual([...expected, 'close']);
    // The first start comes before the run folder is made: it loads meanwhile.
    if (expected.length > 0) expect(folderAtFirstStart).toBe(false);
  });

  it('a dispatch whose pending record cannot be written is called off: nothing is sent', async () => {
    const plan = await testPlan(runs);
    const inner = fakeDispatcher(answers());
    let calls = 0;
    const full = new Error('no space left on the device');
    Object.assign(full, { code: 'ENOSPC' });
    const r = await runDocument(
      plan,
      engineDeps(
        async (agent, request, opts) => {
          calls++;
          return inner(agent, request, opts);
        },
        {
          recorder: {
            beforeWrite: (kind) => {
              if (kind === 'record') throw full;
            },
          },
        },
      ),
    );
    expect(r.status).toBe('failed');
    expect(r.error?.message).toContain('no space left on the device');
    // The dispatcher was called (its CLI may start early), but the request never went.
    expect(calls).toBe(1);
    expect(inner.requests).toEqual([]);
  });

  it('a crash during the resume itself is reconciled by the next resume', async () => {
    const plan = await testPlan(runs);
    const crash = new Error('crash');
    // Crash right after pass 2's record was written as pending, before run.json lists it.
    let records = 0;
    const beforeFirst = (kind: string): void => {
      if (kind === 'record') records++;
      if (kind === 'manifest' && records === 3) throw crash;
    };
    const first = runDocument(plan, engineDeps(fakeDispatcher(answers()), { recorder: { beforeWrite: beforeFirst } }));
    await expect(first).rejects.toBe(crash);
    const runDir = listRuns(runs)[0]!.dir;
    for (let k = 1; k <= 3; k++) {
      let w = 0;
      const resumeCrash = new Error(`resume crash at ${k}`);
      const beforeWrite = (): void => {
        if (++w === k) throw resumeCrash;
      };
      await expect(runDocument(plan, engineDeps(fakeDispatcher(answers()), { recorder: { beforeWrite } }), { runDir })).rejects.toBe(resumeCrash);
    }
    const r = await runDocument(plan, engineDeps(fakeDispatcher(answers())), { runDir });
    expect(r.status).toBe('converged');
    expect(verifyRun(runDir).problems).toEqual([]);
    const m = readManifest(runDir);
    expect(m.pass_records.find((p) => p.pass === 2 && p.status === 'interrupted')?.dispatches.map((d) => d.status)).toEqual(['error']);
  });
});

describe('an exception the engine did not expect (a bug)', () => {
  it('ends the run failed with error type internal and exit code 70, and a resume goes on from the last completed pass', async () => {
    const plan = await testPlan(runs);
    // The fake throws when its script has no answer: here at pass 2's call.
    const run = runDocument(plan, engineDeps(fakeDispatcher([{ reply: NOTED }])));
    await expect(run).rejects.toThrow(/the script has no answer for call 2/);
    const runDir = listRuns(runs)[0]!.dir;
    const m = readManifest(runDir);
    expect(m.status).toBe('failed');
    expect(m.exit_code).toBe(70);
    expect(m.error).toMatchObject({ type: 'internal' });
    expect(m.error?.message).toMatch(/^internal error \(a bug; please report it\): Error: the script has no answer for call 2/);
    const again = fakeDispatcher([{ reply: DOC }]);
    const r = await runDocument(plan, engineDeps(again), { runDir });
    expect(r.status).toBe('converged');
    expect(again.requests.map((q) => q.pass)).toEqual([2]);
    expect(verifyRun(runDir).problems).toEqual([]);
  });

  it('during a resume is recorded the same way', async () => {
    const plan = await testPlan(runs, { passes: 3 });
    const first = await runDocument(plan, engineDeps(fakeDispatcher([{ reply: NOTED }, { error: { type: 'timeout' } }])));
    expect(first.status).toBe('failed');
    const bug = new RangeError('Maximum call stack size exceeded');
    const events = (e: { type: string }): void => {
      if (e.type === 'pass-finished') throw bug;
    };
    await expect(runDocument(plan, engineDeps(fakeDispatcher([{ reply: NOTED }]), { events }), { runDir: first.runDir })).rejects.toBe(bug);
    const m = readManifest(first.runDir);
    expect(m.status).toBe('failed');
    expect(m.error).toEqual({ type: 'internal', message: 'internal error (a bug; please report it): RangeError: Maximum call stack size exceeded' });
  });
});

describe('warnings an adapter reports with its reply', () => {
  it('go to the pass record, run.log and a warning event, once each, without failing the pass', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'bounce-warn-'));
    const script = fakeDispatcher([{ reply: NOTED }, { reply: DOC }]);
    const dispatch: Dispatcher = async (agent, request, opts) => {
      const r = await script(agent, request, opts);
      if (!r.ok || request.pass !== 1) return r;
      const warning = 'gemini-2.5-pro was asked for, but gemini-2.5-flash answered';
      return { ...r, response: { ...r.response, warnings: [warning, warning] } };
    };
    const deps = engineDeps(dispatch);
    const r = await runDocument(await testPlan(runsDir), deps);
    expect(r.status).toBe('converged');
    expect(r.manifest.pass_records.map((p) => p.warnings)).toEqual([['rev: gemini-2.5-pro was asked for, but gemini-2.5-flash answered'], []]);
    expect(readFileSync(join(r.runDir, 'run.log'), 'utf8')).toMatch(/pass 1: warning: rev: gemini-2\.5-pro was asked for/);
    expect(deps.seen.filter((e) => e.type === 'warning')).toHaveLength(1);
  });
});
