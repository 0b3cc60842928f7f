/**
 * CLI versions remembered on disk between invocations, so a run need not start `claude
 * --version` and `codex --version` (a few hundred ms) before its first dispatch. An entry
 * is keyed by the program's resolved path and holds that file's size and mtime: an update
 * or reinstall changes them and the version is asked again. Only `refine` and `resume` use
 * it; `bounce check` always asks the CLI. Every failure to read or write is ignored: the
 * cache can only save time, never change an answer the CLI would give.
 */
import { mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../atomic.js';
import type { VersionCache } from '../kit/detect.js';

interface Entry {
  size: number;
  mtimeMs: number;
  version: string;
}

/** bounce's cache folder: `$XDG_CACHE_HOME/bounce`, else `~/.cache/bounce` (the CLI versions, the response cache). */
export function bounceCacheDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME?.trim() || join(env.HOME || homedir(), '.cache'), 'bounce');
}

/** `$XDG_CACHE_HOME/bounce/cli-versions.json`, else `~/.cache/bounce/cli-versions.json`. */
export function versionCachePath(env: NodeJS.ProcessEnv): string {
  return join(bounceCacheDir(env), 'cli-versions.json');
}

/** What identifies a program's file: its real path, size and mtime; null when it cannot be read. */
function identify(program: string): { path: string; size: number; mtimeMs: number } | null {
  try {
    const path = realpathSync(program);
    const s = statSync(path);
    return { path, size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return null;
  }
}

export function diskVersionCache(file: string): VersionCache {
  let entries: Record<string, Entry> | null = null;
  const load = (): Record<string, Entry> => {
    if (entries) return entries;
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      entries = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, Entry>) : {};
    } catch {
      entries = {};
    }
    return entries;
  };
  return {
    get(program) {
      const id = identify(program);
      const e = id ? load()[id.path] : undefined;
      if (!id || !e || typeof e.version !== 'string' || e.size !== id.size || e.mtimeMs !== id.mtimeMs) return undefined;
      return e.version;
    },
    set(program, version) {
      const id = identify(program);
      if (!id) return;
      const all = load();
      all[id.path] = { size: id.size, mtimeMs: id.mtimeMs, version };
      try {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        writeFileAtomic(file, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600, sync: false });
      } catch {
        // A read-only or missing home: the next run asks the CLI again.
      }
    },
  };
}
