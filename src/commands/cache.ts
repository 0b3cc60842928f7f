/**
 * `bounce cache stats` and `bounce cache clear [--older-than AGE]`: the response cache's folder
 * (src/cache/entries.ts) as `--cache DIR`, else config `cache` (a folder), else the default,
 * names it (src/cache/folder.ts), whether or not runs have the cache on.
 */
import { cacheFolderOf } from '../cache/folder.js';
import { ResponseCache } from '../cache/entries.js';
import { ageMs } from '../option-values.js';
import type { Io } from '../io.js';
import { plural } from '../plural.js';

export { ageMs } from '../option-values.js';

export interface CacheOptions {
  /** --cache DIR: the folder, relative to the current directory. */
  cache?: string;
  config?: string;
  json?: boolean;
}

export interface CacheClearOptions extends Omit<CacheOptions, 'json'> {
  /** --older-than AGE: only entries last written or used longer ago than that. */
  olderThan?: string;
}

function cacheOf(opts: CacheOptions, io: Io): ResponseCache {
  // `--cache` on: the folder a run with --cache would use (config `cache` false is only about runs).
  return new ResponseCache(cacheFolderOf(opts.cache ?? true, io, opts.config) as string);
}

/** `bounce cache stats`: the folder, its entries and bytes, the oldest and newest (last written or used). Exit 0. */
export async function runCacheStats(opts: CacheOptions, io: Io): Promise<number> {
  const stats = cacheOf(opts, io).stats();
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(stats)}\n`);
    return 0;
  }
  const lines = [
    `response cache: ${stats.folder}`,
    `${plural(stats.entries, 'entry', 'entries')}, ${plural(stats.bytes, 'byte')}`,
    ...(stats.oldest ? [`oldest: ${stats.oldest}`, `newest: ${stats.newest}`] : []),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** `bounce cache clear`: removes every entry, or with --older-than those not written or used for that long. Exit 0. */
export async function runCacheClear(opts: CacheClearOptions, io: Io, now = Date.now()): Promise<number> {
  // The age is checked before the folder is looked for: a bad --older-than is the error to report.
  const before = opts.olderThan === undefined ? undefined : now - ageMs(opts.olderThan);
  const cache = cacheOf(opts, io);
  const removed = cache.clear(before);
  const which = before === undefined ? '' : ` not used since ${new Date(before).toISOString()}`;
  io.stdout.write(`removed ${plural(removed.entries, 'entry', 'entries')}${which} (${plural(removed.bytes, 'byte')}) from ${cache.folder}\n`);
  return 0;
}
