import { lstatSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * The random part of a temporary name, made predictable: what an attacker who guessed it (or
 * a leftover of an earlier write under the same pid) would plant a file or a symlink at.
 */
const random = vi.hoisted(() => ({ queue: [] as string[] }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return { ...real, randomBytes: (n: number) => (random.queue.length ? Buffer.from(random.queue.shift()!, 'hex') : real.randomBytes(n)) };
});

/**
 * Writes as a filling disk makes them: at most `chunk` bytes a call (a short write), and from
 * call `failAt` on, ENOSPC. Off (null) by default.
 */
const disk = vi.hoisted(() => ({ chunk: null as number | null, failAt: Number.POSITIVE_INFINITY, calls: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const writeSync = ((fd: number, buffer: Uint8Array, offset?: number, length?: number) => {
    const from = offset ?? 0;
    const size = length ?? buffer.length - from;
    if (disk.chunk === null) return real.writeSync(fd, buffer, from, size);
    if (++disk.calls >= disk.failAt) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    return real.writeSync(fd, buffer, from, Math.min(size, disk.chunk));
  }) as typeof real.writeSync;
  return { ...real, writeSync, default: { ...real, writeSync } };
});

// A worker may have loaded src/atomic.js for an earlier file (isolate: false), bound to the real
// node:crypto and node:fs: load it afresh so it sees the mocks.
vi.resetModules();
const { siblingName, stageFile, writeFileAtomic } = await import('../src/atomic.js');

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bounce-atomic-')));
  random.queue = [];
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  Object.assign(disk, { chunk: null, failAt: Number.POSITIVE_INFINITY, calls: 0 });
});

/** The temporary name the next write of `path` takes when the random bytes are `hex`. */
const tmpNameFor = (path: string, hex: string): string => join(dirname(path), `.${basename(path)}.${process.pid}.${hex}.tmp`);

describe('temporary files of an atomic write', () => {
  it('are named .<name>.<pid>.<8 hex>.<tag>, beside the target', () => {
    expect(siblingName(join(root, 'run.json'), 'tmp')).toMatch(new RegExp(`^${root}/\\.run\\.json\\.${process.pid}\\.[0-9a-f]{8}\\.tmp$`));
  });

  it('never write through a symlink planted at the temporary name: its target is untouched and the write goes on under another name', () => {
    const target = join(root, 'run.json');
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    const planted = tmpNameFor(target, 'aaaaaaaa');
    symlinkSync(victim, planted);
    random.queue = ['aaaaaaaa', 'bbbbbbbb'];
    writeFileAtomic(target, '{"ok":true}\n');
    expect(readFileSync(target, 'utf8')).toBe('{"ok":true}\n');
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    // The planted link is not the writer's to remove; nothing else is left behind.
    expect(lstatSync(planted).isSymbolicLink()).toBe(true);
    expect(readdirSync(root).sort()).toEqual([basename(planted), 'run.json', 'victim.txt'].sort());
  });

  it('never open a file already at the temporary name', () => {
    const target = join(root, 'doc.md');
    const planted = tmpNameFor(target, 'cccccccc');
    writeFileSync(planted, 'someone else\n');
    random.queue = ['cccccccc'];
    writeFileAtomic(target, 'mine\n');
    expect(readFileSync(planted, 'utf8')).toBe('someone else\n');
    expect(readFileSync(target, 'utf8')).toBe('mine\n');
  });

  it('fail clearly (EEXIST), writing nothing, when every name tried is taken', () => {
    const target = join(root, 'run.json');
    writeFileSync(target, 'old\n');
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    symlinkSync(victim, tmpNameFor(target, 'dddddddd'));
    random.queue = Array.from({ length: 10 }, () => 'dddddddd');
    expect(() => stageFile(target, 'new\n')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(readFileSync(target, 'utf8')).toBe('old\n');
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
  });
});

describe('an atomic write on a disk that fills up', () => {
  it('writes every byte when each write takes only part of them', () => {
    const target = join(root, 'reply.txt');
    const text = 'x'.repeat(10_000);
    disk.chunk = 4096;
    writeFileAtomic(target, text);
    expect(readFileSync(target, 'utf8')).toBe(text);
    expect(disk.calls).toBe(3);
  });

  it('leaves the old file and no temporary one when the disk is full part way: never a file cut short under its name', () => {
    const target = join(root, 'reply.txt');
    writeFileSync(target, 'old\n');
    disk.chunk = 4096;
    disk.failAt = 2;
    expect(() => writeFileAtomic(target, 'y'.repeat(10_000))).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
    expect(readFileSync(target, 'utf8')).toBe('old\n');
    expect(readdirSync(root)).toEqual(['reply.txt']);
  });
});
