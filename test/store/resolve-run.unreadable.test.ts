import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readForResume } from '../../src/request/resume-request.js';
import { RunRecorder } from '../../src/store/recorder.js';
import { manifestProblem } from '../../src/store/resolve-run.js';
import { usageErrorOf } from '../support/errors.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bounce-unreadable-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Why run.json holding `text` cannot be read, as runs, show and resume say it. */
const problem = (text: string): string => {
  writeFileSync(join(dir, 'run.json'), text);
  let err: unknown;
  try {
    RunRecorder.read(dir);
  } catch (e) {
    err = e;
  }
  return manifestProblem(dir, err);
};

describe('a run.json that cannot be read', () => {
  it('is said in one line that names the problem, whatever the parser quotes of the file', () => {
    expect(problem('garbage\nmore\n')).toBe('run.json is not JSON: Unexpected token \'g\', "garbage more " is not valid JSON');
    expect(problem('{}\n')).toMatch(/^run\.json does not match its schema: schema_version: /);
    for (const text of ['garbage\nmore\n', '{}\n', '{"schema_version": 1,\n"x": \n']) expect(problem(text)).not.toMatch(/\n/);
  });

  it('is refused by resume with that line (exit 2)', () => {
    writeFileSync(join(dir, 'run.json'), '{}\n');
    const err = usageErrorOf(() => readForResume(dir));
    expect(err.message).toMatch(new RegExp(`^${dir}: run\\.json does not match its schema: schema_version: `));
    expect(err.message).not.toMatch(/\n/);
  });
});
