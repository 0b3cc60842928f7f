import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CacheEntry, ResponseCache } from '../../src/cache/entries.js';
import { CACHE_FORMAT } from '../../src/cache/key.js';
import { ageMs } from '../../src/commands/cache.js';
import { EXIT, isBounceError } from '../../src/errors.js';
import { sha256 } from '../../src/store/hash.js';
import { cleanEnv, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const DAY = 86_400_000;

function entry(name: string): CacheEntry {
  return {
    format: CACHE_FORMAT,
    key: sha256(name),
    created_at: new Date().toISOString(),
    of: `d-${name}`,
    run: `r-${name}`,
    adapter: 'mock',
    prompt_sha256: sha256(name),
    response: {
      ok: true,
      reply: name,
      stop: 'complete',
      usage: { input_tokens: 1, output_tokens: 1, cost_usd: null, provider_reported: false },
      model: null,
      agent_version: null,
    },
  };
}

/** A cache folder with an entry used today and one last used `days` ago. */
function filled(folder: string, days: number): ResponseCache {
  const cache = new ResponseCache(folder);
  cache.write(entry('fresh'));
  const old = entry('old');
  cache.write(old);
  const t = new Date(Date.now() - days * DAY);
  utimesSync(join(folder, old.key.slice(0, 2), `${old.key}.json`), t, t);
  return cache;
}

describe('bounce cache', () => {
  it('ages are a whole number of days, hours or minutes', () => {
    expect(ageMs('30d')).toBe(30 * DAY);
    expect(ageMs('12h')).toBe(12 * 3_600_000);
    expect(ageMs('90m')).toBe(90 * 60_000);
    const lineOf = (value: string): string => {
      try {
        ageMs(value);
        return 'accepted';
      } catch (err) {
        return isBounceError(err) ? err.line : String(err);
      }
    };
    for (const bad of ['30', 'd', '1.5d', '-1d', '3w', '30 days', ''])
      expect(lineOf(bad), bad).toMatch(/^--older-than ".*" is not an age: .*--older-than 30d$/);
  });

  it('stats names the folder, its entries and bytes, the oldest and newest; --json as one object', async () => {
    const cwd = tempDir();
    const cache = filled(join(cwd, 'c'), 40);
    const text = await runMain(['cache', 'stats', '--cache', 'c'], { cwd });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`response cache: ${cache.folder}\n2 entries, ${cache.stats().bytes} bytes\noldest: `);
    const json = await runMain(['cache', 'stats', '--cache', 'c', '--json'], { cwd });
    expect(JSON.parse(json.stdout)).toEqual(cache.stats());
  });

  it('stats finds the folder in config cache, else the default under $XDG_CACHE_HOME', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'bounce.config.yaml'), 'cache: shared\n');
    filled(join(cwd, 'shared'), 1);
    const r = await runMain(['cache', 'stats', '--json'], { cwd });
    expect(JSON.parse(r.stdout)).toMatchObject({ folder: join(cwd, 'shared'), entries: 2 });
    const home = tempDir();
    const bare = tempDir();
    const d = await runMain(['cache', 'stats', '--json'], { cwd: bare, env: cleanEnv({ XDG_CACHE_HOME: home }) });
    expect(JSON.parse(d.stdout)).toEqual({ folder: join(home, 'bounce', 'responses'), entries: 0, bytes: 0, oldest: null, newest: null });
  });

  it('clear --older-than removes only what was not used for that long; clear alone removes everything', async () => {
    const cwd = tempDir();
    const cache = filled(join(cwd, 'c'), 40);
    const r = await runMain(['cache', 'clear', '--older-than', '30d', '--cache', 'c'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^removed 1 entry not used since \S+ \(\d+ bytes\) from /);
    expect(cache.stats().entries).toBe(1);
    expect(cache.read(entry('fresh').key)).not.toBeNull();
    const all = await runMain(['cache', 'clear', '--cache', 'c'], { cwd });
    expect(all.stdout).toMatch(/^removed 1 entry \(/);
    expect(cache.stats().entries).toBe(0);
  });

  it('a bad --older-than is a usage error on one line naming the fix, and removes nothing', async () => {
    const cwd = tempDir();
    const cache = filled(join(cwd, 'c'), 40);
    const r = await runMain(['cache', 'clear', '--older-than', '30 days', '--cache', 'c'], { cwd });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toBe(
      'bounce: --older-than "30 days" is not an age: give a whole number and a unit, d (days), h (hours) or m (minutes): --older-than 30d\n',
    );
    expect(cache.stats().entries).toBe(2);
  });
});
