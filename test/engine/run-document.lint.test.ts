import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/audit/verify.js';
import { runDocument } from '../../src/engine/run-document.js';
import { readManifest } from '../../src/store/manifest.js';
import type { LintMode } from '../../src/vocabulary.js';
import { DOC, engineDeps, fakeDispatcher, NOTED, testPlan } from '../support/engine.js';

let runs: string;
beforeEach(() => {
  runs = mkdtempSync(join(tmpdir(), 'bounce-lint-'));
});
afterEach(() => rmSync(runs, { recursive: true, force: true }));

/** A [CONTESTED] note with no alternative (dissent-only), on line 6 of the document. */
const DISSENT_WORDS = 'Monday feels far too early for everyone.';
const DISSENT = DOC.replace('Rollback is manual.\n', `Rollback is manual.\n[CONTESTED] ${DISSENT_WORDS}\n`);
/** The same note with a concrete alternative: it conforms. */
const PROPOSED = DOC.replace('Rollback is manual.\n', 'Rollback is manual.\n[CONTESTED] Monday is too early. Ship on Wednesday instead.\n');

const passes = (runDir: string): string[][] => readManifest(runDir).pass_records.map((p) => p.dispatches.map((d) => `${d.kind}:${d.status}`));

async function run(lint: LintMode, script: Parameters<typeof fakeDispatcher>[0], over: { maxRepairs?: number; input?: string } = {}) {
  const plan = await testPlan(runs, { lint, maxRepairs: over.maxRepairs ?? 1 }, over.input);
  const dispatch = fakeDispatcher([...script]);
  const deps = engineDeps(dispatch);
  const r = await runDocument(plan, deps);
  expect(verifyRun(r.runDir).problems).toEqual([]);
  return { r, dispatch, seen: deps.seen, m: readManifest(r.runDir) };
}

describe('lint of the notes a pass adds (lint: off | warn | repair)', () => {
  it('off keeps the run as it was: no lint field, no warning, no repair', async () => {
    const { r, dispatch, seen, m } = await run('off', [{ reply: DISSENT }, { reply: DOC }]);
    expect(r.status).toBe('converged');
    expect(dispatch.requests).toHaveLength(2);
    expect(m.pass_records[0]?.lint).toBeUndefined();
    expect(m.policy.lint).toBe('off');
    expect(seen.some((e) => e.type === 'lint-warning')).toBe(false);
  });

  it('warn records the breaking note in the pass record, run.log and an event, and sends no repair', async () => {
    const { r, dispatch, seen, m } = await run('warn', [{ reply: DISSENT }, { reply: DOC }]);
    expect(r.status).toBe('converged');
    expect(dispatch.requests).toHaveLength(2);
    expect(passes(r.runDir)).toEqual([['pass:completed'], ['pass:completed']]);
    expect(m.pass_records[0]?.lint).toEqual([{ line: 6, rule: 'dissent-only' }]);
    // The final pass added no note: checked, nothing kept.
    expect(m.pass_records[1]?.lint).toEqual([]);
    expect(m.policy.lint).toBe('warn');
    expect(readFileSync(join(r.runDir, 'run.log'), 'utf8')).toContain('pass 1: kept 1 lint problem(s) in the notes it added: line 6: dissent-only');
    expect(seen.filter((e) => e.type === 'lint-warning')).toEqual([
      { type: 'lint-warning', pass: 1, agent: 'rev', problems: [{ line: 6, rule: 'dissent-only' }] },
    ]);
  });

  it('repair sends one repair naming each breaking note by line and rule id, never its words', async () => {
    const { r, dispatch, m } = await run('repair', [{ reply: DISSENT }, { reply: PROPOSED }, { reply: DOC }]);
    expect(r.status).toBe('converged');
    expect(passes(r.runDir)).toEqual([['pass:rejected', 'repair:completed'], ['pass:completed']]);
    const repair = dispatch.requests[1]!;
    expect(repair.attempt).toEqual({ kind: 'repair', index: 1 });
    expect(repair.repair_error).toContain('line 6: dissent-only');
    expect(repair.repair_error).toContain('add what to write instead');
    expect(repair.repair_error).not.toContain(DISSENT_WORDS);
    // The note's words reach the prompt only inside the document's frame (the rejected reply).
    expect(repair.prompt.split(DISSENT_WORDS)).toHaveLength(2);
    expect(m.pass_records[0]?.dispatches[0]?.reason).toContain('line 6: dissent-only');
    expect(m.pass_records[0]?.lint).toEqual([]);
    expect(m.pass_records[0]?.repairs).toBe(1);
  });

  it('repair names every rule a note breaks and every breaking note', async () => {
    const two = DISSENT.replace('on Monday.\n', 'on Monday.\n\n[CLARIFY] What does Monday mean here?\n');
    const { dispatch } = await run('repair', [{ reply: two }, { reply: PROPOSED }, { reply: DOC }]);
    const reason = dispatch.requests[1]?.repair_error ?? '';
    expect(reason).toMatch(/^2 notes added by this pass break/);
    expect(reason).toContain('line 5: open-ended, misplaced; line 8: dissent-only');
    expect(reason).not.toContain('What does Monday mean');
  });

  it('repair: notes that still break a rule after the last repair are kept with a warning (lint is advisory)', async () => {
    const { r, dispatch, seen, m } = await run('repair', [{ reply: DISSENT }, { reply: DISSENT }, { reply: DOC }]);
    expect(r.status).toBe('converged');
    expect(dispatch.requests).toHaveLength(3);
    expect(passes(r.runDir)).toEqual([['pass:rejected', 'repair:completed'], ['pass:completed']]);
    expect(m.pass_records[0]?.lint).toEqual([{ line: 6, rule: 'dissent-only' }]);
    expect(seen.filter((e) => e.type === 'lint-warning')).toHaveLength(1);
  });

  it('repair shares the pass repair budget: with --max-repairs 0 the notes are kept with a warning', async () => {
    const { dispatch, m } = await run('repair', [{ reply: DISSENT }, { reply: DOC }], { maxRepairs: 0 });
    expect(dispatch.requests).toHaveLength(2);
    expect(m.pass_records[0]?.lint).toEqual([{ line: 6, rule: 'dissent-only' }]);
  });

  it('repair leaves conforming notes untouched: no repair', async () => {
    const { r, dispatch, m } = await run('repair', [{ reply: NOTED }, { reply: DOC }]);
    expect(r.status).toBe('converged');
    expect(dispatch.requests.map((q) => q.attempt?.kind)).toEqual(['pass', 'pass']);
    expect(m.pass_records[0]?.lint).toEqual([]);
  });

  it('only the notes the pass added are linted: a breaking note already in its input is left alone', async () => {
    const { dispatch, m } = await run('repair', [{ reply: DISSENT }, { reply: DOC }], { input: DISSENT });
    expect(dispatch.requests.map((q) => q.attempt?.kind)).toEqual(['pass', 'pass']);
    expect(m.pass_records[0]?.lint).toEqual([]);
  });

  it('the final pass is unaffected: its notes are the final-pass rule, not lint', async () => {
    const { r, dispatch, m } = await run('repair', [{ reply: NOTED }, { reply: DISSENT }, { reply: DISSENT }]);
    expect(r.status).toBe('not-converged');
    const repair = dispatch.requests[2]?.repair_error ?? '';
    expect(repair).toContain('left on the final pass');
    expect(repair).not.toContain('dissent-only');
    expect(m.pass_records[1]?.lint).toBeUndefined();
  });
});
