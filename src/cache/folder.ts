import { dirname, join, resolve } from 'node:path';
import { loadConfigKeys } from '../config/load.js';
import { bounceCacheDir } from '../preflight/version-cache.js';

/** `--cache` (true), `--cache DIR` (a folder), `--no-cache` (false), or neither (undefined). */
export type CacheFlag = boolean | string | undefined;

/** The response cache's default folder: `$XDG_CACHE_HOME/bounce/responses`, else `~/.cache/bounce/responses`. */
export function defaultCacheFolder(env: NodeJS.ProcessEnv): string {
  return join(bounceCacheDir(env), 'responses');
}

/**
 * The folder a run's response cache is in, or null for none: `--no-cache` turns it off,
 * `--cache DIR` names it (relative to the current directory), `--cache` turns it on in
 * config `cache`'s folder if it names one, else the default; without a flag, config `cache`
 * decides (a folder relative to the config file's), and the cache is off when it is absent.
 */
export function cacheFolderFor(
  flag: CacheFlag,
  config: { cache?: boolean | string | undefined },
  where: { cwd: string; configDir: string | null; env: NodeJS.ProcessEnv },
): string | null {
  if (flag === false) return null;
  if (typeof flag === 'string') return resolve(where.cwd, flag);
  const setting = config.cache;
  if (flag === undefined && (setting === undefined || setting === false)) return null;
  if (typeof setting === 'string') return resolve(where.configDir ?? where.cwd, setting);
  return defaultCacheFolder(where.env);
}

/** cacheFolderFor with the config file read for its `cache` key (`--config`, else the one found from cwd). */
export function cacheFolderOf(flag: CacheFlag, io: { cwd: string; env: NodeJS.ProcessEnv }, explicitConfig: string | undefined): string | null {
  if (flag === false || typeof flag === 'string') return cacheFolderFor(flag, {}, { ...io, configDir: null });
  const loaded = loadConfigKeys(io.cwd, io.env, explicitConfig, ['cache']);
  return cacheFolderFor(flag, loaded.config, { ...io, configDir: loaded.path ? dirname(loaded.path) : null });
}
