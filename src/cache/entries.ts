/**
 * The response cache on disk: one JSON file per key, `<folder>/<first 2 hex of key>/<key>.json`,
 * written atomically (a temporary file renamed over the entry), so concurrent runs writing the
 * same key leave one whole entry, never a torn one; the last writer wins and both were the
 * same answer to the same question. A file that cannot be read or parsed is a miss, never an
 * error: the cache can only save calls, never change what a run does.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { stagedBy, writeFileAtomic } from '../atomic.js';
import { AdapterSuccessSchema } from '../contract/contract.js';
import { CACHE_FORMAT } from './key.js';

const Sha = z.string().regex(/^[0-9a-f]{64}$/);

export const CacheEntrySchema = z
  .object({
    format: z.literal(CACHE_FORMAT),
    key: Sha,
    created_at: z.string().datetime({ offset: true }),
    /** The dispatch that got this reply from its agent, and its run. */
    of: z.string().min(1),
    run: z.string().min(1),
    adapter: z.string().min(1),
    prompt_sha256: Sha,
    /** The adapter's response, its reply with the prompt's nonces as slots (key.ts). */
    response: AdapterSuccessSchema,
  })
  .strict();
export type CacheEntry = z.infer<typeof CacheEntrySchema>;

const ENTRY_MODE = 0o600;
const DIR_MODE = 0o700;
const KEY_FILE = /^[0-9a-f]{64}\.json$/;
const SHARD = /^[0-9a-f]{2}$/;

export interface CacheStats {
  folder: string;
  entries: number;
  bytes: number;
  /** Last written or used, ISO 8601; null when empty. */
  oldest: string | null;
  newest: string | null;
}

/** One file of the folder: an entry, or a staged write its writer left behind. */
interface CacheFile {
  path: string;
  bytes: number;
  mtimeMs: number;
  staged: boolean;
}

export class ResponseCache {
  constructor(readonly folder: string) {}

  private pathOf(key: string): string {
    return join(this.folder, key.slice(0, 2), `${key}.json`);
  }

  /** The entry for a key, or null (absent, unreadable, another format). A hit is marked used (its mtime), for `clear --older-than`. */
  read(key: string): CacheEntry | null {
    const path = this.pathOf(key);
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      return null;
    }
    const parsed = CacheEntrySchema.safeParse(data);
    if (!parsed.success || parsed.data.key !== key) return null;
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch {
      // A read-only cache still answers.
    }
    return parsed.data;
  }

  /** Writes an entry atomically (validated first). */
  write(entry: CacheEntry): void {
    const checked = CacheEntrySchema.parse(entry);
    const path = this.pathOf(checked.key);
    mkdirSync(join(this.folder, checked.key.slice(0, 2)), { recursive: true, mode: DIR_MODE });
    writeFileAtomic(path, `${JSON.stringify(checked)}\n`, { mode: ENTRY_MODE, sync: false });
  }

  private files(): CacheFile[] {
    if (!existsSync(this.folder)) return [];
    const out: CacheFile[] = [];
    for (const shard of readdirSync(this.folder).filter((n) => SHARD.test(n))) {
      const dir = join(this.folder, shard);
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        const staged = stagedBy(name) !== null;
        if (!staged && !KEY_FILE.test(name)) continue;
        try {
          const s = statSync(join(dir, name));
          out.push({ path: join(dir, name), bytes: s.size, mtimeMs: s.mtimeMs, staged });
        } catch {
          // Removed meanwhile by another bounce.
        }
      }
    }
    return out;
  }

  stats(): CacheStats {
    const entries = this.files().filter((f) => !f.staged);
    const times = entries.map((f) => f.mtimeMs);
    const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());
    return {
      folder: this.folder,
      entries: entries.length,
      bytes: entries.reduce((n, f) => n + f.bytes, 0),
      oldest: iso(times.length ? Math.min(...times) : undefined),
      newest: iso(times.length ? Math.max(...times) : undefined),
    };
  }

  /**
   * Removes the entries last written or used before `before` (epoch ms; all of them when
   * absent), and the staged files of writes that old. Returns what was removed.
   */
  clear(before?: number): { entries: number; bytes: number } {
    let entries = 0;
    let bytes = 0;
    for (const f of this.files()) {
      if (before !== undefined && f.mtimeMs >= before) continue;
      rmSync(f.path, { force: true });
      if (f.staged) continue;
      entries += 1;
      bytes += f.bytes;
    }
    return { entries, bytes };
  }
}
