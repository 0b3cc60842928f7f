/** What `bounce suggest` prints (no imports: --help reads these). */
export const SUGGEST_FORMATS = ['rdjsonl', 'rdjson', 'github-suggestions'] as const;
export type SuggestFormat = (typeof SUGGEST_FORMATS)[number];
