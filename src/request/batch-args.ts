import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isGlob } from '../documents.js';

/**
 * Whether `bounce refine` with these arguments is a batch: several paths, a folder, a glob,
 * or a batch-only flag (--concurrency, --shard, --changed). Decided by the arguments, never by
 * how many documents they match, so a script always gets the same kind of result.
 */
export async function isBatch(docs: readonly string[], flags: { concurrency?: unknown; shard?: unknown; changed?: unknown }, cwd: string): Promise<boolean> {
  if (docs.length > 1 || flags.concurrency !== undefined || flags.shard !== undefined || flags.changed !== undefined) return true;
  const [doc] = docs;
  if (doc === undefined || doc === '-') return false;
  try {
    return statSync(resolve(cwd, doc)).isDirectory();
  } catch {
    // No such file: a glob, as the batch's path expansion reads one.
    return isGlob(doc);
  }
}
