import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BounceError } from '../../src/errors.js';
import { readInput } from '../../src/request/input.js';
import { sha256 } from '../../src/store/hash.js';
import { fakeIo } from '../support/fake-io.js';

let root: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bounce-units-')));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

async function rejectionOf(p: Promise<unknown>): Promise<BounceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BounceError);
  expect((err as BounceError).exitCode).toBe(2);
  return err as BounceError;
}

describe('readInput', () => {
  it('a file: text, absolute path, display as given, bytes, sha256 of the bytes', async () => {
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'rfc.md'), '# RFC\n\nText ✓\n');
    const input = await readInput('docs/rfc.md', fakeIo(root), 1000);
    expect(input).toEqual({
      path: join(root, 'docs', 'rfc.md'),
      display: 'docs/rfc.md',
      text: '# RFC\n\nText ✓\n',
      bytes: Buffer.byteLength('# RFC\n\nText ✓\n'),
      sha256: sha256('# RFC\n\nText ✓\n'),
      ext: 'md',
      syntax: 'markdown',
    });
  });

  it('stdin (-): read whole, display "stdin", no path, ext md, markdown', async () => {
    const input = await readInput('-', fakeIo(root, { stdin: '# From a pipe\n' }), 1000);
    expect(input).toEqual({
      path: null,
      display: 'stdin',
      text: '# From a pipe\n',
      bytes: 14,
      sha256: sha256('# From a pipe\n'),
      ext: 'md',
      syntax: 'markdown',
    });
  });

  it('stdin that is a terminal is refused with a message mentioning the terminal', async () => {
    const err = await rejectionOf(readInput('-', fakeIo(root, { stdinTTY: true }), 1000));
    expect(err.message).toContain('terminal');
    expect(err.code).toBe('input');
  });

  it('keeps a BOM in the text (and in the sha)', async () => {
    const bytes = Buffer.from('\uFEFF# Title\n', 'utf8');
    writeFileSync(join(root, 'bom.md'), bytes);
    const input = await readInput('bom.md', fakeIo(root), 1000);
    expect(input.text).toBe('\uFEFF# Title\n');
    expect(input.bytes).toBe(bytes.length);
    expect(input.sha256).toBe(sha256(bytes));
  });

  it('keeps a BOM read from stdin', async () => {
    expect((await readInput('-', fakeIo(root, { stdin: Buffer.from('\uFEFFhi\n', 'utf8') }), 1000)).text).toBe('\uFEFFhi\n');
  });

  it('keeps CRLF line endings', async () => {
    writeFileSync(join(root, 'crlf.md'), 'a\r\nb\r\n');
    expect((await readInput('crlf.md', fakeIo(root), 1000)).text).toBe('a\r\nb\r\n');
  });

  it('ext comes from the path, lower-cased; no extension gives txt', async () => {
    const ext = async (name: string): Promise<[string, string]> => {
      writeFileSync(join(root, name), 'text\n');
      const input = await readInput(name, fakeIo(root), 1000);
      return [input.ext, input.syntax];
    };
    expect(await ext('UPPER.MD')).toEqual(['md', 'markdown']);
    expect(await ext('notes.markdown')).toEqual(['markdown', 'markdown']);
    expect(await ext('plain.txt')).toEqual(['txt', 'plain']);
    expect(await ext('Makefile')).toEqual(['txt', 'plain']);
    expect(await ext('page.rst')).toEqual(['rst', 'plain']);
  });

  it('a missing file is refused', async () => {
    expect((await rejectionOf(readInput('nope.md', fakeIo(root), 1000))).message).toBe('no such file: nope.md');
  });

  it('a directory is refused', async () => {
    mkdirSync(join(root, 'docs'));
    expect((await rejectionOf(readInput('docs', fakeIo(root), 1000))).message).toBe('docs is a directory');
  });

  it('an empty or whitespace-only document is refused, also with only a BOM', async () => {
    writeFileSync(join(root, 'empty.md'), '');
    writeFileSync(join(root, 'blank.md'), ' \n\t\n');
    writeFileSync(join(root, 'bom.md'), '\uFEFF\n');
    for (const name of ['empty.md', 'blank.md', 'bom.md']) expect((await rejectionOf(readInput(name, fakeIo(root), 1000))).message).toBe(`${name} is empty`);
    expect((await rejectionOf(readInput('-', fakeIo(root, { stdin: '' }), 1000))).message).toBe('stdin is empty');
  });

  it('a document over max_bytes is refused, from a file or stdin', async () => {
    writeFileSync(join(root, 'big.md'), 'x'.repeat(11));
    expect((await rejectionOf(readInput('big.md', fakeIo(root), 10))).message).toBe('big.md is 11 bytes, over the 10-byte limit');
    expect((await rejectionOf(readInput('-', fakeIo(root, { stdin: 'x'.repeat(11) }), 10))).message).toBe('stdin is 11 bytes, over the 10-byte limit');
  });

  it('exactly max_bytes is accepted', async () => {
    writeFileSync(join(root, 'ten.md'), 'x'.repeat(10));
    expect((await readInput('ten.md', fakeIo(root), 10)).bytes).toBe(10);
  });

  it('binary (NUL bytes) and invalid UTF-8 are refused', async () => {
    writeFileSync(join(root, 'bin.md'), Buffer.from([0x61, 0x00, 0x62]));
    writeFileSync(join(root, 'latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect((await rejectionOf(readInput('bin.md', fakeIo(root), 1000))).message).toContain('binary');
    expect((await rejectionOf(readInput('latin1.md', fakeIo(root), 1000))).message).toBe('latin1.md is not valid UTF-8');
  });
});
