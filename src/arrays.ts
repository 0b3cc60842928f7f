/**
 * Helpers for arrays of any length. `into.push(...items)` and `Math.max(...values)` pass each
 * item as an argument, and past about a hundred thousand items that overflows the call stack
 * (RangeError): a document's lines, a scan's notes, a batch's runs are unbounded.
 */

/** Appends every item to `into`, one at a time; returns `into`. */
export function pushAll<T>(into: T[], items: Iterable<T>): T[] {
  for (const item of items) into.push(item);
  return into;
}

/** `Math.max(floor, ...values)` for any number of values: the largest, or `floor` when none is larger. */
export function maxOf(floor: number, values: Iterable<number>): number {
  let max = floor;
  for (const v of values) if (v > max) max = v;
  return max;
}

/** In an ascending array, the index of the first value at least `value`; `sorted.length` when there is none. */
export function firstAtLeast(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Appends `value` to the list `map` holds under `key`, starting the list when there is none. */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
