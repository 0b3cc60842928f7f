import { execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeOutput } from '../../src/engine/output.js';
import { sha256 } from '../../src/store/hash.js';
import { usageErrorOf } from '../support/errors.js';

let root: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bounce-units-')));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('writeOutput', () => {
  it('file: a device is written to, never replaced by a regular file', () => {
    const before = statSync('/dev/null');
    expect(writeOutput({ kind: 'file', path: '/dev/null' }, 'doc\n', 'x')).toEqual({ path: '/dev/null', sha256: sha256('doc\n') });
    const after = statSync('/dev/null');
    expect(after.isCharacterDevice()).toBe(true);
    expect(after.ino).toBe(before.ino);
  });

  it('file: a FIFO is written to and stays a FIFO', async () => {
    const fifo = join(root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    // The reader is another process: this one blocks in the synchronous write until a reader opens the FIFO.
    const reader = spawn('cat', [fifo]);
    let got = '';
    reader.stdout.on('data', (d: Buffer) => (got += d.toString('utf8')));
    const closed = new Promise((res) => reader.on('close', res));
    writeOutput({ kind: 'file', path: fifo }, 'through the pipe\n', 'x');
    await closed;
    expect(got).toBe('through the pipe\n');
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it('file: through a symlink its target is written and the link kept; an existing mode is kept', () => {
    const target = join(root, 'real.md');
    writeFileSync(target, 'old\n', { mode: 0o640 });
    chmodSync(target, 0o640);
    symlinkSync(target, join(root, 'link.md'));
    writeOutput({ kind: 'file', path: join(root, 'link.md') }, 'new\n', 'x');
    expect(lstatSync(join(root, 'link.md')).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('new\n');
    expect(statSync(target).mode & 0o777).toBe(0o640);
  });

  it('file: a new file gets the umask, not a private mode', () => {
    const path = join(root, 'fresh.md');
    const old = process.umask(0o022);
    try {
      writeOutput({ kind: 'file', path }, 'x\n', 'x');
    } finally {
      process.umask(old);
    }
    expect(statSync(path).mode & 0o777).toBe(0o644);
  });

  it('in-place: an edit that lands just before the rename is put back, and the write is refused', () => {
    const path = join(root, 'doc.md');
    writeFileSync(path, 'original\n');
    const err = usageErrorOf(() =>
      writeOutput({ kind: 'in-place', path }, 'refined\n', sha256('original\n'), { beforeRename: () => appendFileSync(path, 'an edit\n') }),
    );
    expect(err.message).toContain('changed since the run began');
    expect(readFileSync(path, 'utf8')).toBe('original\nan edit\n');
    expect(readdirSync(root)).toEqual(['doc.md']);
  });

  it('in-place: an edit while the document is staged is seen before anything is replaced', () => {
    const path = join(root, 'doc.md');
    writeFileSync(path, 'original\n');
    let calls = 0;
    const r = writeOutput({ kind: 'in-place', path }, 'refined\n', sha256('original\n'), { beforeRename: () => void calls++ });
    expect(calls).toBe(1);
    expect(r.path).toBe(path);
    expect(readFileSync(path, 'utf8')).toBe('refined\n');
    expect(readdirSync(root)).toEqual(['doc.md']);
  });

  it('run: writes nothing and returns the sha', () => {
    expect(writeOutput({ kind: 'run' }, 'doc\n', 'x')).toEqual({ path: null, sha256: sha256('doc\n') });
    expect(readdirSync(root)).toEqual([]);
  });

  it('stdout: writes nothing (the command prints the document) and returns the sha', () => {
    expect(writeOutput({ kind: 'stdout' }, 'doc\n', 'x')).toEqual({ path: null, sha256: sha256('doc\n') });
    expect(readdirSync(root)).toEqual([]);
  });

  it('in-place: a file that already holds the converged document is left as it is (a crash came after that write)', () => {
    const path = join(root, 'doc.md');
    writeFileSync(path, 'refined\n');
    expect(writeOutput({ kind: 'in-place', path }, 'refined\n', sha256('original\n'))).toEqual({ path, sha256: sha256('refined\n') });
    expect(readFileSync(path, 'utf8')).toBe('refined\n');
  });

  it('file: writes atomically (no temp file left), replacing an existing file', () => {
    const path = join(root, 'out.md');
    writeFileSync(path, 'old\n');
    expect(writeOutput({ kind: 'file', path }, 'new ✓\n', 'x')).toEqual({ path, sha256: sha256('new ✓\n') });
    expect(readFileSync(path, 'utf8')).toBe('new ✓\n');
    expect(readdirSync(root)).toEqual(['out.md']);
  });

  it('in-place: overwrites the input when it is unchanged since the run began', () => {
    const path = join(root, 'doc.md');
    writeFileSync(path, 'original\n');
    const result = writeOutput({ kind: 'in-place', path }, 'refined\n', sha256('original\n'));
    expect(result).toEqual({ path, sha256: sha256('refined\n') });
    expect(readFileSync(path, 'utf8')).toBe('refined\n');
    expect(readdirSync(root)).toEqual(['doc.md']);
  });

  it('in-place: refused when the input changed, and the file is left untouched', () => {
    const path = join(root, 'doc.md');
    writeFileSync(path, 'edited by someone else\n');
    const kept = join(root, 'runs', 'doc-1', 'final.md');
    const err = usageErrorOf(() => writeOutput({ kind: 'in-place', path }, 'refined\n', sha256('original\n'), { keptAt: kept }));
    expect(err.code).toBe('input');
    expect(err.line).toBe(`${path} changed since the run began, so it was not overwritten: the converged document is ${kept}; merge it by hand`);
    expect(readFileSync(path, 'utf8')).toBe('edited by someone else\n');
    expect(readdirSync(root)).toEqual(['doc.md']);
  });

  it('in-place: refused when the input was deleted meanwhile, and nothing is created', () => {
    const path = join(root, 'doc.md');
    usageErrorOf(() => writeOutput({ kind: 'in-place', path }, 'refined\n', sha256('original\n')));
    expect(readdirSync(root)).toEqual([]);
  });

  it('in-place compares bytes: a BOM or CRLF difference is a change', () => {
    const path = join(root, 'doc.md');
    writeFileSync(path, 'a\r\nb\r\n');
    usageErrorOf(() => writeOutput({ kind: 'in-place', path }, 'x', sha256('a\nb\n')));
    expect(readFileSync(path, 'utf8')).toBe('a\r\nb\r\n');
  });
});
