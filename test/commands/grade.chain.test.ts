/** A graded run's records stay bound: resume, fork and replay go on from a graded record, and audit passes after each. */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/audit/verify.js';
import { listRecordFiles, readRecord } from '../../src/store/dispatch-record.js';
import { cleanEnv, ROOT, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const EX = join(ROOT, 'examples');
const AGENTS = ['--reviewer', `mock:${EX}/mock-script.yaml`, '--composer', `mock:${EX}/mock-script.yaml`];
let dir: string;
beforeEach(() => {
  dir = tempDir('bounce-grade-chain-');
});

const bounce = (args: string[]) => runMain([...args], { cwd: dir, env: cleanEnv() });
const runDirOf = (id: string): string => join(dir, 'runs', id);

/** Grades every finding of the run `accepted`, through --from. */
async function gradeAll(id: string): Promise<void> {
  const list = await bounce(['grade', id, '--list', '--json', '--runs-dir', 'runs']);
  const ids: string[] = JSON.parse(list.stdout).findings.map((f: { id: string }) => f.id);
  expect(ids.length).toBeGreaterThan(0);
  writeFileSync(join(dir, 'v.yaml'), ids.map((i) => `${i}: accepted\n`).join(''));
  const r = await bounce(['grade', id, '--from', 'v.yaml', '--grader', 'ana', '--runs-dir', 'runs']);
  expect(r.code, r.stderr).toBe(0);
}

describe('a graded record in the chain', () => {
  it('resume goes on after a graded newest record: the next record names its anchor, and audit passes', async () => {
    // The budget stops the run after pass 1, so pass 1's record (the one with findings) is the newest.
    const first = await bounce(['refine', join(EX, 'rfc-draft.md'), ...AGENTS, '--runs-dir', 'runs', '--max-dispatches', '1', '--json']);
    expect(first.code).toBe(3);
    const id = JSON.parse(first.stdout).run_id;
    await gradeAll(id);
    expect(verifyRun(runDirOf(id)).problems).toEqual([]);
    const resumed = await bounce(['resume', id, '--runs-dir', 'runs', '--max-dispatches', '5', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(verifyRun(runDirOf(id)).problems).toEqual([]);
    const recs = listRecordFiles(runDirOf(id)).map((rel) => readRecord(join(runDirOf(id), rel)));
    expect(recs.filter((r) => r.outcome.grade !== null)).toHaveLength(1);
    expect(recs).toHaveLength(2);
    // The grading fields are the only ones a grade may change: an edit anywhere else in a graded record is still found.
    const rel = listRecordFiles(runDirOf(id)).find((r) => readRecord(join(runDirOf(id), r)).outcome.grade)!;
    const text = readFileSync(join(runDirOf(id), rel), 'utf8');
    writeFileSync(join(runDirOf(id), rel), text.replace('Cap it at 2', 'Cap it at 9'));
    expect(
      verifyRun(runDirOf(id))
        .problems.map((p) => p.message)
        .join('\n'),
    ).toMatch(/binding\.previous is not the sha256|record_sha256 anchors/);
  });

  it("a fork of a graded run, and a grade given after the fork, leave the fork's audit clean; a graded run replays", async () => {
    const r = await bounce(['refine', join(EX, 'rfc-draft.md'), ...AGENTS, '--runs-dir', 'runs', '--json']);
    expect(r.code).toBe(0);
    const id = JSON.parse(r.stdout).run_id;
    await gradeAll(id);
    const fork = await bounce(['fork', id, '--from-pass', '2', '--runs-dir', 'runs', '--json']);
    expect(fork.code, fork.stderr).toBe(0);
    const forkId = JSON.parse(fork.stdout).run_id;
    expect(verifyRun(runDirOf(forkId)).problems).toEqual([]);
    // Graded again after the fork: the fork links the record by its anchor, which grading leaves as it was.
    writeFileSync(join(dir, 'v.yaml'), readFileSync(join(dir, 'v.yaml'), 'utf8').replaceAll('accepted', 'rejected'));
    expect((await bounce(['grade', id, '--from', 'v.yaml', '--grader', 'bo', '--runs-dir', 'runs'])).code).toBe(0);
    expect(verifyRun(runDirOf(forkId)).problems).toEqual([]);
    expect(verifyRun(runDirOf(id)).problems).toEqual([]);
    const replay = await bounce(['replay', id, '--runs-dir', 'runs', '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.')).length).toBe(3);
  });
});
