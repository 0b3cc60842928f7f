/**
 * `bounce decide --answers` end to end with the built CLI and scripted mock agents
 * (test/fixtures/decide/): a not-converged run, its open note argued and decided, the run
 * taken further by a pass of the person's and a final composer pass, and audited.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/audit/verify.js';
import { readRecord } from '../../src/store/dispatch-record.js';
import { runCli, tempDir } from '../support/cli.js';
import { DECIDE_FIXTURES as FIX, stuckRun } from '../support/decide-runs.js';

/** A run whose final composer pass left the reviewer's note: not-converged, one note open. */
async function stuckRunToDecide(): Promise<{ dir: string; runDir: string; id: string }> {
  const { dir, runDir } = await stuckRun();
  const list = await runCli(['decide', 'latest', '--runs-dir', 'runs', '--list', '--json'], { cwd: dir });
  expect(list.code, list.stderr).toBe(0);
  const notes = JSON.parse(list.stdout).notes;
  expect(notes).toMatchObject([{ kind: 'CONTESTED', fate: 'open', pass: 1 }]);
  return { dir, runDir, id: notes[0].id };
}

const manifest = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
const record = (runDir: string, rel: string) => readRecord(join(runDir, rel));

describe('bounce decide --answers', () => {
  it("argues the open note, records the person's decision, and converges with it integrated; audit passes", async () => {
    const { dir, runDir, id } = await stuckRunToDecide();
    writeFileSync(join(dir, 'answers.yaml'), `"${id}": reviewer\n`);
    const r = await runCli(
      ['decide', 'latest', '--runs-dir', 'runs', '--answers', 'answers.yaml', '--decider', 'ana', '--composer', `mock:${FIX}/composer-decide.yaml`, '--json'],
      { cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'converged' });
    const m = manifest(runDir);
    // The debate and the decision: three side dispatches, each with its record.
    expect(m.side_dispatches.map((d: { role: string; agent: string }) => [d.role, d.agent])).toEqual([
      ['alternative', `mock:${FIX}/reviewer.yaml`],
      ['counter', `mock:${FIX}/composer-decide.yaml`],
      ['decision', 'human:ana'],
    ]);
    const decision = record(runDir, m.side_dispatches[2].record);
    expect(decision.request.target_agent).toBe('decision/human:ana');
    expect(decision.response?.agent).toBe('decision/human:ana');
    expect(readFileSync(join(runDir, decision.response!.artifacts[0]!.path), 'utf8')).toBe(
      "decision: the reviewer's side\nRetry with exponential backoff, starting at one second and doubling, at most five times.\n",
    );
    // The person's pass wrote the decision in as a note; the final pass resolved it.
    const passes = m.pass_records.filter((p: { status: string }) => p.status === 'completed');
    expect(passes.map((p: { pass: number; agent: string }) => [p.pass, p.agent])).toEqual([
      [1, `mock:${FIX}/reviewer.yaml`],
      [2, 'human:ana'],
      [3, `mock:${FIX}/composer-decide.yaml`],
    ]);
    const decided = readFileSync(join(runDir, passes[1].document), 'utf8');
    expect(decided).toMatch(
      /^\[CONTESTED\] human:ana decided for the reviewer \(on the note "The opening is vague.*make this change: Retry with exponential backoff/m,
    );
    expect(decided).not.toMatch(/^\[CONTESTED\] The opening is vague/m);
    expect(readFileSync(join(runDir, passes[2].document), 'utf8')).not.toContain('[CONTESTED]');
    expect(m.extensions.at(-1)).toMatchObject({ passes: { to: 3 } });
    expect(verifyRun(runDir).problems).toEqual([]);
    const audit = await runCli(['audit', runDir], { cwd: dir });
    expect(audit.code, audit.stderr).toBe(0);
  });

  it('refuses a bad answers file in one line, before any dispatch', async () => {
    const { dir, runDir, id } = await stuckRunToDecide();
    const tries: [string, RegExp][] = [
      [`"${id}x": reviewer\n`, /is no note this run left to decide: did you mean /],
      [`"${id}": maybe\n`, /the answer for .* is "\\"maybe\\"".*: answer reviewer, composer, or \{text: "your own text"\}/],
      [`"${id}": {text: "  "}\n`, /\(the text is empty\)/],
      ['{}\n', /has no answer for /],
      ['[reviewer]\n', /is not a map of finding id to answer/],
    ];
    for (const [text, error] of tries) {
      writeFileSync(join(dir, 'answers.yaml'), text);
      const r = await runCli(['decide', 'latest', '--runs-dir', 'runs', '--answers', 'answers.yaml'], { cwd: dir });
      expect(r.code, text).toBe(2);
      expect(r.stderr.trim().split('\n'), text).toHaveLength(1);
      expect(r.stderr).toMatch(error);
    }
    expect(manifest(runDir).side_dispatches).toBeUndefined();
  });

  it("decides a [CONTESTED] note a converged run dismissed: the person's own text goes below the text it concerned, then the composer integrates it", async () => {
    const dir = tempDir('bounce-decide-');
    const made = await runCli(
      ['refine', join(FIX, 'retry.md'), '--reviewer', `mock:${FIX}/reviewer.yaml`, '--composer', 'mock', '--runs-dir', 'runs', '--json'],
      { cwd: dir },
    );
    expect(made.code, made.stderr).toBe(0);
    const runDir = join(dir, 'runs', JSON.parse(made.stdout).run_id);
    const refused = await runCli(['decide', 'latest', '--runs-dir', 'runs'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/asks on a terminal, and stdin is none: run it on a terminal, or give the decisions with --answers FILE/);
    const list = await runCli(['decide', 'latest', '--runs-dir', 'runs', '--list', '--json'], { cwd: dir });
    const [note] = JSON.parse(list.stdout).notes;
    expect(note).toMatchObject({ kind: 'CONTESTED', fate: 'dismissed' });
    writeFileSync(join(dir, 'answers.yaml'), `"${note.id}": {text: "Name the scope in the first sentence."}\n`);
    const r = await runCli(
      ['decide', 'latest', '--runs-dir', 'runs', '--answers', 'answers.yaml', '--decider', 'ana', '--composer', `mock:${FIX}/composer-dismissed.yaml`],
      { cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0);
    const m = manifest(runDir);
    const passes = m.pass_records.filter((p: { status: string }) => p.status === 'completed');
    expect(passes.map((p: { pass: number; role: string; agent: string }) => [p.pass, p.role, p.agent])).toEqual([
      [1, 'reviewer', `mock:${FIX}/reviewer.yaml`],
      [2, 'composer', 'mock'],
      [3, 'reviewer', 'human:ana'],
      [4, 'composer', `mock:${FIX}/composer-dismissed.yaml`],
    ]);
    const lines = readFileSync(join(runDir, passes[2].document), 'utf8').split('\n');
    const at = lines.findIndex((l) => l.startsWith('[CONTESTED] human:ana decided (on the note "The opening is vague'));
    expect(lines[at]).toMatch(/: Name the scope in the first sentence\.$/);
    // Below the line the dismissed note stood under when it was raised.
    const raised = readFileSync(join(runDir, passes[0].document), 'utf8').split('\n');
    expect(lines[at - 1]).toBe(raised[raised.findIndex((l) => l.startsWith('[CONTESTED]')) - 1]);
    expect(verifyRun(runDir).problems).toEqual([]);
  });

  it('says there is nothing to decide on a run that raised no note', async () => {
    const dir = tempDir('bounce-decide-');
    const settled = await runCli(['refine', join(FIX, 'retry.md'), '--reviewer', 'mock', '--passes', '1', '--runs-dir', 'runs', '--json'], { cwd: dir });
    expect(settled.code, settled.stderr).toBe(0);
    const none = await runCli(['decide', 'latest', '--runs-dir', 'runs'], { cwd: dir });
    expect(none.code).toBe(0);
    expect(none.stderr).toMatch(/left no note to decide/);
  });
});
