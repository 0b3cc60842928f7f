/**
 * The answer key of a benchmark document (`bounce bench`, docs/defect-bench.md): `NAME.md`
 * beside `NAME.defects.yaml`, a list of the defects planted in it. The schema is declared
 * here, once; the corpus reader (corpus.ts), the scorer (score.ts) and the planting tool
 * (plant.ts) all take it from here.
 */
import { z } from 'zod';
import { usageError } from '../errors.js';
import { countLines } from '../text/lines.js';
import { yamlLib } from '../yaml.js';

/** What kind of defect was planted: the six the corpus covers. */
export const DefectKindSchema = z.enum(['contradiction', 'wrong-number', 'undefined-term', 'ambiguous-scope', 'missing-step', 'stale-reference']);
export type DefectKind = z.infer<typeof DefectKindSchema>;
export const DEFECT_KINDS: readonly DefectKind[] = DefectKindSchema.options;

/** When a defect counts as fixed, checked on the final document: a text gone from it, or a text in it. */
export const FixedWhenSchema = z
  .object({ absent: z.string().min(1).optional(), present: z.string().min(1).optional() })
  .strict()
  .refine((f) => (f.absent === undefined) !== (f.present === undefined), 'must be {absent: TEXT} or {present: TEXT}, one of them');
export type FixedWhen = z.infer<typeof FixedWhenSchema>;

export const DefectSchema = z
  .object({
    /** Unique within its document. */
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be a word of letters, digits, ".", "_" or "-"'),
    /** The 1-based line of the defect in the document. */
    line: z.number().int().positive(),
    kind: DefectKindSchema,
    /** What is wrong, for people: never sent to an agent. */
    description: z.string().min(1),
    fixed_when: FixedWhenSchema,
  })
  .strict();
export type Defect = z.infer<typeof DefectSchema>;

export const AnswerKeySchema = z.array(DefectSchema).min(1, 'must list at least one defect');

/** The answer key's file name beside a document: `NAME.md` -> `NAME.defects.yaml`. */
export const KEY_SUFFIX = '.defects.yaml';
export const keyNameFor = (docName: string): string => `${docName.replace(/\.md$/i, '')}${KEY_SUFFIX}`;

/** A zod issue path as a reader writes it: `[2].fixed_when.absent`. */
function fieldOf(path: readonly (string | number)[]): string {
  return (
    path
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
      .join('')
      .replace(/^\./, '') || '(the whole file)'
  );
}

/** Runs of whitespace collapsed and letters in lower case, so that rewrapping a paragraph or a capital neither fixes nor breaks a `fixed_when`. */
export const normaliseText = (text: string): string => text.replace(/\s+/g, ' ').trim().toLowerCase();

/** Whether a defect's `fixed_when` holds in `text` (the final document). */
export function fixedIn(fixedWhen: FixedWhen, text: string): boolean {
  const doc = normaliseText(text);
  if (fixedWhen.absent !== undefined) return !doc.includes(normaliseText(fixedWhen.absent));
  return doc.includes(normaliseText(fixedWhen.present ?? ''));
}

/**
 * Reads and checks an answer key against its document: the schema (strict: an unknown field
 * is an error), ids unique, each line inside the document, and no `fixed_when` that already
 * holds in the document (a defect fixed before any agent saw it). Each problem is one line
 * naming the file and the field (exit 2).
 */
export function parseAnswerKey(keyText: string, keyLabel: string, doc: string): Defect[] {
  let raw: unknown;
  try {
    raw = yamlLib().parse(keyText);
  } catch (err) {
    const detail = (err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)).replace(/:\s*$/, '');
    throw usageError(`${keyLabel}: not valid YAML (${detail})`, 'fix the answer key (docs/defect-bench.md, "Answer keys")', 'input');
  }
  const parsed = AnswerKeySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const unknown = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
    throw usageError(
      `${keyLabel}: ${fieldOf(issue.path)}: ${issue.message}${unknown}`,
      'each entry is {id, line, kind, description, fixed_when: {absent: TEXT} or {present: TEXT}} (docs/defect-bench.md, "Answer keys")',
      'input',
    );
  }
  const lines = countLines(doc);
  const seen = new Set<string>();
  parsed.data.forEach((d, i) => {
    if (seen.has(d.id)) throw usageError(`${keyLabel}: [${i}].id: "${d.id}" is listed twice`, 'give each defect of a document its own id', 'input');
    seen.add(d.id);
    if (d.line > lines)
      throw usageError(`${keyLabel}: [${i}].line: ${d.line} is past the document's last line (${lines})`, 'point line at the defect, 1-based', 'input');
    if (fixedIn(d.fixed_when, doc))
      throw usageError(
        `${keyLabel}: [${i}].fixed_when: already holds in the document (${d.fixed_when.absent !== undefined ? `"${d.fixed_when.absent}" is not in it` : `"${d.fixed_when.present}" is in it`})`,
        'name a text the defect has (absent) or its fix would add (present)',
        'input',
      );
  });
  return parsed.data;
}

/** The answer key as a file writes it (the planting tool's output). */
export function answerKeyYaml(defects: readonly Defect[]): string {
  return yamlLib().stringify(AnswerKeySchema.parse(defects), { lineWidth: 0 });
}
