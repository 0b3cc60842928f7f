import { execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  lstatSync,
  mkdirSync,
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
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ResolvedAgent } from '../../src/adapters/registry.js';
import { intFlag, secondsFlag } from '../../src/request/refine-request.js';
import { BounceError } from '../../src/errors.js';
import type { Io } from '../../src/io.js';
import { backoffMs, sleep } from '../../src/engine/backoff.js';
import { readInput } from '../../src/request/input.js';
import { displayPath, outputTarget, writeOutput } from '../../src/engine/output.js';
import { roleForPass, type RunPlan } from '../../src/engine/plan.js';
import { policyOf } from '../../src/engine/policy.js';
import { DEFAULT_OUTPUT_TOKENS, assertFitsBudget, estimateTokens, outputBudget } from '../../src/preflight/preflight.js';
import { createProgress, fitText } from '../../src/ui/progress.js';
import { templatesHash, type Templates } from '../../src/engine/prompt.js';
import { sha256 } from '../../src/store/hash.js';
import { usageErrorOf } from '../support/errors.js';

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

interface FakeIo extends Io {
  err(): string;
  out(): string;
}

/** An Io with string sinks; `stdin` is the piped text, or a terminal when `stdinTTY`. */
function fakeIo(opts: { stdin?: string | Buffer; stdinTTY?: boolean; stderrTTY?: boolean; env?: NodeJS.ProcessEnv } = {}): FakeIo {
  let out = '';
  let err = '';
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (opts.stdinTTY) stdin.isTTY = true;
  else stdin.end(opts.stdin ?? '');
  return {
    cwd: root,
    env: opts.env ?? {},
    stdout: { write: (s: string) => (out += s), isTTY: false },
    stderr: { write: (s: string) => (err += s), isTTY: opts.stderrTTY ?? false },
    stdin,
    signal: new AbortController().signal,
    out: () => out,
    err: () => err,
  };
}

function agent(adapter: string, options: ResolvedAgent['options'] = {}, spec = adapter): ResolvedAgent {
  return { spec, slug: spec, adapter, provider: adapter, command: 'node', args: [], options, timeoutS: undefined, evidence: 'live' };
}

describe('backoffMs', () => {
  it('doubles from the base: attempt 1, 2, 3', () => {
    expect([1, 2, 3, 4].map((a) => backoffMs(a, undefined, 1000))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('honours a longer retry-after', () => {
    expect(backoffMs(1, 5000, 1000)).toBe(5000);
    expect(backoffMs(2, 2500, 1000)).toBe(2500);
  });

  it('a shorter retry-after does not shorten the exponential delay', () => {
    expect(backoffMs(3, 100, 1000)).toBe(4000);
    expect(backoffMs(1, 0, 1000)).toBe(1000);
  });

  it('is capped (default 60 s), retry-after included', () => {
    expect(backoffMs(20, undefined, 1000)).toBe(60_000);
    expect(backoffMs(1, 120_000, 1000)).toBe(60_000);
    expect(backoffMs(5, undefined, 1000, 10_000)).toBe(10_000);
    expect(backoffMs(1, 30_000, 1000, 10_000)).toBe(10_000);
  });
});

describe('sleep', () => {
  it('resolves true when the time has passed', async () => {
    expect(await sleep(5)).toBe(true);
    expect(await sleep(5, new AbortController().signal)).toBe(true);
  });

  it('resolves false at once when the signal is already aborted', async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    // A day-long sleep that resolved on time would hang the test: it must end early.
    expect(await sleep(86_400_000, ctrl.signal)).toBe(false);
  });

  it('resolves false when the signal aborts during the sleep', async () => {
    const ctrl = new AbortController();
    const p = sleep(86_400_000, ctrl.signal);
    ctrl.abort();
    expect(await p).toBe(false);
  });
});

describe('roleForPass', () => {
  it('reviewer on odd passes, composer on even ones', () => {
    expect([1, 2, 3, 4, 5, 10].map(roleForPass)).toEqual(['reviewer', 'composer', 'reviewer', 'composer', 'reviewer', 'composer']);
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

describe('displayPath', () => {
  it('relative inside cwd, absolute outside it', () => {
    expect(displayPath('/p/docs/a.md', '/p')).toBe('docs/a.md');
    expect(displayPath('/q/a.md', '/p')).toBe('/q/a.md');
    expect(displayPath('/p', '/p')).toBe('/p');
  });
});

describe('readInput', () => {
  it('a file: text, absolute path, display as given, bytes, sha256 of the bytes', async () => {
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'rfc.md'), '# RFC\n\nText ✓\n');
    const input = await readInput('docs/rfc.md', fakeIo(), 1000);
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
    const input = await readInput('-', fakeIo({ stdin: '# From a pipe\n' }), 1000);
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
    const err = await rejectionOf(readInput('-', fakeIo({ stdinTTY: true }), 1000));
    expect(err.message).toContain('terminal');
    expect(err.code).toBe('input');
  });

  it('keeps a BOM in the text (and in the sha)', async () => {
    const bytes = Buffer.from('\uFEFF# Title\n', 'utf8');
    writeFileSync(join(root, 'bom.md'), bytes);
    const input = await readInput('bom.md', fakeIo(), 1000);
    expect(input.text).toBe('\uFEFF# Title\n');
    expect(input.bytes).toBe(bytes.length);
    expect(input.sha256).toBe(sha256(bytes));
  });

  it('keeps a BOM read from stdin', async () => {
    expect((await readInput('-', fakeIo({ stdin: Buffer.from('\uFEFFhi\n', 'utf8') }), 1000)).text).toBe('\uFEFFhi\n');
  });

  it('keeps CRLF line endings', async () => {
    writeFileSync(join(root, 'crlf.md'), 'a\r\nb\r\n');
    expect((await readInput('crlf.md', fakeIo(), 1000)).text).toBe('a\r\nb\r\n');
  });

  it('ext comes from the path, lower-cased; no extension gives txt', async () => {
    const ext = async (name: string): Promise<[string, string]> => {
      writeFileSync(join(root, name), 'text\n');
      const input = await readInput(name, fakeIo(), 1000);
      return [input.ext, input.syntax];
    };
    expect(await ext('UPPER.MD')).toEqual(['md', 'markdown']);
    expect(await ext('notes.markdown')).toEqual(['markdown', 'markdown']);
    expect(await ext('plain.txt')).toEqual(['txt', 'plain']);
    expect(await ext('Makefile')).toEqual(['txt', 'plain']);
    expect(await ext('page.rst')).toEqual(['rst', 'plain']);
  });

  it('a missing file is refused', async () => {
    expect((await rejectionOf(readInput('nope.md', fakeIo(), 1000))).message).toBe('no such file: nope.md');
  });

  it('a directory is refused', async () => {
    mkdirSync(join(root, 'docs'));
    expect((await rejectionOf(readInput('docs', fakeIo(), 1000))).message).toBe('docs is a directory');
  });

  it('an empty or whitespace-only document is refused, also with only a BOM', async () => {
    writeFileSync(join(root, 'empty.md'), '');
    writeFileSync(join(root, 'blank.md'), ' \n\t\n');
    writeFileSync(join(root, 'bom.md'), '\uFEFF\n');
    for (const name of ['empty.md', 'blank.md', 'bom.md']) expect((await rejectionOf(readInput(name, fakeIo(), 1000))).message).toBe(`${name} is empty`);
    expect((await rejectionOf(readInput('-', fakeIo({ stdin: '' }), 1000))).message).toBe('stdin is empty');
  });

  it('a document over max_bytes is refused, from a file or stdin', async () => {
    writeFileSync(join(root, 'big.md'), 'x'.repeat(11));
    expect((await rejectionOf(readInput('big.md', fakeIo(), 10))).message).toBe('big.md is 11 bytes, over the 10-byte limit');
    expect((await rejectionOf(readInput('-', fakeIo({ stdin: 'x'.repeat(11) }), 10))).message).toBe('stdin is 11 bytes, over the 10-byte limit');
  });

  it('exactly max_bytes is accepted', async () => {
    writeFileSync(join(root, 'ten.md'), 'x'.repeat(10));
    expect((await readInput('ten.md', fakeIo(), 10)).bytes).toBe(10);
  });

  it('binary (NUL bytes) and invalid UTF-8 are refused', async () => {
    writeFileSync(join(root, 'bin.md'), Buffer.from([0x61, 0x00, 0x62]));
    writeFileSync(join(root, 'latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect((await rejectionOf(readInput('bin.md', fakeIo(), 1000))).message).toContain('binary');
    expect((await rejectionOf(readInput('latin1.md', fakeIo(), 1000))).message).toBe('latin1.md is not valid UTF-8');
  });
});

describe('intFlag', () => {
  it('undefined gives the fallback', () => {
    expect(intFlag('--passes', undefined, 2, 1, 10)).toBe(2);
  });

  it('accepts whole numbers in range, as text or numbers, with surrounding spaces', () => {
    expect(intFlag('--passes', '1', 2, 1, 10)).toBe(1);
    expect(intFlag('--passes', '10', 2, 1, 10)).toBe(10);
    expect(intFlag('--passes', ' 3 ', 2, 1, 10)).toBe(3);
    expect(intFlag('--passes', 4, 2, 1, 10)).toBe(4);
    expect(intFlag('--passes', '007', 2, 1, 10)).toBe(7);
    expect(intFlag('--max-repairs', '0', 1, 0, 5)).toBe(0);
  });

  for (const bad of ['0', '-1', '2.5', 'abc', '1e3', '', '+3', '0x3', '3 4']) {
    it(`refuses ${JSON.stringify(bad)} with a usage error quoting it`, () => {
      const err = usageErrorOf(() => intFlag('--passes', bad, 2, 1, 10));
      expect(err.message).toBe(`--passes must be a whole number from 1 to 10, not "${bad.trim()}"`);
      expect(err.code).toBe('usage');
    });
  }

  it('over the maximum: --passes suggests raising max_passes', () => {
    const err = usageErrorOf(() => intFlag('--passes', '11', 2, 1, 10));
    expect(err.message).toBe('--passes must be a whole number from 1 to 10, not "11"');
    expect(err.hint).toBe('pass e.g. --passes 2 (raise max_passes in bounce.config.yaml for more)');
  });

  it('over the largest possible max_passes (100) there is nothing to raise', () => {
    expect(usageErrorOf(() => intFlag('--passes', '101', 2, 1, 100)).hint).toBe('pass e.g. --passes 2');
  });

  it('other flags suggest their default', () => {
    expect(usageErrorOf(() => intFlag('--max-repairs', '6', 1, 0, 5)).hint).toBe('pass e.g. --max-repairs 1');
  });

  it('numbers beyond the safe range are refused', () => {
    usageErrorOf(() => intFlag('--passes', '99999999999999999999', 2, 1, 10));
    usageErrorOf(() => intFlag('--passes', Number.NaN, 2, 1, 10));
  });
});
describe('secondsFlag (--timeout)', () => {
  it('takes seconds from 1 to 2147483, decimals included', () => {
    expect(secondsFlag(undefined)).toBeUndefined();
    expect(secondsFlag('1')).toBe(1);
    expect(secondsFlag(' 90.5 ')).toBe(90.5);
    expect(secondsFlag(600)).toBe(600);
    expect(secondsFlag('2147483')).toBe(2147483);
  });

  it('anything a timer cannot hold is a usage error naming the range', () => {
    for (const bad of ['0', '0.0001', '0.5', '-1', '2147484', '1e300', 'Infinity', 'NaN', 'abc', '', '10s']) {
      const err = usageErrorOf(() => secondsFlag(bad));
      expect(err.line, bad).toBe(`--timeout must be a positive number of seconds, from 1 to 2147483, not ${JSON.stringify(bad)}: pass e.g. --timeout 600`);
    }
  });
});

describe('estimateTokens, outputBudget, assertFitsBudget', () => {
  it('estimates about four characters a token, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('x'.repeat(4000))).toBe(1000);
  });

  it('the budget: max_output_tokens, else the adapter default (claude 32000, anthropic 16000), else none', () => {
    expect(outputBudget(agent('claude'))).toBe(32_000);
    expect(outputBudget(agent('anthropic'))).toBe(16_000);
    for (const a of ['codex', 'openai', 'mock', 'cmd', 'something-else']) expect(outputBudget(agent(a))).toBeNull();
    expect(outputBudget(agent('claude', { max_output_tokens: 100 }))).toBe(100);
    expect(outputBudget(agent('openai', { max_output_tokens: 8192 }))).toBe(8192);
    expect(DEFAULT_OUTPUT_TOKENS.claude).toBe(32_000);
  });

  it('no budget: any size passes', () => {
    expect(() => assertFitsBudget('x'.repeat(10_000_000), 'reviewer', agent('openai'))).not.toThrow();
  });

  it('needs the estimate plus 20%: exactly at the budget passes, one token over is refused', () => {
    const a = agent('openai', { max_output_tokens: 100 }, 'openai:small');
    // 83 tokens * 1.2 = 99.6 -> 100: fits.
    expect(() => assertFitsBudget('x'.repeat(332), 'reviewer', a)).not.toThrow();
    // 84 tokens * 1.2 = 100.8 -> 101: does not fit.
    const err = usageErrorOf(() => assertFitsBudget('x'.repeat(336), 'composer', a));
    expect(err.message).toBe("the document (about 84 tokens) will not fit in the composer openai:small's output budget of 100 tokens");
    expect(err.code).toBe('input');
    expect(err.line).toContain('max_output_tokens');
  });

  it('the claude default refuses a document of about 27 000 tokens', () => {
    expect(() => assertFitsBudget('x'.repeat(4 * 26_000), 'reviewer', agent('claude'))).not.toThrow();
    usageErrorOf(() => assertFitsBudget('x'.repeat(4 * 27_000), 'reviewer', agent('claude')));
  });
});

describe('policyOf', () => {
  const templates: Templates = {
    protocol: 'P {{document}}',
    reviewer: 'R',
    composer: 'C',
    final: 'F',
    repair: 'X',
    json: 'J',
    yaml: 'Y',
    whole: 'W',
    edits: 'E',
  };

  function plan(over: Partial<RunPlan> = {}): RunPlan {
    const mock = agent('mock', { script: '/s.yaml' }, 'mock:s.yaml');
    return {
      input: { path: '/doc.md', display: 'doc.md', text: '# Doc\n', bytes: 6, sha256: sha256('# Doc\n'), ext: 'md', syntax: 'markdown' },
      passes: 2,
      allPasses: false,
      agents: { reviewer: mock, composer: mock },
      agentVersions: { reviewer: 'mock-1', composer: 'mock-1' },
      resolved: { reviewer: {}, composer: {} },
      chosenBy: { reviewer: 'flag', composer: 'flag' },
      templates,
      promptsDir: null,
      markers: ['CONTESTED', 'CLARIFY'],
      maxRepairs: 1,
      maxBytes: 2_000_000,
      timeoutMs: { reviewer: 600_000, composer: 600_000 },
      maxOutputTokens: { reviewer: null, composer: null },
      summaryRatio: 0.3,
      summaryMinWords: 50,
      output: { kind: 'run' },
      runsDir: '/runs',
      name: 'doc.md',
      replyMode: 'document',
      lint: 'off',
      goal: null,
      context: { nonce: 'c0c0c0c0c0c0', budget: 262_144, files: [] },
      ...over,
    };
  }

  const version = (over: Partial<RunPlan> = {}): string => policyOf(plan(over)).version;

  it('records the settings, a 16-hex-digit version and the templates hash', () => {
    const p = policyOf(plan());
    expect(p.version).toMatch(/^[0-9a-f]{16}$/);
    expect(p).toEqual({
      version: p.version,
      contract_version: 1,
      templates_sha256: templatesHash(templates),
      prompts_dir: null,
      markers: ['CONTESTED', 'CLARIFY'],
      max_repairs: 1,
      summary_ratio: 0.3,
      summary_min_words: 50,
      max_bytes: 2_000_000,
      reply_mode: 'document',
      lint: 'off',
    });
  });

  it('is stable: the same plan gives the same version', () => {
    expect(version()).toBe(version());
  });

  it('does not change with things that do not change what agents are asked or what is accepted', () => {
    const base = version();
    expect(version({ input: { ...plan().input, text: 'other\n', sha256: sha256('other\n') } })).toBe(base);
    expect(version({ timeoutMs: { reviewer: 1, composer: 2 } })).toBe(base);
    expect(version({ output: { kind: 'stdout' } })).toBe(base);
    expect(version({ runsDir: '/elsewhere', name: 'x' })).toBe(base);
    expect(version({ chosenBy: { reviewer: 'config', composer: 'default' } })).toBe(base);
    expect(version({ agentVersions: { reviewer: '9', composer: '9' } })).toBe(base);
  });

  it('changes with lint warn or repair (off is left out, so runs made before lint keep their version)', () => {
    const base = version();
    expect(version({ lint: 'warn' })).not.toBe(base);
    expect(version({ lint: 'repair' })).not.toBe(version({ lint: 'warn' }));
  });

  it('changes with the pass budget and --all-passes', () => {
    const base = version();
    expect(version({ passes: 3 })).not.toBe(base);
    expect(version({ allPasses: true })).not.toBe(base);
  });

  it('changes with the agents: spec, options, or the other role', () => {
    const base = version();
    const other = agent('openai', { model: 'llama3.1' }, 'openai:llama3.1');
    const p = plan();
    expect(version({ agents: { reviewer: other, composer: p.agents.composer } })).not.toBe(base);
    expect(version({ agents: { reviewer: p.agents.reviewer, composer: other } })).not.toBe(base);
    expect(version({ agents: { reviewer: { ...p.agents.reviewer, options: { script: '/t.yaml' } }, composer: p.agents.composer } })).not.toBe(base);
  });

  it('changes with the program of a cmd: agent', () => {
    const a = { ...agent('cmd', {}, 'tool'), command: '/bin/a' };
    const b = { ...a, command: '/bin/b' };
    expect(version({ agents: { reviewer: a, composer: a } })).not.toBe(version({ agents: { reviewer: b, composer: b } }));
  });

  it('changes with the markers, the templates, the prompts dir and max_repairs', () => {
    const base = version();
    expect(version({ markers: ['CONTESTED', 'CLARIFY', 'RISK'] })).not.toBe(base);
    expect(version({ templates: { ...templates, reviewer: 'R2' } })).not.toBe(base);
    expect(version({ promptsDir: '/prompts' })).not.toBe(base);
    expect(version({ maxRepairs: 2 })).not.toBe(base);
    expect(version({ maxBytes: 10 })).not.toBe(base);
  });
});

describe('createProgress', () => {
  const SGR = /\u001b\[[0-9;]*m/;

  it('not a terminal: plain lines', () => {
    const io = fakeIo();
    const p = createProgress(io, false);
    p.passStarted(1, 2, 'reviewer', 'mock', 0);
    p.note('retrying after a rate limit');
    p.passFinished(1, 3, 'done');
    p.passStarted(2, 2, 'composer', 'mock', 1);
    p.passFinished(2, 1, 'not converged');
    p.passStarted(3, 3, 'reviewer', 'mock', 0);
    p.passFinished(3, null, 'failed');
    p.close();
    const lines = io.err().split('\n');
    expect(lines[0]).toBe('pass 1/2 reviewer mock: started with 0 notes');
    expect(lines[1]).toBe('retrying after a rate limit');
    expect(lines[2]).toMatch(/^pass 1\/2 reviewer mock: done in \d+\.\d s, 0 -> 3 notes$/);
    expect(lines[3]).toBe('pass 2/2 composer mock: started with 1 note');
    expect(lines[4]).toMatch(/^pass 2\/2 composer mock: not converged in \d+\.\d s, 1 -> 1 note$/);
    expect(lines[5]).toBe('pass 3/3 reviewer mock: started with 0 notes');
    expect(lines[6]).toMatch(/^pass 3\/3 reviewer mock: failed in \d+\.\d s, 0 notes in$/);
    expect(lines[7]).toBe('');
    expect(lines).toHaveLength(8);
    expect(io.err()).not.toContain('\r');
    expect(io.err()).not.toMatch(SGR);
    expect(io.out()).toBe('');
  });

  it('not a terminal: a long agent name is never cut (logs keep it whole)', () => {
    const io = fakeIo();
    const p = createProgress(io, false);
    const name = `cmd:./${'x'.repeat(80)}.mjs`;
    p.passStarted(1, 1, 'reviewer', name, 0);
    p.passFinished(1, 0, 'done');
    expect(io.err()).toContain(`pass 1/1 reviewer ${name}: started with 0 notes\n`);
    expect(io.err()).not.toContain('\u2026');
  });

  /** A terminal `columns` wide: \r, clear-line, newline and auto-wrap, colours dropped; returns its rows. */
  function screen(text: string, columns: number): string[] {
    const rows: string[][] = [[]];
    let row = 0;
    let col = 0;
    for (const token of text.replace(/\u001b\[[0-9;]*m/g, '').match(/\u001b\[2K|[\s\S]/gu) ?? []) {
      if (token === '\u001b[2K') rows[row] = [];
      else if (token === '\r') col = 0;
      else if (token === '\n') {
        row += 1;
        col = 0;
        rows[row] ??= [];
      } else {
        if (col === columns) {
          row += 1;
          col = 0;
          rows[row] ??= [];
        }
        rows[row]![col] = token;
        col += 1;
      }
    }
    return rows.map((r) => r.join(''));
  }

  const terminal = (columns: number | undefined, env: NodeJS.ProcessEnv = {}): FakeIo => {
    const io = fakeIo({ stderrTTY: true, env });
    if (columns !== undefined) Object.assign(io.stderr, { columns });
    return io;
  };

  it('a terminal: one line redrawn in place, that reads pass, role, agent, time and notes', () => {
    vi.useFakeTimers();
    try {
      const io = terminal(100);
      const p = createProgress(io, false);
      p.passStarted(1, 2, 'reviewer', 'claude', 0);
      vi.advanceTimersByTime(5000);
      expect(screen(io.err(), 100)).toEqual(['pass 1/2 reviewer claude: 5.0 s, 0 notes in']);
      vi.advanceTimersByTime(8000);
      p.passFinished(1, 2, 'done');
      p.passStarted(2, 2, 'composer', 'codex', 2);
      vi.advanceTimersByTime(1000);
      p.passFinished(2, 1, 'not converged');
      p.close();
      expect(screen(io.err(), 100)).toEqual([
        'pass 1/2 reviewer claude: 13.0 s, 0 -> 2 notes',
        'pass 2/2 composer codex: not converged, 1.0 s, 2 -> 1 note',
        '',
      ]);
      expect(io.err()).toMatch(SGR);
      expect(io.err().startsWith('\r\u001b[2K')).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a terminal 40 columns wide: a long agent name is cut with an ellipsis, and no redraw leaves a wrapped copy', () => {
    vi.useFakeTimers();
    try {
      const io = terminal(40);
      const p = createProgress(io, false);
      p.passStarted(1, 2, 'reviewer', 'cmd:./agents/our-very-long-reviewer-agent.mjs', 12);
      vi.advanceTimersByTime(12_000);
      p.note('pass 1: HTTP 500 from api.example.com; retrying in 1.0s');
      vi.advanceTimersByTime(1000);
      const live = screen(io.err(), 40);
      // No room for the role and 6 letters of the agent: the role goes, the agent is cut.
      expect(live.at(-1)).toBe('pass 1/2 cmd:./ag\u2026: 13.0 s, 12 notes in');
      p.passFinished(1, 3, 'failed');
      p.close();
      const rows = screen(io.err(), 40);
      // The note wraps, as any long message does; the live line never does.
      expect(rows).toEqual(['pass 1: HTTP 500 from api.example.com; r', 'etrying in 1.0s', 'pass 1/2 cmd\u2026: failed, 13.0 s, 12 -> 3\u2026', '']);
      expect(rows.slice(2).every((r) => [...r].length < 40)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a terminal too narrow for the words: the line itself is cut, never wrapped', () => {
    const io = terminal(20, { NO_COLOR: '1' });
    const p = createProgress(io, false);
    p.passStarted(10, 10, 'composer', 'anthropic:claude-sonnet', 100);
    p.passFinished(10, 0, 'done');
    const rows = screen(io.err(), 20);
    expect(rows).toEqual([expect.stringMatching(/^pass 10\/10 ant\u2026: 0\u2026$/), '']);
    expect([...rows[0]!]).toHaveLength(19);
  });

  it('a terminal that does not say its width is taken as 80 columns', () => {
    const io = terminal(undefined, { NO_COLOR: '1' });
    const p = createProgress(io, false);
    p.passStarted(1, 1, 'reviewer', 'x'.repeat(200), 0);
    p.passFinished(1, 0, 'done');
    expect(screen(io.err(), 80)).toEqual([expect.stringMatching(/^pass 1\/1 reviewer x+\u2026: \d+\.\d s, 0 -> 0 notes$/), '']);
    expect([...screen(io.err(), 80)[0]!]).toHaveLength(79);
    expect(io.err()).not.toMatch(SGR);
  });

  it('fitText cuts to a width, ending in an ellipsis only when it cut', () => {
    expect(fitText('claude', 6)).toBe('claude');
    expect(fitText('claude', 5)).toBe('clau\u2026');
    expect(fitText('claude', 1)).toBe('\u2026');
    expect(fitText('claude', 0)).toBe('');
    expect(fitText('\u00e9t\u00e9-agent', 4)).toBe('\u00e9t\u00e9\u2026');
  });

  it('quiet: prints nothing at all', () => {
    for (const tty of [false, true]) {
      const io = fakeIo({ stderrTTY: tty });
      const p = createProgress(io, true);
      p.passStarted(1, 2, 'reviewer', 'mock', 0);
      p.note('hello');
      p.passFinished(1, 0, 'done');
      p.close();
      expect(io.err()).toBe('');
      expect(io.out()).toBe('');
    }
  });
});
