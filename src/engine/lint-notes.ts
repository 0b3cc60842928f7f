import { LINT_RULES, lintNotes } from '../protocol/lint.js';
import type { Note } from '../protocol/scanner.js';
import type { PassRecord } from '../store/manifest.js';
import type { RunPlan } from './plan.js';

/** A note a pass added that breaks a lint rule: where it is and which rule, never its text. */
export type LintFinding = NonNullable<PassRecord['lint']>[number];

/** The notes a pass added (from diffNotes) that break a lint rule, in note order; none when lint is off. */
export function lintAdded(plan: RunPlan, text: string, added: readonly Note[]): LintFinding[] {
  if (plan.lint === 'off' || added.length === 0) return [];
  return lintNotes(added, text).map((p) => ({ line: p.note.line, rule: p.rule }));
}

/** `line 4: dissent-only; line 9: open-ended, misplaced` (the first five lines, then a count). */
export function lintLines(findings: readonly LintFinding[]): string {
  const byLine = new Map<number, string[]>();
  for (const f of findings) byLine.set(f.line, [...(byLine.get(f.line) ?? []), f.rule]);
  const lines = [...byLine].map(([line, rules]) => `line ${line}: ${rules.join(', ')}`);
  return lines.slice(0, 5).join('; ') + (lines.length > 5 ? `; and ${lines.length - 5} more` : '');
}

/**
 * The reason of a lint repair: each breaking note by line and rule id, then what each rule
 * asks for. Never a note's words: the reason stands in the prompt outside the document's
 * frame, where document text must not appear (see noteLines in final-pass.ts).
 */
export function lintRepairReason(findings: readonly LintFinding[]): string {
  const notes = new Set(findings.map((f) => f.line)).size;
  const rules = LINT_RULES.filter((r) => findings.some((f) => f.rule === r.id)).map((r) => `${r.id}: ${r.summary}; ${r.help}`);
  return `${notes} note${notes === 1 ? '' : 's'} added by this pass break${notes === 1 ? 's' : ''} the protocol's note rules (${lintLines(findings)}). ${rules.join('. ')}. Correct those notes and change nothing else.`;
}
