/** `bounce decide --answers FILE`: a YAML map of finding id to `reviewer`, `composer` or `{text: ...}` (docs/human.md). */
import { z } from 'zod';
import { usageError } from '../errors.js';
import { didYouMean } from '../suggest.js';
import { readSmallFile } from '../text-input.js';
import { yamlLib } from '../yaml.js';

/** What a person decided about one note: the reviewer's side, the composer's, or their own text. */
export type Decision = { side: 'reviewer' | 'composer' } | { side: 'own'; text: string };

export const AnswerSchema = z.union([z.literal('reviewer'), z.literal('composer'), z.object({ text: z.string().trim().min(1, 'the text is empty') }).strict()]);

const FORM = 'write one line per note: <finding id>: reviewer, <finding id>: composer, or <finding id>: {text: "your own text"}';
const SHOWN = 60;
const shown = (s: string): string => JSON.stringify(s.length > SHOWN ? `${s.slice(0, SHOWN)}...` : s);

export function decisionOf(answer: z.infer<typeof AnswerSchema>): Decision {
  return typeof answer === 'string' ? { side: answer } : { side: 'own', text: answer.text.replace(/\s+/g, ' ').trim() };
}

/**
 * The answers in `text`, one per note to decide (`ids`): an id that is no such note, a value
 * of another form, or a note left out is a usage error naming it, and nothing is decided.
 */
export function parseAnswers(text: string, label: string, ids: readonly string[]): Map<string, Decision> {
  let doc: unknown;
  try {
    doc = yamlLib().parse(text);
  } catch (err) {
    throw usageError(`${label}: invalid YAML: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`, FORM);
  }
  if (doc === null || doc === undefined || typeof doc !== 'object' || Array.isArray(doc))
    throw usageError(`${label} is not a map of finding id to answer`, FORM);
  const known = new Set(ids);
  const out = new Map<string, Decision>();
  for (const [id, value] of Object.entries(doc as Record<string, unknown>)) {
    if (!known.has(id)) {
      const near = didYouMean(id, ids);
      throw usageError(
        `${label}: ${shown(id)} is no note this run left to decide`,
        `${near ? `did you mean ${near}? ` : ''}bounce decide --list prints their ids`,
      );
    }
    const answer = AnswerSchema.safeParse(value);
    if (!answer.success) {
      const issue = answer.error.issues.find((i) => i.code !== 'invalid_union')?.message;
      throw usageError(
        `${label}: the answer for ${id} is ${shown(JSON.stringify(value) ?? String(value))}${issue ? ` (${issue})` : ''}`,
        'answer reviewer, composer, or {text: "your own text"}',
      );
    }
    out.set(id, decisionOf(answer.data));
  }
  const missing = ids.filter((id) => !out.has(id));
  if (missing.length > 0)
    throw usageError(
      `${label} has no answer for ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ` and ${missing.length - 3} more` : ''}`,
      'answer every note: bounce decide --list prints them',
    );
  return out;
}

/** Reads and parses the --answers file (a regular file of at most 1 MiB). */
export function readAnswers(path: string, label: string, ids: readonly string[]): Map<string, Decision> {
  return parseAnswers(readSmallFile(path, label, 'input'), label, ids);
}
