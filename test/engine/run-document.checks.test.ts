import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/audit/verify.js';
import type { CheckSpec } from '../../src/checks/command.js';
import type { CheckRun } from '../../src/checks/run-check.js';
import { policyOf } from '../../src/engine/policy.js';
import { runDocument } from '../../src/engine/run-document.js';
import { listRecordFiles, readRecord } from '../../src/store/dispatch-record.js';
import { readManifest } from '../../src/store/manifest.js';
import { DOC, engineDeps, fakeDispatcher, NOTED, testPlan } from '../support/engine.js';

let runs: string;
beforeEach(() => {
  runs = mkdtempSync(join(tmpdir(), 'bounce-checks-'));
});
afterEach(() => rmSync(runs, { recursive: true, force: true }));

const LINT: CheckSpec = { command: 'no-todo {file}', timeout_s: 5 };
/** A document the fake linter refuses: it holds a TODO. */
const TODO = DOC.replace('Rollback is manual.', 'Rollback is manual. TODO: who?');
const NOTED_TODO = NOTED.replace('Rollback is manual.', 'Rollback is manual. TODO: who?');

/** A check runner that fails a document holding `TODO`, printing the line and the path it was given; it keeps what it was run on. */
function fakeLinter(over: Partial<CheckRun> = {}) {
  const seen: { file: string; text: string }[] = [];
  const runner = async (_check: CheckSpec, file: string): Promise<CheckRun> => {
    const text = readFileSync(file, 'utf8');
    seen.push({ file, text });
    const line = text.split('\n').findIndex((l) => l.includes('TODO')) + 1;
    const failed = line > 0;
    return {
      status: failed ? 'failed' : 'passed',
      exitCode: failed ? 1 : 0,
      output: failed ? `${file}:${line} no-todo: a TODO is left\n` : '',
      droppedBytes: 0,
      durationMs: 3,
      ...over,
    };
  };
  return Object.assign(runner, { seen });
}

const attempts = (runDir: string): string[][] => readManifest(runDir).pass_records.map((p) => p.dispatches.map((d) => `${d.kind}:${d.status}`));
const recordsOf = (runDir: string) => listRecordFiles(runDir).map((rel) => readRecord(join(runDir, rel)));

async function run(script: Parameters<typeof fakeDispatcher>[0], over: { checks?: CheckSpec[]; passes?: number; linter?: ReturnType<typeof fakeLinter> } = {}) {
  const plan = await testPlan(runs, { checks: over.checks ?? [LINT], passes: over.passes ?? 2 });
  const dispatch = fakeDispatcher([...script]);
  const linter = over.linter ?? fakeLinter();
  const deps = engineDeps(dispatch, { check: linter });
  const r = await runDocument(plan, deps);
  return { r, dispatch, linter, seen: deps.seen, m: readManifest(r.runDir) };
}

describe('check commands in the loop', () => {
  it("a failing check on a reply is repaired by the same agent with the check's output, framed, the copy's path shown as {file}", async () => {
    const { r, dispatch, linter, m } = await run([{ reply: NOTED_TODO }, { reply: NOTED }, { reply: DOC }]);
    expect(r.status).toBe('converged');
    expect(attempts(r.runDir)).toEqual([['pass:rejected', 'repair:completed'], ['pass:completed']]);
    const repair = dispatch.requests[1]!;
    expect(repair.attempt).toEqual({ kind: 'repair', index: 1 });
    expect(repair.repair_error).toContain('fails check `no-todo {file}` (exit 1)');
    expect(repair.prompt).toMatch(/<<<BOUNCE-CHECK-([0-9a-f]{12})>>>\n\{file\}:5 no-todo: a TODO is left\n<<<END-BOUNCE-CHECK-\1>>>/);
    expect(repair.prompt).not.toContain(runs);
    // Each check ran on a copy in the run folder of the reply's document, never on the input.
    expect(linter.seen.map((s) => s.file)).toEqual([
      join(r.runDir, 'pass-1-reviewer-rev.check.md'),
      join(r.runDir, 'pass-1-reviewer-rev.repair-1.check.md'),
      join(r.runDir, 'pass-2-composer-com.check.md'),
    ]);
    expect(linter.seen.map((s) => s.text)).toEqual([NOTED_TODO, NOTED, DOC]);
    expect(m.policy.checks).toEqual([LINT]);
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('each run is in the dispatch record with its exit, duration and output file, whose sha256 the audit checks', async () => {
    const { r } = await run([{ reply: NOTED_TODO }, { reply: NOTED }, { reply: DOC }]);
    const checks = recordsOf(r.runDir).map((rec) => rec.response?.checks);
    expect(checks.map((c) => c?.map((x) => [x.status, x.exit_code, x.output.path]))).toEqual([
      [['failed', 1, 'pass-1-reviewer-rev.check-1.log']],
      [['passed', 0, 'pass-1-reviewer-rev.repair-1.check-1.log']],
      [['passed', 0, 'pass-2-composer-com.check-1.log']],
    ]);
    expect(checks[0]?.[0]).toMatchObject({ command: 'no-todo {file}', duration_ms: 3, timeout_s: 5, dropped_bytes: 0 });
    expect(readFileSync(join(r.runDir, 'pass-1-reviewer-rev.check-1.log'), 'utf8')).toContain('no-todo: a TODO is left');
    expect(readFileSync(join(r.runDir, 'run.log'), 'utf8')).toContain('pass 1: check `no-todo {file}`: failed (exit 1) in 3 ms');
  });

  it('the final pass must pass every check: still failing after its repair, the run is not converged with that reason', async () => {
    const { r, m } = await run([{ reply: NOTED }, { reply: TODO }, { reply: TODO }]);
    expect(r.status).toBe('not-converged');
    expect(r.exitCode).toBe(1);
    expect(r.error?.message).toMatch(/^the final pass's document still fails check `no-todo \{file\}` \(exit 1\) after 1 repair/);
    expect(attempts(r.runDir)).toEqual([['pass:completed'], ['pass:rejected', 'repair:rejected']]);
    expect(m.output.written).toBe(false);
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('before the final pass a document still failing after the repair is kept with a warning, and ends no run early', async () => {
    // Pass 1 leaves no note but a TODO twice: kept; the run goes on, and pass 2's reply passes.
    const { r, seen, m, dispatch } = await run([{ reply: TODO }, { reply: TODO }, { reply: DOC }]);
    expect(r.status).toBe('converged');
    expect(dispatch.requests.map((q) => q.pass)).toEqual([1, 1, 2]);
    expect(m.pass_records[0]?.warnings).toEqual([
      'the document of pass 1 still fails check `no-todo {file}` after its repairs: kept, and checked again on the next pass',
    ]);
    expect(seen.some((e) => e.type === 'warning' && e.pass === 1)).toBe(true);
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('a check that cannot start, or runs out of time, fails the run at once with type check: no repair', async () => {
    for (const [status, words] of [
      ['not-started', 'could not start: no-todo: no such program'],
      ['timed-out', 'ran out of its 5 s time limit'],
    ] as const) {
      const linter = fakeLinter({ status, exitCode: null, output: status === 'not-started' ? 'no-todo: no such program' : '' });
      const { r, dispatch } = await run([{ reply: NOTED }], { linter });
      expect(r.status).toBe('failed');
      expect(r.exitCode).toBe(3);
      expect(r.error?.type).toBe('check');
      expect(r.error?.message).toContain(words);
      expect(dispatch.requests).toHaveLength(1);
      expect(recordsOf(r.runDir)[0]?.response?.checks?.[0]?.status).toBe(status);
      expect(verifyRun(r.runDir).problems).toEqual([]);
    }
  });

  it('a run without checks runs none, records none and keeps the policy it had before checks existed', async () => {
    const plan = await testPlan(runs);
    const linter = fakeLinter();
    const r = await runDocument(plan, engineDeps(fakeDispatcher([{ reply: NOTED }, { reply: DOC }]), { check: linter }));
    expect(r.status).toBe('converged');
    expect(linter.seen).toEqual([]);
    expect(readManifest(r.runDir).policy).not.toHaveProperty('checks');
    expect(recordsOf(r.runDir).every((rec) => rec.response !== null && !('checks' in rec.response))).toBe(true);
    expect(policyOf(await testPlan(runs, { checks: [] })).version).toBe(policyOf(plan).version);
    expect(policyOf(await testPlan(runs, { checks: [LINT] })).version).not.toBe(policyOf(plan).version);
  });
});

describe('check commands and resume', () => {
  it('a run stopped after a pass that kept a failing document with no notes left goes on: the next pass is checked, never taken as converged', async () => {
    const plan = await testPlan(runs, { checks: [LINT], passes: 2 });
    // Pass 1 leaves no note but a TODO (kept after its repair); pass 2 is cut off while its reply is checked.
    const abort = new AbortController();
    const lint = fakeLinter();
    let calls = 0;
    const cutting = async (check: CheckSpec, file: string): Promise<CheckRun> => {
      if (++calls === 3) abort.abort();
      return lint(check, file);
    };
    const stopped = await runDocument(
      plan,
      engineDeps(fakeDispatcher([{ reply: TODO }, { reply: TODO }, { reply: DOC }]), { check: cutting, signal: abort.signal }),
    );
    expect(stopped.status).toBe('interrupted');
    const dispatch = fakeDispatcher([{ reply: DOC }]);
    const done = await runDocument(plan, engineDeps(dispatch, { check: fakeLinter() }), { runDir: stopped.runDir });
    expect(dispatch.requests.map((q) => q.pass)).toEqual([2]);
    expect(done.status).toBe('converged');
    expect(readFileSync(join(done.runDir, 'final.md'), 'utf8')).not.toContain('TODO');
  });
});

describe('check commands and Ctrl-C', () => {
  it('an abort while a check runs ends the run interrupted, resumable, and the audit accepts it', async () => {
    const plan = await testPlan(runs, { checks: [LINT] });
    const abort = new AbortController();
    const linter = async (): Promise<CheckRun> => {
      abort.abort();
      return { status: 'failed', exitCode: null, output: '', droppedBytes: 0, durationMs: 1 };
    };
    const r = await runDocument(plan, engineDeps(fakeDispatcher([{ reply: NOTED }]), { check: linter, signal: abort.signal }));
    expect(r.status).toBe('interrupted');
    expect(r.exitCode).toBe(130);
    expect(attempts(r.runDir)).toEqual([['pass:rejected']]);
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });
});
