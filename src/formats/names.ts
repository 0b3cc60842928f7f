/** The output formats and severity levels of scan and lint (no imports: --help reads these). */
export const FORMATS = ['text', 'json', 'github', 'sarif', 'codequality', 'junit', 'rdjsonl', 'rdjson'] as const;
export type Format = (typeof FORMATS)[number];

export const LEVELS = ['error', 'warning', 'notice'] as const;
export type Level = (typeof LEVELS)[number];
