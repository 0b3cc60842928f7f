/**
 * Scoring a refinement against its answer key (docs/defect-bench.md, "What the numbers
 * mean"): pure functions of the defects, the notes the reviewer passes raised (their lines
 * carried back to the original) and the final document.
 */
import { type Defect, fixedIn } from './key.js';

/** A note counts for a defect when it sits within this many lines of it, either side. */
export const NEAR_LINES = 2;

/** One note a reviewer pass raised, as the scorer sees it. */
export interface ScoredNote {
  /** Its line carried back to the original document. */
  line: number;
  /** Lint problems of the note (the protocol's conformance rules). */
  lintProblems: number;
  /** What the next passes did with it: `acted` on, `dismissed`, still `open`, or null (not judged). */
  fate: 'acted' | 'dismissed' | 'open' | null;
}

/** The defects a note on `line` points at. */
export function defectsNear(line: number, defects: readonly Defect[], within = NEAR_LINES): Defect[] {
  return defects.filter((d) => Math.abs(d.line - line) <= within);
}

/** What one refinement of one document did to its defects. */
export interface DocumentScore {
  defects: number;
  /** Defect ids some reviewer note came within NEAR_LINES of. */
  found: string[];
  /** Defect ids whose fixed_when holds in the final document (none without one). */
  fixed: string[];
  notes: number;
  /** Notes within NEAR_LINES of some defect. */
  near: number;
  /** Notes that point at no planted defect. */
  stray: number;
  /** Notes that break a lint rule. */
  lintFailures: number;
  acted: number;
  dismissed: number;
}

/** The score of one refinement: `final` is the final document, or null when the run produced none (not converged, failed). */
export function scoreDocument(defects: readonly Defect[], notes: readonly ScoredNote[], final: string | null): DocumentScore {
  const found = defects.filter((d) => notes.some((n) => Math.abs(d.line - n.line) <= NEAR_LINES)).map((d) => d.id);
  const fixed = final === null ? [] : defects.filter((d) => fixedIn(d.fixed_when, final)).map((d) => d.id);
  const near = notes.filter((n) => defectsNear(n.line, defects).length > 0).length;
  return {
    defects: defects.length,
    found,
    fixed,
    notes: notes.length,
    near,
    stray: notes.length - near,
    lintFailures: notes.filter((n) => n.lintProblems > 0).length,
    acted: notes.filter((n) => n.fate === 'acted').length,
    dismissed: notes.filter((n) => n.fate === 'dismissed').length,
  };
}

/** A fraction of two counts, null when there is nothing to divide by. */
export const fraction = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

/** The rates of several document scores taken together: each a fraction from 0 to 1, or null when undefined. */
export interface Rates {
  defects: number;
  found: number;
  fixed: number;
  notes: number;
  stray: number;
  lint_failures: number;
  /** Defects found over defects planted. */
  recall: number | null;
  /** Defects fixed over defects planted. */
  fix_rate: number | null;
  /** Notes near a defect over all notes; null when no note was raised. */
  precision: number | null;
  /** Notes dismissed over notes resolved (acted on or dismissed); null when none was resolved. */
  dismissal_rate: number | null;
}

export function rates(scores: readonly DocumentScore[]): Rates {
  const sum = (f: (s: DocumentScore) => number): number => scores.reduce((n, s) => n + f(s), 0);
  const defects = sum((s) => s.defects);
  const found = sum((s) => s.found.length);
  const fixed = sum((s) => s.fixed.length);
  const notes = sum((s) => s.notes);
  const dismissed = sum((s) => s.dismissed);
  return {
    defects,
    found,
    fixed,
    notes,
    stray: sum((s) => s.stray),
    lint_failures: sum((s) => s.lintFailures),
    recall: fraction(found, defects),
    fix_rate: fraction(fixed, defects),
    precision: fraction(
      sum((s) => s.near),
      notes,
    ),
    dismissal_rate: fraction(dismissed, dismissed + sum((s) => s.acted)),
  };
}
