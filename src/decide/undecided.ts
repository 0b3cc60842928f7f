/**
 * The notes a run could not settle (docs/human.md, "A decision round"): on a not-converged
 * run, the notes still open in its last document; on any ended run, the [CONTESTED] notes a
 * pass dismissed (deleted, the text they refer to left as it was). Each is a finding of the
 * run's records, named by its id.
 */
import type { GradableFinding, GradableRun } from '../grade/gradable.js';

/** The run's findings a person is asked to decide, in the order the run raised them. */
export function undecidedNotes(run: GradableRun): GradableFinding[] {
  const open = run.manifest.status === 'not-converged';
  return run.findings.filter((f) => (open && f.fate === 'open') || (f.fate === 'dismissed' && f.kind === 'CONTESTED'));
}

/** A note's text without its leading marker (a finding's message starts with it). */
export function noteText(f: Pick<GradableFinding, 'kind' | 'message'>): string {
  const text = f.message.replace(/\s+/g, ' ').trim();
  const marker = `[${f.kind}]`;
  return text.toUpperCase().startsWith(marker) ? text.slice(marker.length).trim() : text;
}
