import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { BounceError, usageError } from '../src/errors.js';
import { PassThrough } from 'node:stream';
import { readBounded, readBoundedText, readSmallFile, readUserFile, readUserText, SMALL_FILE_MAX_BYTES } from '../src/text-input.js';
import { tempDir } from './support/cli.js';
import { usageErrorOf } from './support/errors.js';

let dir: string;
beforeAll(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'ten.txt'), '0123456789');
  writeFileSync(join(dir, 'big.txt'), 'x'.repeat(3 * 1_048_576 + 5));
  mkdirSync(join(dir, 'folder'));
  execFileSync('mkfifo', [join(dir, 'fifo')]);
});

describe('readUserFile', () => {
  it('reads a regular file whole, or at most one byte past the limit', () => {
    expect(readUserFile(join(dir, 'ten.txt'), 'ten.txt', 10, 'input')).toEqual({ bytes: Buffer.from('0123456789'), statSize: 10 });
    expect(readUserFile(join(dir, 'ten.txt'), 'ten.txt', 4, 'input').bytes.toString()).toBe('01234');
    // Past the first buffer, in pieces: still only limit + 1 bytes.
    const big = readUserFile(join(dir, 'big.txt'), 'big.txt', 2 * 1_048_576, 'input');
    expect(big.bytes.length).toBe(2 * 1_048_576 + 1);
    expect(big.statSize).toBe(3 * 1_048_576 + 5);
  });

  it('reads a file the file system gives no size (/proc) by reading it, and stops at the limit', () => {
    const status = readUserFile('/proc/self/status', 'status', 1_000_000, 'input');
    expect(status.statSize).toBe(0);
    expect(status.bytes.toString()).toMatch(/^Name:/);
    expect(readUserFile('/proc/self/status', 'status', 8, 'input').bytes).toHaveLength(9);
  });

  it('refuses a FIFO at once (no writer needed), a device and a folder, naming what each is', () => {
    const fifo = usageErrorOf(() => readUserFile(join(dir, 'fifo'), 'fifo', 100, 'input'));
    expect(fifo.message).toBe('fifo is a FIFO, not a regular file');
    expect(fifo.code).toBe('input');
    expect(usageErrorOf(() => readUserFile('/dev/zero', '/dev/zero', 100, 'usage')).message).toBe('/dev/zero is a character device, not a regular file');
    expect(usageErrorOf(() => readUserFile(join(dir, 'folder'), 'folder', 100, 'usage')).message).toBe('folder is a directory, not a regular file');
  });

  it('refuses a Unix socket by name (it cannot be opened at all)', async () => {
    const path = join(dir, 'sock.md');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      expect(usageErrorOf(() => readUserFile(path, 'sock.md', 100, 'usage')).message).toBe('sock.md is a socket, not a regular file');
      expect(usageErrorOf(() => readUserText(path, 'sock.md', 100, 'usage')).message).toBe('sock.md is a socket, not a regular file');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('names a missing or unreadable file, or says what the caller gives', () => {
    expect(usageErrorOf(() => readUserFile(join(dir, 'nope'), 'nope', 100, 'usage')).message).toBe('no such file: nope');
    expect(usageErrorOf(() => readUserFile('/proc/self/mem', 'mem', 100, 'usage')).message).toBe('cannot read mem (EIO)');
    const problems = { missing: () => usageError('the goal file is gone'), directory: () => usageError('a folder holds no goal') };
    expect(usageErrorOf(() => readUserFile(join(dir, 'nope'), 'nope', 100, 'usage', problems)).message).toBe('the goal file is gone');
    expect(usageErrorOf(() => readUserFile(join(dir, 'folder'), 'folder', 100, 'usage', problems)).message).toBe('a folder holds no goal');
  });
});

describe('readUserText', () => {
  const file = (name: string, content: string | Buffer): string => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  };

  it('gives the text of a regular file within the limit, a byte order mark and a U+FFFD written in it kept', () => {
    expect(readUserText(join(dir, 'ten.txt'), 'ten.txt', 10, 'usage')).toEqual({ text: '0123456789', statSize: 10 });
    const bom = file('bom.md', '\uFEFF# Caf\u00E9 \u2014 \u{1F600}\n');
    expect(readUserText(bom, 'bom.md', 100, 'usage')).toEqual({ text: '\uFEFF# Caf\u00E9 \u2014 \u{1F600}\n', statSize: 20 });
    const replacement = file('fffd.md', 'a \uFFFD b\n');
    expect(readUserText(replacement, 'fffd.md', 100, 'usage')).toEqual({ text: 'a \uFFFD b\n', statSize: 8 });
  });

  it('refuses invalid UTF-8 and NUL bytes as decodeText does, naming the file', () => {
    const invalid = file('latin1.md', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect(usageErrorOf(() => readUserText(invalid, 'latin1.md', 100, 'usage')).message).toBe('latin1.md is not valid UTF-8');
    // At the limit, its invalid bytes (each read as a 3-byte U+FFFD) do not make it look over the limit.
    expect(usageErrorOf(() => readUserText(invalid, 'latin1.md', 5, 'usage')).message).toBe('latin1.md is not valid UTF-8');
    const binary = file('nul.md', Buffer.from('a\u0000b'));
    expect(usageErrorOf(() => readUserText(binary, 'nul.md', 100, 'usage')).message).toBe('nul.md looks binary (it contains NUL bytes)');
  });

  it('says a file over the limit is over, by its size or by its UTF-8 length, reading at most one byte past the limit', () => {
    expect(readUserText(join(dir, 'ten.txt'), 'ten.txt', 9, 'usage')).toEqual({ over: true, statSize: 10 });
    expect(readUserText(join(dir, 'big.txt'), 'big.txt', 2 * 1_048_576, 'usage')).toEqual({ over: true, statSize: 3 * 1_048_576 + 5 });
  });

  it('reads a file the file system gives no size (/proc) within the limit, and leaves a device to the caller when asked', () => {
    const status = readUserText('/proc/self/status', 'status', 1_000_000, 'usage');
    expect('text' in status && status.text).toMatch(/^Name:/);
    expect(readUserText('/proc/self/status', 'status', 8, 'usage')).toEqual({ over: true, statSize: 0 });
    expect(readUserText('/dev/null', '/dev/null', 100, 'usage', { devices: 'left' })).toMatchObject({ device: true });
    expect(usageErrorOf(() => readUserText(join(dir, 'fifo'), 'fifo', 100, 'usage')).message).toBe('fifo is a FIFO, not a regular file');
  });
});

describe('readBounded', () => {
  it('reads a stream to its end, and stops one chunk past the limit', async () => {
    const whole = new PassThrough();
    whole.end('abc');
    expect((await readBounded(whole, 10)).toString()).toBe('abc');
    const endless = new PassThrough();
    endless.write('x'.repeat(8));
    endless.write('y'.repeat(8));
    expect((await readBounded(endless, 10)).length).toBe(16);
  });

  it('stops at once when its signal aborts, on a stream that never ends: an interrupted error (exit 130), the stream destroyed', async () => {
    const stream = new PassThrough();
    stream.write('# half a document');
    const controller = new AbortController();
    const read = readBounded(stream, 1000, controller.signal);
    setTimeout(() => controller.abort(), 50);
    const err = await read.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BounceError);
    expect(err).toMatchObject({ exitCode: 130, code: 'interrupted', message: 'interrupted while reading the document from stdin' });
    expect(stream.destroyed).toBe(true);
  });

  it('an aborted signal reads nothing', async () => {
    const stream = new PassThrough();
    stream.end('abc');
    await expect(readBounded(stream, 10, AbortSignal.abort())).rejects.toMatchObject({ code: 'interrupted' });
  });
});

describe('readBoundedText', () => {
  /** A stream that gives `chunks` one after another, then ends. */
  const piped = (...chunks: (string | Buffer)[]): PassThrough => {
    const stream = new PassThrough();
    for (const c of chunks) stream.write(c);
    stream.end();
    return stream;
  };
  const bytes = (s: string): Buffer => Buffer.from(s);

  it('decodes chunk by chunk, a character split between two chunks and a byte order mark kept', async () => {
    const e = bytes('caf\u00e9 \u{1F600}');
    expect(await readBoundedText(piped(bytes('\uFEFFa '), e.subarray(0, 4), e.subarray(4, 8), e.subarray(8)), 100, 'stdin')).toEqual({
      text: '\uFEFFa caf\u00e9 \u{1F600}',
    });
    expect(await readBoundedText(piped(), 100, 'stdin')).toEqual({ text: '' });
  });

  it('is over past the limit, before anything else is said of it', async () => {
    expect(await readBoundedText(piped('x'.repeat(8), 'y'.repeat(8)), 10, 'stdin')).toEqual({ over: true });
    expect(await readBoundedText(piped(Buffer.from([0xff]), 'y'.repeat(16)), 10, 'stdin')).toEqual({ over: true });
  });

  it('refuses NUL bytes anywhere, then bad UTF-8, with the errors of decodeText', async () => {
    const err = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => (e as BounceError).message,
      );
    expect(await err(readBoundedText(piped(Buffer.from([0x63, 0xe9, 0x0a]), 'ok'), 100, 'stdin'))).toBe('stdin is not valid UTF-8');
    expect(await err(readBoundedText(piped(Buffer.from([0x63, 0xe9]), 'ok', Buffer.from([0])), 100, 'stdin'))).toBe(
      'stdin looks binary (it contains NUL bytes)',
    );
    // A character cut off by the end of the stream.
    expect(await err(readBoundedText(piped(bytes('caf\u00e9').subarray(0, 4)), 100, 'stdin'))).toBe('stdin is not valid UTF-8');
  });

  it('stops at once when its signal aborts: an interrupted error', async () => {
    const stream = new PassThrough();
    stream.write('# half a document');
    const controller = new AbortController();
    const read = readBoundedText(stream, 1000, 'stdin', controller.signal);
    setTimeout(() => controller.abort(), 50);
    await expect(read).rejects.toMatchObject({ exitCode: 130, code: 'interrupted' });
    expect(stream.destroyed).toBe(true);
  });
});

describe('readSmallFile', () => {
  it('gives the text of a file up to SMALL_FILE_MAX_BYTES and refuses a longer one', () => {
    expect(readSmallFile(join(dir, 'ten.txt'), 'ten', 'config')).toBe('0123456789');
    expect(usageErrorOf(() => readSmallFile(join(dir, 'big.txt'), 'big', 'config')).message).toBe(`big is more than ${SMALL_FILE_MAX_BYTES} bytes`);
  });
});
