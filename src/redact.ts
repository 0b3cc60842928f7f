/** What stands where a key value was. */
export const REDACTED = '[REDACTED]';
/** Shorter values are not taken for keys: blanking them would mangle ordinary text. */
export const MIN_SECRET_LENGTH = 6;

/** The key values worth looking for: set, long enough, longest first (so one inside another is still found). */
export function secretsOf(values: Iterable<string | undefined>): string[] {
  return [...new Set([...values].filter((v): v is string => typeof v === 'string' && v.trim().length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
}

/** `text` with every occurrence of each secret replaced by `marker` (REDACTED by default), and how many there were. */
export function redactCounting(text: string, secrets: readonly (string | undefined)[], marker = REDACTED): { text: string; count: number } {
  let count = 0;
  let out = text;
  for (const s of secrets) {
    if (!s || !out.includes(s)) continue;
    const parts = out.split(s);
    count += parts.length - 1;
    out = parts.join(marker);
  }
  return { text: out, count };
}
