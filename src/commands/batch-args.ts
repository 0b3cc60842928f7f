import { statSync } from 'node:fs';
import { resolve } from 'node:path';

/** Characters that make an argument that names no file a glob (tinyglobby's syntax). */
const GLOB_CHARS = /[*?[\]{}!]/;

/**
 * Whether `bounce refine` with these arguments is a batch: several paths, a folder, a glob,
 * or a batch-only flag (--concurrency, --shard, --changed). Decided by the arguments, never by
 * how many documents they match, so a script always gets the same kind of result.
 */
export function isBatch(docs: readonly string[], flags: { concurrency?: unknown; shard?: unknown; changed?: unknown }, cwd: string): boolean {
  if (docs.length > 1 || flags.concurrency !== undefined || flags.shard !== undefined || flags.changed !== undefined) return true;
  const [doc] = docs;
  if (doc === undefined || doc === '-') return false;
  try {
    return statSync(resolve(cwd, doc)).isDirectory();
  } catch {
    return GLOB_CHARS.test(doc);
  }
}
