import { usageError } from '../errors.js';

/** `--shard i/n`: this job's part (1-based) of a batch split into `count` parts. */
export interface Shard {
  index: number;
  count: number;
}

export const MAX_SHARDS = 1000;

/** Parses `i/n` (1 <= i <= n <= 1000); anything else is a usage error naming the form. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d{1,4})\s*\/\s*(\d{1,4})\s*$/.exec(text);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || count < 1 || count > MAX_SHARDS || index < 1 || index > count)
    throw usageError(
      `--shard must be i/n with 1 <= i <= n <= ${MAX_SHARDS}, not ${JSON.stringify(text)}`,
      'pass e.g. --shard 1/4 in the first of 4 jobs (GitHub Actions: strategy.matrix)',
      'usage',
    );
  return { index, count };
}

/** The form every shard sorts by: forward slashes, no leading `./`, Unicode NFC. */
export function normalisedPath(label: string): string {
  return label
    .replace(/\\/g, '/')
    .replace(/^(?:\.\/)+/, '')
    .normalize('NFC');
}

/**
 * This shard's items: sorted by normalised path (code-unit order, no locale), the k-th
 * (0-based) goes to shard (k mod n) + 1. So the n shards of one set are disjoint and
 * together hold every item, sizes differ by at most one, and the split does not depend on
 * the order the arguments came in: n CI jobs that name the same documents split them
 * with no overlap and no gap.
 */
export function shardOf<T>(items: readonly T[], labelOf: (item: T) => string, shard: Shard): T[] {
  const keyed = items.map((item) => ({ item, key: normalisedPath(labelOf(item)) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.filter((_, k) => k % shard.count === shard.index - 1).map((x) => x.item);
}
