/**
 * Options that take several values take one per use (`--context a.md --context b.md`), the
 * usual convention, so an option never swallows the document after it. Names that cannot
 * hold a comma (`--marker`, `--rules`) also take a comma-separated list.
 */
import { usageError } from './errors.js';

/** Commander's argument parser of a repeatable option: each use adds its value. */
export function repeatable(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A repeatable option whose values are names: `--marker RISK,TODO` is `--marker RISK --marker TODO`. */
export function commaList(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').map((v) => v.trim())];
}

/**
 * `bounce refine a.md --context c.md b.md`: with one value per use, b.md is a second document,
 * where the same words once gave c.md and b.md as context. Refused, naming both readings, rather
 * than refining a reference file. `tokens` are the command's arguments as typed.
 */
export function assertContextValues(tokens: readonly string[], docs: readonly string[]): void {
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    const joined = token.startsWith('--context=');
    if (token !== '--context' && !joined) continue;
    const value = joined ? token.slice('--context='.length) : tokens[i + 1];
    const next = tokens[joined ? i + 1 : i + 2];
    if (value === undefined || next === undefined || docs.indexOf(next) < 1) continue;
    throw usageError(
      `${next} after --context ${value} is read as another document to refine, not as context`,
      `--context takes one path per use: write --context ${value} --context ${next} for two reference files, or put ${next} before the options to refine it too`,
      'usage',
    );
  }
}

const AGE_UNIT_MS: Readonly<Record<string, number>> = { d: 86_400_000, h: 3_600_000, m: 60_000 };

/** `30d`, `12h`, `90m` in milliseconds; anything else is a usage error naming the form and the flag. */
export function ageMs(value: string, flag = '--older-than'): number {
  const m = /^(\d{1,9})([dhm])$/.exec(value.trim());
  if (!m) {
    const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
    throw usageError(`${flag} ${shown} is not an age`, `give a whole number and a unit, d (days), h (hours) or m (minutes): ${flag} 30d`);
  }
  return Number(m[1]) * (AGE_UNIT_MS[m[2] as string] as number);
}
