import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertRunsDirWritable, dispatchStem, makeRunId, slugifyName } from '../../src/store/run-folder.js';
import { tempDir } from '../support/cli.js';
import { usageErrorOf } from '../support/errors.js';

describe('run ids and names', () => {
  it('a run id is the slug, the UTC time to the second and the last six of the ULID', () => {
    expect(makeRunId('docs/My RFC.md', new Date('2026-03-01T12:34:56.789Z'), '01JV00000000000000007QZK3M')).toBe('my-rfc-20260301-123456-7QZK3M');
  });

  it('a new id each time for the same name and second', () => {
    const now = new Date();
    expect(makeRunId('a.md', now)).not.toBe(makeRunId('a.md', now));
  });

  it('the slug: the base name in lower case, runs of other characters one dash, 40 at most, doc when nothing is left', () => {
    expect(slugifyName('/home/me/Release Plan (v2).md')).toBe('release-plan-v2');
    expect(slugifyName('C:\\docs\\notes.txt')).toBe('notes');
    expect(slugifyName('rfc.v2', false)).toBe('rfc-v2');
    expect(slugifyName('x'.repeat(50))).toHaveLength(40);
    expect(slugifyName('日本語.md')).toBe('doc');
  });

  it("a dispatch's artifact stem names the pass, role and agent, and the attempt when it is not the pass's first", () => {
    expect(dispatchStem(1, 'reviewer', 'claude', 'pass', 0)).toBe('pass-1-reviewer-claude');
    expect(dispatchStem(2, 'composer', 'mock', 'retry', 1)).toBe('pass-2-composer-mock.retry-1');
    expect(dispatchStem(2, 'composer', 'mock', 'repair', 2)).toBe('pass-2-composer-mock.repair-2');
  });
});

describe('assertRunsDirWritable', () => {
  it('accepts a folder that exists or whose nearest existing parent is a writable folder', () => {
    const dir = tempDir();
    expect(() => assertRunsDirWritable(dir)).not.toThrow();
    expect(() => assertRunsDirWritable(join(dir, 'not', 'yet'))).not.toThrow();
  });

  it('refuses a path under a file, as an input error naming --runs-dir', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'file'), '');
    const err = usageErrorOf(() => assertRunsDirWritable(join(dir, 'sub', 'file', 'runs')));
    expect(err.code).toBe('input');
    expect(err.line).toContain('runs dir is not writable');
    expect(err.line).toContain('--runs-dir');
  });
});
