import { describe, expect, it } from 'vitest';
import { copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { runScan, type ScanCommandOptions } from '../../src/commands/scan.js';
import { runLint } from '../../src/commands/lint.js';
import { memIo } from '../support/mem-io.js';
import { BounceError } from '../../src/errors.js';
import type { Io } from '../../src/io.js';

const FIXTURE = join(import.meta.dirname, '../fixtures/scan/retry-policy.md');

async function workspace(files: Record<string, string | Buffer> = {}): Promise<string> {
  const cwd = await mkdtemp(join(tmpdir(), 'bounce-scan-'));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(join(cwd, name, '..'), { recursive: true });
    await writeFile(join(cwd, name), content);
  }
  return cwd;
}

async function scan(cwd: string, opts: Partial<ScanCommandOptions> & { patterns: string[] }, stdin = '') {
  let stdout = '',
    stderr = '';
  const io: Io = {
    cwd,
    env: {},
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([Buffer.from(stdin)]),
    signal: new AbortController().signal,
  };
  const code = await runScan(opts, io);
  return { code, stdout, stderr };
}

async function scanError(cwd: string, opts: Partial<ScanCommandOptions> & { patterns: string[] }): Promise<BounceError> {
  const err = await scan(cwd, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BounceError);
  expect((err as BounceError).exitCode).toBe(2);
  return err as BounceError;
}

describe('scan --lint and lint, streamed', () => {
  // To stdout, text and JSON go out as they are found; with --output the whole report is built and rendered.
  // Both must give the same bytes, and the same exit code and stderr.
  const DOCS = {
    'docs/a.md': '# Plan\n\nShip on Monday.\n[CLARIFY] Which Monday?\n\n[CONTESTED]\n\nText.\n\n[CONTESTED] Use 7 days instead.\n',
    'docs/b.md': '# Clean\n\nNothing to settle.\n',
    'docs/c.yaml': 'retries: 5 # [CLARIFY] per call or per day?\n',
    'docs/d.md': `Line.\n${'[CLARIFY]\n\n'.repeat(500)}`,
  };
  const run = async (command: 'scan' | 'lint', cwd: string, opts: Partial<ScanCommandOptions>) => {
    const io = memIo(cwd);
    const all = { patterns: ['docs'], ...opts };
    const code = command === 'scan' ? await runScan({ ...all, lint: true }, io) : await runLint(all, io);
    return { code, stdout: io.out(), stderr: io.err() };
  };
  const cases: ['scan' | 'lint', 'text' | 'json', { rules?: string[] }][] = [
    ['scan', 'text', {}],
    ['scan', 'json', {}],
    ['scan', 'json', { rules: ['open-ended'] }],
    ['lint', 'text', {}],
    ['lint', 'json', {}],
    ['lint', 'text', { rules: ['misplaced', 'empty-note'] }],
  ];
  it.each(cases)('%s --format %s %o', async (command, format, extra) => {
    const cwd = await workspace(DOCS);
    const streamed = await run(command, cwd, { format, ...extra });
    const whole = await run(command, cwd, { format, ...extra, output: 'report.out' });
    expect(streamed.stdout).toBe(await readFile(join(cwd, 'report.out'), 'utf8'));
    expect(streamed.stdout.length).toBeGreaterThan(100);
    expect([streamed.code, streamed.stderr]).toEqual([whole.code, whole.stderr]);
  });
});

describe('bounce scan', () => {
  it('exits 0 on a clean folder and prints nothing on stdout', async () => {
    const cwd = await workspace({ 'docs/a.md': '# A\n\nAll settled.\n', 'docs/b.txt': 'Also settled.\n', 'docs/code.md': '`[CLARIFY]`\n' });
    const r = await scan(cwd, { patterns: ['docs'] });
    expect(r).toEqual({ code: 0, stdout: '', stderr: 'no notes (3 files scanned)\n' });
  });

  it('exits 1 on a disguised marker (an invisible character in its name), and lint names the disguise', async () => {
    const cwd = await workspace({ 'a.md': 'Ship Monday.\n[CLA\u200dRIFY] Which Monday? (A) the 3rd (B) the 10th\n' });
    const r = await scan(cwd, { patterns: ['a.md'], lint: true });
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')).toEqual([
      'a.md:2:1 CLARIFY [CLARIFY] Which Monday? (A) the 3rd (B) the 10th',
      'a.md:2:1 marker-spelling CLARIFY [CLARIFY] is disguised by U+200D (invisible) after "[CLA": it reads as a note, and counts as one: [CLARIFY] Which Monday? (A) the 3rd (B) the 10th',
      '',
    ]);
  });

  it('exits 1 and prints file:line:col KIND text for each note', async () => {
    const cwd = await workspace();
    await copyFile(FIXTURE, join(cwd, 'retry-policy.md'));
    const r = await scan(cwd, { patterns: ['retry-policy.md'] });
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')).toEqual([
      'retry-policy.md:4:1 CONTESTED [CONTESTED] Five attempts is too many for a call that costs money each time. Cap retries at two and let the caller decide.',
      'retry-policy.md:8:1 CLARIFY [CLARIFY] Does "every endpoint" include /metrics? (A) Yes. (B) No, exempt it.',
      'retry-policy.md:16:58 CLARIFY [CLARIFY] below.',
      '',
    ]);
    expect(r.stderr).toBe('3 notes in 1 file (1 file scanned)\n');
  });

  it('walks folders for .md, .markdown and .txt, skipping node_modules and hidden entries', async () => {
    const cwd = await workspace({
      'docs/a.md': '[CLARIFY] a\n',
      'docs/sub/b.markdown': '[CLARIFY] b\n',
      'docs/c.txt': '```\n[CLARIFY] c\n```\n',
      'docs/d.json': '"[CLARIFY]"',
      'docs/node_modules/x.md': '[CLARIFY]',
      'docs/.git/y.md': '[CLARIFY]',
      'docs/.z.md': '[CLARIFY]',
    });
    const r = await scan(cwd, { patterns: ['docs'] });
    expect(r.stdout).toBe(
      ['docs/a.md:1:1 CLARIFY [CLARIFY] a', 'docs/c.txt:2:1 CLARIFY [CLARIFY] c ```', 'docs/sub/b.markdown:1:1 CLARIFY [CLARIFY] b', ''].join('\n'),
    );
    expect(r.stderr).toBe('3 notes in 3 files (3 files scanned)\n');
  });

  it('prints one JSON object with --json and nothing on stderr', async () => {
    const cwd = await workspace({ 'a.md': 'Claim.\n[CLARIFY] Which one?\n', 'b.md': 'clean\n' });
    const r = await scan(cwd, { patterns: ['a.md', 'b.md'], json: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      files: [
        {
          path: 'a.md',
          notes: [{ kind: 'CLARIFY', line: 2, column: 1, text: '[CLARIFY] Which one?', canonical: true, refersTo: { line: 1, text: 'Claim.' } }],
        },
        { path: 'b.md', notes: [] },
      ],
      total: 1,
      exitCode: 1,
    });
  });

  it('streams text and JSON with the bytes of the report written whole (--output), in small pieces', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => `Line ${i} says "this".\n[CLARIFY] Which ${i}? (A) \u00fc (B) \ud83d\ude42 \\ "q"\n`).join('\n');
    const cwd = await workspace({
      'docs/a.md': many,
      'docs/clean.md': 'clean\n',
      'docs/b.txt': '[CONTESTED] plain text\nsecond line\n',
      'docs/c.json': '{"a": "[CLARIFY] in json"}\n',
    });
    for (const json of [false, true]) {
      let writes = 0;
      const streamed = await scan(cwd, { patterns: ['docs'], json });
      const whole = await scan(cwd, { patterns: ['docs'], json, output: json ? 'out.json' : 'out.txt' });
      expect(streamed.code).toBe(1);
      expect(whole.code).toBe(1);
      expect(streamed.stdout).toBe(await readFile(join(cwd, json ? 'out.json' : 'out.txt'), 'utf8'));
      expect(streamed.stderr).toBe(whole.stderr);
      // the same, counting the writes: a long report leaves in several
      const io: Io = {
        cwd,
        env: {},
        stdout: {
          write: () => {
            writes++;
            return true;
          },
        },
        stderr: { write: () => true },
        stdin: Readable.from([]),
        signal: new AbortController().signal,
      };
      await runScan({ patterns: ['docs'], json }, io);
      expect(writes).toBeGreaterThan(2);
    }
  });

  it('waits for a slow reader: after a write stdout refuses, no more is written until it drains', async () => {
    const many = Array.from({ length: 2000 }, (_, i) => `Line ${i}.\n[CLARIFY] Which ${i}? (A) one (B) two\n`).join('\n');
    const cwd = await workspace({ 'a.md': many });
    const whole = await scan(cwd, { patterns: ['a.md'] });
    let out = '';
    let full = false;
    let writesWhileFull = 0;
    let drains = 0;
    const io: Io = {
      cwd,
      env: {},
      stdout: {
        // Like a pipe whose buffer is full after every write: the writer must wait for 'drain'.
        write: (s: string) => {
          if (full) writesWhileFull++;
          out += s;
          full = true;
          return false;
        },
        drain: () =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              drains++;
              full = false;
              resolve();
            }, 1),
          ),
      },
      stderr: { write: () => true },
      stdin: Readable.from([]),
      signal: new AbortController().signal,
    };
    expect(await runScan({ patterns: ['a.md'] }, io)).toBe(1);
    expect(out).toBe(whole.stdout);
    expect(writesWhileFull).toBe(0);
    expect(drains).toBeGreaterThan(2);
  });

  it('reports exit 0 in JSON when clean', async () => {
    const cwd = await workspace({ 'a.md': 'clean\n' });
    const r = await scan(cwd, { patterns: ['a.md'], json: true });
    expect([r.code, JSON.parse(r.stdout).exitCode, JSON.parse(r.stdout).total]).toEqual([0, 0, 0]);
  });

  it('expands globs relative to the working folder', async () => {
    const cwd = await workspace({ 'docs/a.md': '[CLARIFY] a\n', 'docs/deep/b.md': 'x [contested] b\n', 'docs/c.txt': '[CLARIFY] c\n' });
    const r = await scan(cwd, { patterns: ['docs/**/*.md'] });
    expect(r.stdout).toBe('docs/a.md:1:1 CLARIFY [CLARIFY] a\ndocs/deep/b.md:1:3 CONTESTED [contested] b\n');
  });

  it('reads stdin for - as markdown', async () => {
    const cwd = await workspace();
    const r = await scan(cwd, { patterns: ['-'] }, 'Text\n[CLARIFY] from stdin\n\n    [CLARIFY] code\n');
    expect(r).toMatchObject({ code: 1, stdout: '<stdin>:2:1 CLARIFY [CLARIFY] from stdin\n' });
  });

  it('scans .txt as plain text unless --syntax says otherwise', async () => {
    const cwd = await workspace({ 'n.txt': '`[CLARIFY]`\n' });
    expect((await scan(cwd, { patterns: ['n.txt'] })).code).toBe(1);
    expect((await scan(cwd, { patterns: ['n.txt'], syntax: 'markdown' })).code).toBe(0);
  });

  it('finds configured extra markers', async () => {
    const cwd = await workspace({ 'a.md': '[TODO] later\n' });
    expect((await scan(cwd, { patterns: ['a.md'] })).code).toBe(0);
    expect((await scan(cwd, { patterns: ['a.md'], markers: ['TODO'] })).stdout).toBe('a.md:1:1 TODO [TODO] later\n');
  });

  it('reports escaped and referenced markers where they are written, with the text as they render', async () => {
    const cwd = await workspace();
    await copyFile(join(import.meta.dirname, '../fixtures/scan/pandoc-escaped.md'), join(cwd, 'escaped.md'));
    const r = await scan(cwd, { patterns: ['escaped.md'] });
    expect(r.stdout.split('\n')).toEqual([
      'escaped.md:4:2 CONTESTED [CONTESTED] Five attempts is too many for a paid call. Cap at two.',
      'escaped.md:8:3 CLARIFY [CLARIFY] Does "every endpoint" include /metrics?',
      'escaped.md:11:20 CLARIFY [CLARIFY] for how long? `code [CLARIFY]` stays code.',
      '',
    ]);
  });

  it('reads .mdx as markdown with the MDX rules, also in folders, unless --syntax forces a reading', async () => {
    const page = 'import X from "./x.js"\n\n<Note title="[CLARIFY]">\n[CONTESTED] real\n</Note>\n\n{/* [CLARIFY] */}\n';
    const cwd = await workspace({ 'docs/page.mdx': page });
    const r = await scan(cwd, { patterns: ['docs'] });
    expect([r.code, r.stdout.split('\n').length, r.stdout.startsWith('docs/page.mdx:4:1 CONTESTED [CONTESTED] real')]).toEqual([1, 2, true]);
    expect((await scan(cwd, { patterns: ['docs/page.mdx'], syntax: 'markdown' })).stdout.split('\n')).toHaveLength(4);
    expect((await scan(cwd, { patterns: ['docs/page.mdx'], syntax: 'plain' })).stdout.split('\n')).toHaveLength(4);
  });

  it('scans a file named twice once', async () => {
    const cwd = await workspace({ 'a.md': '[CLARIFY] x\n' });
    expect((await scan(cwd, { patterns: ['a.md', './a.md', '*.md'] })).stdout).toBe('a.md:1:1 CLARIFY [CLARIFY] x\n');
  });
});

describe('bounce scan errors (exit 2)', () => {
  it('names a missing file', async () => {
    const err = await scanError(await workspace(), { patterns: ['nope.md'] });
    expect(err.line).toBe('no such file or folder: nope.md: check the path (relative to the current folder)');
  });
  it('names a glob that matches nothing', async () => {
    const err = await scanError(await workspace({ 'a.txt': 'x' }), { patterns: ['docs/**/*.md'] });
    expect(err.message).toBe('no files match docs/**/*.md');
  });
  it('refuses a folder with nothing to scan', async () => {
    const err = await scanError(await workspace({ 'empty/x.json': '{}' }), { patterns: ['empty'] });
    expect(err.message).toContain('no .md, .markdown, .mdx or .txt files');
  });
  it('refuses binary files and invalid UTF-8', async () => {
    const cwd = await workspace({ 'bin.md': Buffer.from([0x5b, 0x00, 0x01]), 'latin1.md': Buffer.from([0x63, 0x61, 0x66, 0xe9]) });
    expect((await scanError(cwd, { patterns: ['bin.md'] })).message).toBe('bin.md looks binary (it contains NUL bytes)');
    expect((await scanError(cwd, { patterns: ['latin1.md'] })).message).toBe('latin1.md is not valid UTF-8');
  });
  it('refuses bad marker names and an empty argument list', async () => {
    const cwd = await workspace({ 'a.md': 'x' });
    expect((await scanError(cwd, { patterns: ['a.md'], markers: ['[TODO]'] })).message).toBe('invalid marker name "[TODO]"');
    await scanError(cwd, { patterns: [] });
  });
  it('refuses an input over max_bytes, from a file or stdin', async () => {
    const cwd = await workspace({ 'big.md': '[CLARIFY] 0123456789', 'ok.md': 'x' });
    const err = await scanError(cwd, { patterns: ['ok.md', 'big.md'], maxBytes: 12 });
    expect(err.line).toBe('big.md is 20 bytes, over the 12-byte limit: raise max_bytes in bounce.config.yaml, or scan it in parts');
    const stdin = await scan(cwd, { patterns: ['-'], maxBytes: 12 }, 'x'.repeat(13)).catch((e: BounceError) => e);
    expect((stdin as BounceError).message).toBe('<stdin> is more than 12 bytes');
    expect((await scan(cwd, { patterns: ['big.md'], maxBytes: 20 })).code).toBe(1);
  });

  it('Greek look-alikes of C and F (lunate sigma, digamma) are notes, exit 1, in markdown, YAML and JSON', async () => {
    const cwd = await workspace({
      'g.md': 'Fine.\n[\u03f9ONTESTED] Too vague. Say X.\n[CLARI\u03dcY] Which? (A) a (B) b\n',
      'g.yaml': 'k: v\n# [\u03f9ONTESTED] Too vague.\n',
      'g.json': '{"k": "v", "k.note": "[CLARI\u03dcY] Which? (A) a (B) b"}\n',
    });
    const r = await scan(cwd, { patterns: ['g.md', 'g.yaml', 'g.json'] });
    expect(r.stdout).toBe(
      [
        'g.md:2:1 CONTESTED [CONTESTED] Too vague. Say X.',
        'g.md:3:1 CLARIFY [CLARIFY] Which? (A) a (B) b',
        'g.yaml:2:3 CONTESTED [CONTESTED] Too vague.',
        'g.json:1:23 CLARIFY [CLARIFY] Which? (A) a (B) b',
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(1);
  });

  it('reads a file that is not a regular file (a device, a pipe) as before, bounded by max_bytes', async () => {
    const cwd = await workspace();
    expect(await scan(cwd, { patterns: ['/dev/null'] })).toEqual({ code: 0, stdout: '', stderr: 'no notes (1 file scanned)\n' });
    const zero = await scanError(cwd, { patterns: ['/dev/zero'], maxBytes: 1000 });
    expect(zero.line).toMatch(
      /^(?:\.\.\/)+dev\/zero is more than 1000 bytes \(a character device, read as a stream\): bounce reads a device only up to max_bytes \(bounce\.config\.yaml\): name a regular file$/,
    );
  });
  it('prints nothing when any input fails', async () => {
    const cwd = await workspace({ 'a.md': '[CLARIFY] x\n' });
    let stdout = '';
    const io = {
      cwd,
      env: {},
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: () => true },
      stdin: Readable.from([]),
      signal: new AbortController().signal,
    };
    await expect(runScan({ patterns: ['a.md', 'missing.md'] }, io)).rejects.toBeInstanceOf(BounceError);
    expect(stdout).toBe('');
  });
});
