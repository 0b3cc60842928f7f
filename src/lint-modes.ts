/**
 * What a run does with the notes a pass adds that break a lint rule (docs/lint.md): nothing,
 * a warning, or a repair request naming them (config `lint`, `refine --lint`). No imports:
 * --help reads these; src/vocabulary.ts builds the zod enum from them.
 */
export const LINT_MODES = ['off', 'warn', 'repair'] as const;
export type LintMode = (typeof LINT_MODES)[number];
