/**
 * The live gate's results of the day (`refine --gate`, config `gate: live`), kept in bounce's
 * cache folder as `gate-<UTC date>.json`: an agent that passed today is not sent the fixture
 * again until tomorrow, or until it or the prompts change (the key says what it depends on,
 * src/gate/live.ts). Only passes are kept: a failure is checked again on the next run. Every
 * failure to read or write is ignored: the cache can only save a call, never pass an agent.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic.js';
import { bounceCacheDir } from './version-cache.js';

/** What is kept of a pass: the agent's spec and what the check cost then. */
export interface GatePass {
  agent: string;
  duration_ms: number;
  tokens: number | null;
  cost_usd: number | null;
  at: string;
}

/** `$XDG_CACHE_HOME/bounce/gate-<date>.json`, else `~/.cache/bounce/gate-<date>.json`. */
export function gateCachePath(env: NodeJS.ProcessEnv, day: string): string {
  return join(bounceCacheDir(env), `gate-${day}.json`);
}

export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

export interface GateCache {
  get(key: string): GatePass | undefined;
  set(key: string, pass: GatePass): void;
}

export function diskGateCache(env: NodeJS.ProcessEnv, now: number): GateCache {
  const file = gateCachePath(env, utcDay(now));
  const load = (): Record<string, GatePass> => {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, GatePass>) : {};
    } catch {
      return {};
    }
  };
  return {
    get(key) {
      const entry = load()[key];
      return entry && typeof entry.agent === 'string' && typeof entry.duration_ms === 'number' ? entry : undefined;
    },
    set(key, pass) {
      const all = { ...load(), [key]: pass };
      try {
        mkdirSync(bounceCacheDir(env), { recursive: true, mode: 0o700 });
        writeFileAtomic(file, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600, sync: false });
      } catch {
        // A read-only or missing home: the next run checks the agent again.
      }
    },
  };
}
