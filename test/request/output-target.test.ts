import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertOutputWritable, outputTarget, probeFolder } from '../../src/request/output-target.js';
import { usageErrorOf } from '../support/errors.js';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bounce-output-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('assertOutputWritable', () => {
  it('asks about the folder the file would be made in, and names the cause from its error code', () => {
    const asked: string[] = [];
    const err = usageErrorOf(() =>
      assertOutputWritable({ kind: 'file', path: join(root, 'out.md') }, (d) => {
        asked.push(d);
        return 'EROFS';
      }),
    );
    expect(asked).toEqual([root]);
    expect(err.exitCode).toBe(2);
    expect(err.line).toBe(
      `--out ${join(root, 'out.md')} cannot be written: the file system is read-only (EROFS) in ${root}: make that folder writable, or pick another path with --out`,
    );
  });

  it('through a symlink, the folder of its target; --in-place names its own fix', () => {
    mkdirSync(join(root, 'real'));
    writeFileSync(join(root, 'real', 'doc.md'), '# Doc\n');
    symlinkSync(join(root, 'real', 'doc.md'), join(root, 'link.md'));
    const asked: string[] = [];
    const err = usageErrorOf(() =>
      assertOutputWritable({ kind: 'in-place', path: join(root, 'link.md') }, (d) => {
        asked.push(d);
        return 'EACCES';
      }),
    );
    expect(asked).toEqual([join(root, 'real')]);
    expect(err.line).toMatch(/^--in-place .*link\.md cannot be written: permission denied \(EACCES\) in .*real: .*--out FILE$/);
  });

  it('a writable folder passes, and the probe leaves nothing behind', () => {
    expect(() => assertOutputWritable({ kind: 'file', path: join(root, 'out.md') })).not.toThrow();
    expect(readdirSync(root)).toEqual([]);
    expect(probeFolder(join(root, 'missing'))).toBe('ENOENT');
  });

  it('a device is written, never replaced: its own write access counts, not its folder', () => {
    expect(() => assertOutputWritable({ kind: 'file', path: '/dev/null' }, () => 'EACCES')).not.toThrow();
  });

  it('the run folder and stdout need no check', () => {
    expect(() => assertOutputWritable({ kind: 'run' }, () => 'EACCES')).not.toThrow();
    expect(() => assertOutputWritable({ kind: 'stdout' }, () => 'EACCES')).not.toThrow();
  });
});

describe('outputTarget', () => {
  let input: string;
  beforeEach(() => {
    input = join(root, 'doc.md');
    writeFileSync(input, '# Doc\n');
  });

  it('no flag: the run folder', () => {
    expect(outputTarget({}, input, root)).toEqual({ kind: 'run' });
    expect(outputTarget({ json: true }, null, root)).toEqual({ kind: 'run' });
  });

  it('--out -: stdout', () => {
    expect(outputTarget({ out: '-' }, input, root)).toEqual({ kind: 'stdout' });
  });

  it('--out FILE: a file, resolved against cwd; it may not exist yet', () => {
    mkdirSync(join(root, 'out'));
    expect(outputTarget({ out: 'out/refined.md' }, input, root)).toEqual({ kind: 'file', path: join(root, 'out', 'refined.md') });
    expect(outputTarget({ out: 'x.md', json: true }, null, root)).toEqual({ kind: 'file', path: join(root, 'x.md') });
  });

  it('--in-place: the input path', () => {
    expect(outputTarget({ inPlace: true }, input, root)).toEqual({ kind: 'in-place', path: input });
  });

  it('refuses --in-place with stdin', () => {
    const err = usageErrorOf(() => outputTarget({ inPlace: true }, null, root));
    expect(err.message).toContain('stdin');
  });

  it('refuses --in-place with --out (a file or -)', () => {
    expect(usageErrorOf(() => outputTarget({ inPlace: true, out: 'x.md' }, input, root)).message).toContain('--in-place and --out');
    expect(usageErrorOf(() => outputTarget({ inPlace: true, out: '-' }, input, root)).message).toContain('--in-place and --out');
  });

  it('refuses --out - with --json', () => {
    expect(usageErrorOf(() => outputTarget({ out: '-', json: true }, input, root)).message).toContain('--json');
  });

  it('refuses --out that is the input, also spelled with ./ or ..', () => {
    mkdirSync(join(root, 'sub'));
    for (const out of ['doc.md', './doc.md', 'sub/../doc.md', input]) {
      const err = usageErrorOf(() => outputTarget({ out }, input, root));
      expect(err.message).toBe(`--out ${out} is the input document`);
      expect(err.line).toContain('--in-place');
    }
  });

  it('refuses --out that is a symlink to the input', () => {
    symlinkSync(input, join(root, 'link.md'));
    expect(usageErrorOf(() => outputTarget({ out: 'link.md' }, input, root)).message).toContain('is the input document');
  });

  it('refuses --out naming the real file when the input was given through a symlink', () => {
    symlinkSync(input, join(root, 'link.md'));
    expect(usageErrorOf(() => outputTarget({ out: 'doc.md' }, join(root, 'link.md'), root)).message).toContain('is the input document');
  });

  it('refuses --out in a folder that does not exist', () => {
    const err = usageErrorOf(() => outputTarget({ out: 'nope/x.md' }, input, root));
    expect(err.message).toBe('the folder of --out nope/x.md does not exist');
  });

  it('refuses --out naming an existing folder, before any agent runs (writing there later is EISDIR, an internal error)', () => {
    mkdirSync(join(root, 'outdir'));
    const err = usageErrorOf(() => outputTarget({ out: 'outdir' }, input, root));
    expect(err.message).toContain('outdir');
  });

  it('refuses --out whose folder is a regular file (writing there later is ENOTDIR, an internal error)', () => {
    writeFileSync(join(root, 'plain.txt'), 'x');
    const err = usageErrorOf(() => outputTarget({ out: 'plain.txt/x.md' }, input, root));
    expect(err.message).toContain('plain.txt/x.md');
  });
});
