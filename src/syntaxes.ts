/**
 * How a document is read (no imports: --help reads these; vocabulary.ts makes the zod enum):
 * CommonMark; plain text (source code too) where every marker counts; JSON and YAML, read
 * like plain text but required to parse after every pass, a note running to the end of its
 * JSON string or YAML comment.
 */
export const SYNTAXES = ['markdown', 'plain', 'json', 'yaml'] as const;
