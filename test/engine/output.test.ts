import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertOutputWritable, probeFolder } from '../../src/engine/output.js';
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
