/** CLI versions remembered on disk between runs: keyed by the program file, never a wrong answer. */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProbe } from '../../src/kit/detect.js';
import { diskVersionCache, versionCachePath } from '../../src/preflight/version-cache.js';
import { ROOT } from '../support/adapter-process.js';

const dir = mkdtempSync(join(tmpdir(), 'bounce-version-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
/** A private copy of the fake CLI, so its file identity is this test's own. */
function fakeCli(): string {
  const path = join(dir, `fake-cli-${++n}.mjs`);
  copyFileSync(join(ROOT, 'test/fixtures/cli/fake-cli.mjs'), path);
  return path;
}
const lines = (log: string): string[] => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);

describe('the CLI version cache', () => {
  it('lives under XDG_CACHE_HOME, else ~/.cache', () => {
    expect(versionCachePath({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/me' })).toBe('/x/cache/bounce/cli-versions.json');
    expect(versionCachePath({ HOME: '/home/me' })).toBe('/home/me/.cache/bounce/cli-versions.json');
  });

  it('remembers a version for the program file as it is, and forgets it once the file changes', () => {
    const program = fakeCli();
    const file = join(dir, 'c1', 'cli-versions.json');
    diskVersionCache(file).set(program, '1.2.3 (Claude Code)');
    // A new cache object reads what the last one wrote.
    expect(diskVersionCache(file).get(program)).toBe('1.2.3 (Claude Code)');
    utimesSync(program, new Date(), new Date(Date.now() + 5000));
    expect(diskVersionCache(file).get(program)).toBeUndefined();
    expect(diskVersionCache(file).get(join(dir, 'missing'))).toBeUndefined();
  });

  it('a cache that cannot be written or read changes nothing', () => {
    const program = fakeCli();
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, 'not a folder');
    const cache = diskVersionCache(join(blocker, 'bounce', 'cli-versions.json'));
    expect(() => cache.set(program, '1.0')).not.toThrow();
    writeFileSync(join(dir, 'garbage.json'), '{ not json');
    expect(diskVersionCache(join(dir, 'garbage.json')).get(program)).toBeUndefined();
  });

  it('a probe with the cache asks --version once across runs; a failure is never remembered', async () => {
    const program = fakeCli();
    const log = join(dir, 'versions.log');
    const file = join(dir, 'c2', 'cli-versions.json');
    const env = { PATH: process.env.PATH ?? '', FAKE_CLI_LOG: log };
    const failing = { ...env, FAKE_CLI_VERSION: 'fail' };
    expect(await createProbe(undefined, { versions: diskVersionCache(file) }).version(program, failing)).toBeNull();
    expect(existsSync(file)).toBe(false);
    expect(await createProbe(undefined, { versions: diskVersionCache(file) }).version(program, env)).toBe('9.8.7 (Claude Code)');
    expect(await createProbe(undefined, { versions: diskVersionCache(file) }).version(program, env)).toBe('9.8.7 (Claude Code)');
    expect(lines(log)).toEqual(['--version', '--version']);
    // Without the cache (bounce check) the CLI is asked every time.
    expect(await createProbe().version(program, env)).toBe('9.8.7 (Claude Code)');
    expect(lines(log)).toHaveLength(3);
  });
});
