import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, FIXTURES, ROOT, tempDir } from './support/cli.js';

/**
 * `bounce <args>` run in a folder holding `files`: its exit status, and the files it loaded as
 * modules (the CLI itself is one file that the launcher compiles), as paths from the package.
 */
function traced(args: string[], files: Record<string, string> = {}): { status: number | null; loaded: string[] } {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const record = join(dir, 'loads.txt');
  writeFileSync(record, '');
  const r = spawnSync(process.execPath, ['--import', join(FIXTURES, 'startup/record-loads.mjs'), BIN, ...args], {
    cwd: dir,
    env: cleanEnv({ RECORD_LOADS: record }),
    encoding: 'utf8',
  });
  expect(r.stderr).not.toMatch(/warning/i);
  // A file can be seen twice (the launcher, by the loader hooks and by require): each is listed once.
  const loaded = [
    ...new Set(
      readFileSync(record, 'utf8')
        .split('\n')
        .filter((url) => url.startsWith('file:') && !url.includes('/test/fixtures/'))
        .map((url) => url.replace(/^.*?\/(bin|dist|node_modules)\//, '$1/')),
    ),
  ];
  return { status: r.status, loaded };
}
const modulesLoadedBy = (args: string[], files: Record<string, string> = {}): string[] => traced(args, files).loaded;

const LAZY = /node_modules\//;

// Start-up cost is set by what loads, so these say what must not load; speed is in npm run bench.
describe('the CLI loads one file', () => {
  it('--version, --help and scan load the launcher alone: no module of dist/src, no package', () => {
    for (const args of [['--version'], ['--help'], ['refine', '--help'], ['scan', 'doc.md']]) {
      const loaded = modulesLoadedBy(args, { 'doc.md': '# Clean\n' });
      expect(loaded, args.join(' ')).toEqual(['bin/bounce.js']);
    }
  });

  it('a refine of a Markdown or a YAML document loads no package file: the YAML parser is inside the one file', () => {
    const refine = ['refine', '-r', 'mock', '-c', 'mock', '--quiet'];
    expect(modulesLoadedBy([...refine, 'doc.md'], { 'doc.md': '# Plan\n\nShip on Monday.\n' }).filter((m) => LAZY.test(m))).toEqual([]);
    // The YAML document is parsed before the run and after each pass: by the bundled parser.
    const yaml = traced([...refine, 'doc.yaml'], { 'doc.yaml': 'plan: ship on Monday\n' });
    expect(yaml.status).toBe(0);
    expect(yaml.loaded.filter((m) => LAZY.test(m))).toEqual([]);
  });

  it('a batch of a glob with cmd: agents (the glob matcher inside the one file) loads nothing else', () => {
    const agent = join(ROOT, 'examples/adapters/upper-adapter.mjs');
    const run = traced(['refine', '*.md', '-r', `cmd:${agent}`, '-c', `cmd:${agent}`, '--quiet'], { 'a.md': '# A\n\nText.\n' });
    expect(run.status).toBe(0);
    // fdir, inside tinyglobby, also looks for an installed picomatch at run time.
    expect(run.loaded.filter((m) => !m.startsWith('node_modules/picomatch/'))).toEqual(['bin/bounce.js']);
  });
});

describe('the launcher and its code cache', () => {
  /** A copy of the package's launcher and CLI file, with the package.json that names them. */
  function copyOfCli(): string {
    const dir = tempDir();
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'dist'));
    copyFileSync(BIN, join(dir, 'bin/bounce.js'));
    copyFileSync(join(ROOT, 'bin/package.json'), join(dir, 'bin/package.json'));
    copyFileSync(join(ROOT, 'dist/cli.cjs'), join(dir, 'dist/cli.cjs'));
    copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    return dir;
  }
  const version = (dir: string) => spawnSync(process.execPath, [join(dir, 'bin/bounce.js'), '--version'], { env: cleanEnv(), encoding: 'utf8' });
  const expected = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

  it('writes a cache when there is none, starts from it, and replaces one that does not fit', () => {
    const dir = copyOfCli();
    const cache = join(dir, 'dist/cli.cjs.cache');
    expect(version(dir).stdout.trim()).toBe(expected);
    const written = readFileSync(cache);
    expect(written.length).toBeGreaterThan(1000);
    // A cache that fits is kept as it is.
    expect(version(dir).stdout.trim()).toBe(expected);
    expect(readFileSync(cache).equals(written)).toBe(true);
    // One that does not (another build, another Node, or damage) is ignored, then replaced.
    writeFileSync(cache, 'not a code cache');
    const r = version(dir);
    expect([r.status, r.stdout.trim(), r.stderr]).toEqual([0, expected, '']);
    expect(readFileSync(cache).length).toBeGreaterThan(1000);
  });

  it('serves scan and every other command alike: neither rejects, nor rewrites, the cache the other wrote', () => {
    const dir = copyOfCli();
    const cache = join(dir, 'dist/cli.cjs.cache');
    writeFileSync(join(dir, 'doc.md'), '# Doc\n\nText.\n[CLARIFY] Which text?\n');
    const scan = () => spawnSync(process.execPath, [join(dir, 'bin/bounce.js'), 'scan', 'doc.md'], { cwd: dir, env: cleanEnv(), encoding: 'utf8' });
    expect(version(dir).stdout.trim()).toBe(expected);
    const byVersion = readFileSync(cache);
    expect([scan().status, scan().stdout]).toEqual([1, 'doc.md:4:1 CLARIFY [CLARIFY] Which text?\n']);
    expect(readFileSync(cache).equals(byVersion)).toBe(true);
    rmSync(cache);
    expect(scan().status).toBe(1);
    const byScan = readFileSync(cache);
    expect(version(dir).stdout.trim()).toBe(expected);
    expect(readFileSync(cache).equals(byScan)).toBe(true);
  });

  it('runs where the cache cannot be written, and leaves no temporary file behind', () => {
    const dir = copyOfCli();
    // A folder in the cache's place: it cannot be read as a cache nor replaced by one (whoever runs this, root too).
    mkdirSync(join(dir, 'dist/cli.cjs.cache'));
    const r = version(dir);
    expect([r.status, r.stdout.trim(), r.stderr]).toEqual([0, expected, '']);
    expect(readdirSync(join(dir, 'dist')).sort()).toEqual(['cli.cjs', 'cli.cjs.cache']);
    expect(statSync(join(dir, 'dist/cli.cjs.cache')).isDirectory()).toBe(true);
  });
});
