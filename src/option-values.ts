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
