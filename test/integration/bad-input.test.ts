import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

let dir: string;
beforeAll(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'doc.md'), '# Title\n\nSome text.\n');
  writeFileSync(join(dir, 'empty.md'), '  \n\n');
  writeFileSync(join(dir, 'binary.md'), Buffer.from([0x23, 0x20, 0x00, 0x01, 0x02]));
  writeFileSync(join(dir, 'latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  writeFileSync(join(dir, 'big.md'), 'x'.repeat(2_000_001));
  mkdirSync(join(dir, 'folder'));
  mkdirSync(join(dir, 'badcfg'));
  writeFileSync(join(dir, 'badcfg', 'bounce.config.yaml'), 'reviewer: [unclosed\n');
  writeFileSync(join(dir, 'badcfg', 'doc.md'), '# Title\n');
  mkdirSync(join(dir, 'badkeys'));
  writeFileSync(join(dir, 'badkeys', 'bounce.config.yaml'), 'max_passes: zero\nsurprise: 1\n');
  writeFileSync(join(dir, 'badkeys', 'doc.md'), '# Title\n');
  // A FIFO no one writes to: a read of it would never end.
  execFileSync('mkfifo', [join(dir, 'fifo.md')]);
});

const MOCK = ['--reviewer', 'mock', '--composer', 'mock'];

/** Each case: args, cwd (relative), what the one-line message must mention. */
const cases: [string, string[], string, RegExp][] = [
  ['a missing file', ['refine', 'nope.md', ...MOCK], '.', /no such file: nope\.md/],
  // A folder is a batch of the documents in it (docs/batch.md); one that holds none is refused.
  ['a folder with no documents', ['refine', 'folder', ...MOCK], '.', /no .md, .markdown, .mdx or .txt files in folder folder/],
  ['an empty document', ['refine', 'empty.md', ...MOCK], '.', /empty\.md is empty/],
  ['a binary file', ['refine', 'binary.md', ...MOCK], '.', /binary/],
  ['invalid UTF-8', ['refine', 'latin1.md', ...MOCK], '.', /not valid UTF-8/],
  ['a file over max_bytes', ['refine', 'big.md', ...MOCK], '.', /over the 2000000-byte limit/],
  ['--passes 0', ['refine', 'doc.md', '--passes', '0', ...MOCK], '.', /--passes must be a whole number from 1 to 10, not "0"/],
  ['--passes -1', ['refine', 'doc.md', '--passes', '-1', ...MOCK], '.', /--passes must be a whole number/],
  ['--passes 2.5', ['refine', 'doc.md', '--passes', '2.5', ...MOCK], '.', /not "2\.5"/],
  ['--passes abc', ['refine', 'doc.md', '--passes', 'abc', ...MOCK], '.', /not "abc"/],
  ['--passes over the maximum', ['refine', 'doc.md', '--passes', '11', ...MOCK], '.', /from 1 to 10, not "11"/],
  [
    'an unknown agent',
    ['refine', 'doc.md', '--reviewer', 'gpt9', '--composer', 'mock'],
    '.',
    /unknown agent "gpt9".*claude, codex, gemini, opencode, openai, anthropic, a2a, mock, human/,
  ],
  // Names every plain object answers to (Object.prototype) are unknown agents like any other.
  ...['constructor', '__proto__', 'toString'].flatMap((name): [string, string[], string, RegExp][] => [
    [`--reviewer ${name}`, ['refine', 'doc.md', '--reviewer', name, '--composer', 'mock'], '.', new RegExp(`unknown agent "${name}"`)],
    [`--composer ${name}`, ['refine', 'doc.md', '--reviewer', 'mock', '--composer', name], '.', new RegExp(`unknown agent "${name}"`)],
  ]),
  // Only regular files are read (a FIFO would block, a device never ends, /proc has no size), each at most its limit.
  ...(
    [
      ['the document', (f: string) => ['refine', f, ...MOCK], (f: string) => f],
      ['--context', (f: string) => ['refine', 'doc.md', '--context', f, ...MOCK], (f: string) => `--context ${f}`],
      ['--goal-file', (f: string) => ['refine', 'doc.md', '--goal-file', f, ...MOCK], (f: string) => `--goal-file ${f}`],
      ['--config', (f: string) => ['refine', 'doc.md', '--config', f, ...MOCK], (f: string) => `config file .*${f.replace(/^\//, '')}`],
    ] as const
  ).flatMap(([what, args, label]): [string, string[], string, RegExp][] => [
    [`a FIFO as ${what}`, args('fifo.md'), '.', new RegExp(`${label('fifo.md')} is a FIFO, not a regular file: give bounce a regular file`)],
    [`/dev/zero as ${what}`, args('/dev/zero'), '.', new RegExp(`${label('/dev/zero')} is a character device, not a regular file`)],
  ]),
  ['/proc/self/mem as the document', ['refine', '/proc/self/mem', ...MOCK], '.', /cannot read \/proc\/self\/mem \(EIO\)/],
  ['/proc/self/mem as --context', ['refine', 'doc.md', '--context', '/proc/self/mem', ...MOCK], '.', /cannot read --context \/proc\/self\/mem \(EIO\)/],
  [
    '/proc/self/ as --context',
    ['refine', 'doc.md', '--context', '/proc/self/', ...MOCK],
    '.',
    /cannot read --context .*proc\/self\/|over the 262144-byte context budget/,
  ],
  ['a FIFO to scan', ['scan', 'fifo.md'], '.', /fifo\.md is a FIFO, not a regular file/],
  // scan reads a character device as a stream, at most max_bytes of it.
  ['/dev/zero to scan', ['scan', '/dev/zero'], '.', /dev\/zero is more than \d+ bytes/],
  ['an unknown option', ['refine', 'doc.md', '--frobnicate', ...MOCK], '.', /unknown option '--frobnicate'/],
  ['an unwritable runs dir', ['refine', 'doc.md', '--runs-dir', 'doc.md/runs', ...MOCK], '.', /runs dir is not writable/],
  ['--out naming the input', ['refine', 'doc.md', '--out', './doc.md', ...MOCK], '.', /--out \.\/doc\.md is the input document.*--in-place/],
  ['--in-place with stdin', ['refine', '-', '--in-place', ...MOCK], '.', /--in-place needs a file/],
  ['--out - with --json', ['refine', 'doc.md', '--out', '-', '--json', ...MOCK], '.', /--out - and --json/],
  ['a broken config file', ['refine', 'doc.md', ...MOCK], 'badcfg', /bounce\.config\.yaml: invalid YAML/],
  ['config keys that do not validate', ['refine', 'doc.md', ...MOCK], 'badkeys', /max_passes: must be a number, not a string; surprise: unknown key/],
  ['an empty --reviewer', ['refine', 'doc.md', '--reviewer', '', '--composer', 'mock'], '.', /--reviewer is empty/],
  ['--timeout 0', ['refine', 'doc.md', '--timeout', '0', ...MOCK], '.', /--timeout must be a positive number/],
];

describe('bad input: one line, exit 2, no run folder', () => {
  it.each(cases)('%s', async (_name, args, cwd, message) => {
    const where = join(dir, cwd);
    const r = await runMain(args, { cwd: where, input: '' });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines.length, r.stderr).toBeLessThanOrEqual(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(join(where, 'runs')) ? readdirSync(join(where, 'runs')) : []).toEqual([]);
  });

  it('--json prints one object with the error, exit 2', async () => {
    const r = await runMain(['refine', 'nope.md', '--json', ...MOCK], { cwd: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', exit_code: 2, run_id: null, error: { type: 'input' } });
  });

  it('--json prints the error object for an unknown option too', async () => {
    const r = await runMain(['refine', 'doc.md', '--bogus', '--json', ...MOCK], { cwd: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', exit_code: 2, error: { type: 'usage', message: "unknown option '--bogus'" } });
  });

  it('--dry-run prints the plan and the first prompt and writes nothing', async () => {
    const r = await runMain(['refine', 'doc.md', '--dry-run', ...MOCK], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('pass 1: reviewer mock');
    expect(r.stdout).toContain('<<<BOUNCE-DOCUMENT-');
    expect(r.stdout).toContain('Some text.');
    expect(existsSync(join(dir, 'runs'))).toBe(false);
  });
});
