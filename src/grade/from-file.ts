import { usageError } from '../errors.js';
import { didYouMean } from '../suggest.js';
import { readSmallFile } from '../text-input.js';
import { type GradeVerdict, GradeVerdictSchema } from '../vocabulary.js';
import { yamlLib } from '../yaml.js';

const VERDICTS = GradeVerdictSchema.options.join(', ');
const SHOWN = 60;
const shown = (s: string): string => JSON.stringify(s.length > SHOWN ? `${s.slice(0, SHOWN)}...` : s);

/**
 * `bounce grade --from FILE`: a YAML map of finding id to verdict (docs/grading.md). Every id
 * must be a finding of the run (`known`) and every value a verdict; the first that is not is
 * a usage error naming it, and nothing is written.
 */
export function parseVerdicts(text: string, label: string, known: readonly string[]): Map<string, GradeVerdict> {
  let doc: unknown;
  try {
    doc = yamlLib().parse(text);
  } catch (err) {
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw usageError(`${label}: invalid YAML: ${first}`, 'write one line per finding: <finding id>: accepted|rejected|skipped');
  }
  if (doc === null || doc === undefined) throw usageError(`${label} holds no verdicts`, 'write one line per finding: <finding id>: accepted|rejected|skipped');
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw usageError(`${label} is not a map of finding id to verdict`, 'write one line per finding: <finding id>: accepted|rejected|skipped');
  const ids = new Set(known);
  const out = new Map<string, GradeVerdict>();
  for (const [id, value] of Object.entries(doc as Record<string, unknown>)) {
    if (!ids.has(id)) {
      const near = didYouMean(id, known);
      throw usageError(
        `${label}: ${shown(id)} is no finding of this run`,
        near ? `did you mean ${near}? (bounce grade --list prints them)` : 'bounce grade --list prints the ids of the findings it grades',
      );
    }
    const verdict = GradeVerdictSchema.safeParse(value);
    if (!verdict.success) throw usageError(`${label}: the verdict of ${id} is ${shown(String(value))}`, `use one of ${VERDICTS}`);
    out.set(id, verdict.data);
  }
  return out;
}

/** Reads and parses the --from file (a regular file of at most 1 MiB). */
export function readVerdicts(path: string, label: string, known: readonly string[]): Map<string, GradeVerdict> {
  return parseVerdicts(readSmallFile(path, label, 'input'), label, known);
}
