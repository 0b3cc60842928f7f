import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isBounceError } from '../../src/errors.js';
import { listRecordFiles, readRecord, recordAnchor } from '../../src/store/dispatch-record.js';
import { GradeWriter } from '../../src/store/grade-writer.js';
import { sha256 } from '../../src/store/hash.js';
import { LOCK_FILE } from '../../src/store/lock.js';
import { tempDir } from '../support/cli.js';
import { type FakeRun, makeFakeRun } from '../support/fake-run.js';

let run: FakeRun;
let rel: string;
beforeEach(() => {
  run = makeFakeRun(join(tempDir('bounce-grade-writer-'), 'runs'));
  rel = listRecordFiles(run.dir).find((r) => readRecord(join(run.dir, r)).response?.findings.length)!;
});
let writer: GradeWriter | undefined;
afterEach(() => writer?.close());

const grading = (finding: string) => ({
  graded_at: '2030-01-01T00:00:00.000Z',
  grade: { grader: 'human:ana', verdicts: [{ finding, verdict: 'accepted' as const }], history: [] },
});
const usage = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    if (isBounceError(err) && err.exitCode === 2) return err.line;
    throw err;
  }
  throw new Error('no error');
};

describe('GradeWriter', () => {
  it('holds the run lock while open and changes only the grading fields; the anchor stays the ungraded bytes', () => {
    const before = readFileSync(join(run.dir, rel));
    const rec = readRecord(join(run.dir, rel));
    writer = GradeWriter.open(run.dir);
    expect(readFileSync(join(run.dir, LOCK_FILE), 'utf8')).toContain(`"pid":${process.pid}`);
    writer.write(rel, grading(rec.response!.findings[0]!.id));
    const after = readFileSync(join(run.dir, rel));
    expect(after.equals(before)).toBe(false);
    expect(readRecord(join(run.dir, rel))).toEqual({ ...rec, outcome: { ...rec.outcome, ...grading(rec.response!.findings[0]!.id) } });
    expect(recordAnchor(after)).toBe(sha256(before));
    expect(recordAnchor(before)).toBe(sha256(before));
    writer.close('graded');
    writer = undefined;
    expect(readFileSync(join(run.dir, 'run.log'), 'utf8')).toMatch(/ graded\n$/);
  });

  it('refuses a record it cannot write again as its run wrote it, and a run still running', () => {
    const text = readFileSync(join(run.dir, rel), 'utf8');
    // An older bounce left out a field this one fills with its default: the text does not come back the same.
    writeFileSync(join(run.dir, rel), text.replace(/\n {4}edit_format: whole/, ''));
    writer = GradeWriter.open(run.dir);
    const id = readRecord(join(run.dir, rel)).response!.findings[0]!.id;
    expect(usage(() => writer!.write(rel, grading(id)))).toMatch(/is not in the layout this bounce writes .*: it cannot be graded without breaking the chain/);
    writer.close();
    writer = undefined;
    const m = JSON.parse(readFileSync(join(run.dir, 'run.json'), 'utf8'));
    writeFileSync(join(run.dir, 'run.json'), JSON.stringify({ ...m, status: 'running' }));
    expect(usage(() => GradeWriter.open(run.dir))).toMatch(/has not ended \(its run\.json says running\)/);
  });
});
