import { type DispatchOutcome, type DispatchRecord, type Grade, type GradeVerdictEntry, MAX_REASON_CHARS } from '../store/record-schema.js';
import type { GradeVerdict } from '../vocabulary.js';

/**
 * How new verdicts join a record's grade (docs/grading.md, "Grading again"):
 * - `continue`: into the current grade, in place (a grading session's own later verdicts,
 *   `back` included);
 * - `auto`: into the current grade when it is the same grader's and no verdict in it changes
 *   (a session resumed, or the same --from file given again); otherwise a new grade, and the
 *   current one goes to `grade.history`. A new grade by the same grader keeps the verdicts it
 *   does not change; another grader's starts with its own only;
 * - `fresh`: always a new grade with these verdicts only (`bounce grade --again`).
 */
export type GradeMode = 'continue' | 'auto' | 'fresh';

/** The record's findings, in order, that `entries` names. */
function inOrder(rec: DispatchRecord, entries: ReadonlyMap<string, GradeVerdictEntry>): GradeVerdictEntry[] {
  return (rec.response?.findings ?? []).flatMap((f) => {
    const e = entries.get(f.id);
    return e ? [e] : [];
  });
}

/** `base` with `changes` put in, in the order of the record's findings. */
function merged(rec: DispatchRecord, base: readonly GradeVerdictEntry[], changes: readonly GradeVerdictEntry[]): GradeVerdictEntry[] {
  const all = new Map<string, GradeVerdictEntry>(base.map((v) => [v.finding, v]));
  for (const c of changes) all.set(c.finding, c);
  return inOrder(rec, all);
}

const same = (a: readonly GradeVerdictEntry[], b: readonly GradeVerdictEntry[]): boolean =>
  a.length === b.length && a.every((v, i) => v.finding === b[i]?.finding && v.verdict === b[i]?.verdict && v.reason === b[i]?.reason);

/** A reason kept with a verdict: one line, cut at MAX_REASON_CHARS. */
function keptReason(reason: string | undefined): string | undefined {
  const line = reason?.replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return line.length > MAX_REASON_CHARS ? `${line.slice(0, MAX_REASON_CHARS - 1).trimEnd()}…` : line;
}

/**
 * The record's grading fields once `verdicts` (finding id to verdict; ids of other records
 * are ignored) are given by `grader` at `at`, each with its reason in `reasons` if it has one
 * (an agent's); null when nothing changes.
 */
export function nextGrading(
  rec: DispatchRecord,
  verdicts: ReadonlyMap<string, GradeVerdict>,
  grader: string,
  at: Date,
  mode: GradeMode,
  reasons: ReadonlyMap<string, string> = new Map(),
): Pick<DispatchOutcome, 'graded_at' | 'grade'> | null {
  const entries = new Map<string, GradeVerdictEntry>();
  for (const [finding, verdict] of verdicts) {
    const reason = keptReason(reasons.get(finding));
    entries.set(finding, { finding, verdict, ...(reason ? { reason } : {}) });
  }
  const given = inOrder(rec, entries);
  if (given.length === 0) return null;
  const cur = rec.outcome.grade;
  const stamp = at.toISOString();
  const keep = (g: Grade, list: GradeVerdictEntry[]): Pick<DispatchOutcome, 'graded_at' | 'grade'> | null =>
    same(list, g.verdicts) ? null : { graded_at: stamp, grade: { ...g, verdicts: list } };
  if (!cur) return { graded_at: stamp, grade: { grader, verdicts: given, history: [] } };
  const changesOne = given.some((v) => {
    const was = cur.verdicts.find((c) => c.finding === v.finding);
    return was !== undefined && was.verdict !== v.verdict;
  });
  if (mode === 'continue' || (mode === 'auto' && cur.grader === grader && !changesOne)) return keep(cur, merged(rec, cur.verdicts, given));
  const past = { grader: cur.grader, graded_at: rec.outcome.graded_at ?? stamp, verdicts: cur.verdicts };
  const start = mode === 'auto' && cur.grader === grader ? merged(rec, cur.verdicts, given) : given;
  return { graded_at: stamp, grade: { grader, verdicts: start, history: [...cur.history, past] } };
}
