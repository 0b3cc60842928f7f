/**
 * `table[key]` when `key` is one of the table's own keys, else undefined. A name a user
 * typed (an agent, a provider, a marker) may be `constructor`, `__proto__` or `toString`,
 * which a plain object answers from Object.prototype.
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
