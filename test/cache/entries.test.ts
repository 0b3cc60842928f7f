import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CacheEntry, ResponseCache } from '../../src/cache/entries.js';
import { CACHE_FORMAT } from '../../src/cache/key.js';
import { sha256 } from '../../src/store/hash.js';
import { tempDir } from '../support/cli.js';

function entry(name: string, reply = `reply to ${name}`): CacheEntry {
  return {
    format: CACHE_FORMAT,
    key: sha256(name),
    created_at: new Date().toISOString(),
    of: `dispatch-${name}`,
    run: `run-${name}`,
    adapter: 'openai',
    prompt_sha256: sha256(`prompt ${name}`),
    response: {
      ok: true,
      reply,
      stop: 'complete',
      usage: { input_tokens: 1, output_tokens: 2, cost_usd: 0.5, provider_reported: true },
      model: 'm',
      agent_version: null,
    },
  };
}

const pathOf = (folder: string, key: string): string => join(folder, key.slice(0, 2), `${key}.json`);
const ago = (file: string, ms: number): void => {
  const t = new Date(Date.now() - ms);
  utimesSync(file, t, t);
};

describe('ResponseCache', () => {
  it('writes an entry as one private file under its key’s shard and reads it back', () => {
    const cache = new ResponseCache(join(tempDir(), 'c'));
    const e = entry('one');
    expect(cache.read(e.key)).toBeNull();
    cache.write(e);
    const file = pathOf(cache.folder, e.key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(cache.read(e.key)).toEqual(e);
    // No staged file is left beside it.
    expect(readdirSync(join(cache.folder, e.key.slice(0, 2)))).toEqual([`${e.key}.json`]);
  });

  it('reads a damaged, foreign or misfiled entry as a miss, never an error', () => {
    const cache = new ResponseCache(join(tempDir(), 'c'));
    const e = entry('one');
    cache.write(e);
    const file = pathOf(cache.folder, e.key);
    writeFileSync(file, '{"format":1,');
    expect(cache.read(e.key)).toBeNull();
    writeFileSync(file, JSON.stringify({ ...e, format: CACHE_FORMAT + 1 }));
    expect(cache.read(e.key)).toBeNull();
    const other = entry('two');
    writeFileSync(file, JSON.stringify(other));
    expect(cache.read(e.key)).toBeNull();
  });

  it('refuses to write an entry that is not one', () => {
    const cache = new ResponseCache(join(tempDir(), 'c'));
    expect(() => cache.write({ ...entry('one'), key: 'not-a-sha' })).toThrow();
    expect(existsSync(cache.folder)).toBe(false);
  });

  it('marks a hit as used, for clear --older-than', () => {
    const cache = new ResponseCache(join(tempDir(), 'c'));
    const e = entry('one');
    cache.write(e);
    const file = pathOf(cache.folder, e.key);
    ago(file, 40 * 86_400_000);
    cache.read(e.key);
    expect(Date.now() - statSync(file).mtimeMs).toBeLessThan(60_000);
  });

  it('stats: entries, bytes, oldest and newest; staged files and strangers are not entries', () => {
    const cache = new ResponseCache(join(tempDir(), 'c'));
    expect(cache.stats()).toEqual({ folder: cache.folder, entries: 0, bytes: 0, oldest: null, newest: null });
    const a = entry('a');
    const b = entry('b', 'a longer reply to b');
    cache.write(a);
    cache.write(b);
    ago(pathOf(cache.folder, a.key), 10 * 86_400_000);
    const shard = join(cache.folder, a.key.slice(0, 2));
    writeFileSync(join(shard, `.${a.key}.json.1234.0123abcd.tmp`), 'half');
    writeFileSync(join(shard, 'notes.txt'), 'mine');
    mkdirSync(join(cache.folder, 'not-a-shard'));
    const bytes = statSync(pathOf(cache.folder, a.key)).size + statSync(pathOf(cache.folder, b.key)).size;
    const s = cache.stats();
    expect(s).toMatchObject({ entries: 2, bytes });
    expect(Date.parse(s.oldest!)).toBeLessThan(Date.now() - 9 * 86_400_000);
    expect(Date.now() - Date.parse(s.newest!)).toBeLessThan(60_000);
  });

  it('clear removes the entries unused since a time, or all of them, with old staged files', () => {
    const cache = new ResponseCache(join(tempDir(), 'c'));
    const old = entry('old');
    const fresh = entry('fresh');
    cache.write(old);
    cache.write(fresh);
    const oldFile = pathOf(cache.folder, old.key);
    ago(oldFile, 31 * 86_400_000);
    const staged = join(cache.folder, old.key.slice(0, 2), `.${old.key}.json.1234.0123abcd.tmp`);
    writeFileSync(staged, 'half');
    ago(staged, 31 * 86_400_000);
    const size = statSync(oldFile).size;
    expect(cache.clear(Date.now() - 30 * 86_400_000)).toEqual({ entries: 1, bytes: size });
    expect(existsSync(oldFile)).toBe(false);
    expect(existsSync(staged)).toBe(false);
    expect(cache.read(fresh.key)).toEqual(fresh);
    expect(cache.clear()).toMatchObject({ entries: 1 });
    expect(cache.stats().entries).toBe(0);
    // A folder that is not there has nothing to clear.
    expect(new ResponseCache(join(tempDir(), 'none')).clear()).toEqual({ entries: 0, bytes: 0 });
  });
});
