/**
 * Lint problems as findings for the scan formats: the rules a `--rules` list selects, each
 * file's problems, and the rules' descriptions (used by `bounce lint` and `scan --lint`).
 */
import { usageError } from '../errors.js';
import { LINT_RULES, LINT_RULE_IDS, type LintProblem, lintNotes, unknownRules } from '../protocol/lint.js';
import type { Note } from '../protocol/scanner.js';
import { didYouMean } from '../suggest.js';
import { byteColumns } from './byte-columns.js';
import { fingerprints, type Finding, type RuleInfo } from './finding.js';

/** A file read for linting: its path, its text and the notes found in it. */
export interface LintedFile {
  path: string;
  source: string;
  notes: Note[];
}

/** `--rules a,b` (or repeated): the ids to apply, in the catalogue's order; all when none is given. */
export function selectRules(given: string[] | undefined): string[] {
  if (given === undefined) return [...LINT_RULE_IDS];
  const ids = given
    .flatMap((g) => g.split(','))
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const unknown = unknownRules(ids);
  if (unknown.length > 0) {
    const guess = didYouMean(unknown[0]!, LINT_RULE_IDS);
    throw usageError(`unknown lint rule ${unknown[0]}${guess ? ` (did you mean ${guess}?)` : ''}`, `choose from ${LINT_RULE_IDS.join(', ')}`);
  }
  if (ids.length === 0) throw usageError('--rules names no rule', `choose from ${LINT_RULE_IDS.join(', ')}`);
  return LINT_RULE_IDS.filter((id) => ids.includes(id));
}

/** What every format gives of a lint problem: lintFindings adds its fingerprint and byte columns; streamed text and JSON need no more. */
export type LintItem = Pick<Finding, 'ruleId' | 'kind' | 'line' | 'column' | 'text' | 'message' | 'canonical' | 'refersTo'>;

/** A lint problem as a report lists it: the rule, the note's place and kind, and the rule's complaint followed by the note. */
export function lintItem(p: LintProblem): LintItem {
  return {
    ruleId: p.rule,
    kind: p.note.kind,
    line: p.note.line,
    column: p.note.column,
    text: p.note.text,
    message: `${p.message}: ${p.note.text}`,
    canonical: p.note.canonical,
    refersTo: p.note.refersTo,
  };
}

export function lintFindings(file: LintedFile, rules: readonly string[]): Finding[] {
  const problems = lintNotes(file.notes, file.source, rules);
  const prints = fingerprints(
    file.path,
    problems.map((p) => ({ ruleId: p.rule, kind: p.note.kind, text: p.note.text })),
  );
  const columns = byteColumns(
    file.source,
    file.notes.map((n) => n.offset),
  );
  const bytes = new Map(file.notes.map((n, i) => [n, columns[i]!]));
  return problems.map((p, i) => {
    const item = lintItem(p);
    return {
      ruleId: item.ruleId,
      kind: item.kind,
      line: item.line,
      column: item.column,
      bytes: bytes.get(p.note) ?? byteColumns(file.source, [p.note.offset])[0]!,
      text: item.text,
      message: item.message,
      fingerprint: prints[i]!,
      canonical: item.canonical,
      refersTo: item.refersTo,
    };
  });
}

export function lintRuleInfo(rules: readonly string[]): RuleInfo[] {
  return LINT_RULES.filter((r) => rules.includes(r.id)).map((r) => ({
    id: r.id,
    name: r.name,
    short: `${r.summary.charAt(0).toUpperCase()}${r.summary.slice(1)}.`,
    full: `Bounce Protocol note lint, rule ${r.id}: ${r.summary}. The heuristic and examples are in docs/lint.md.`,
    help: `${r.help.charAt(0).toUpperCase()}${r.help.slice(1)}.`,
  }));
}
