/**
 * The final-pass rule (BOUNCE-PROTOCOL.md, rule 3): the final pass resolves every note and
 * adds none, and, since it may only resolve notes, changes no code block. The pass asks here;
 * what follows a breach (a repair, then `not-converged`) is the decision table's
 * (`verdict.ts`).
 */
import type { Note } from '../protocol/scanner.js';
import type { StructureProblem } from '../protocol/structure.js';

/** Why the final pass's reply breaks the rule by its notes, or null when it leaves none. */
export function finalPassNotes(notes: readonly Note[]): string | null {
  if (notes.length === 0) return null;
  return `${notes.length} note${notes.length === 1 ? '' : 's'} left on the final pass, which must resolve every note and add none (${noteLines(notes)})`;
}

/** A structure problem counts on every pass when a fence is left open, and on the final pass whatever it is. */
export function structureCounts(problem: StructureProblem, final: boolean): boolean {
  return problem.kind === 'unclosed-fence' || final;
}

/**
 * The notes by line number and kind, never their text: a reason stands in a repair prompt
 * outside the document's frame, where document text must not appear.
 */
export function noteLines(notes: readonly Note[]): string {
  const shown = notes.slice(0, 5).map((n) => `line ${n.line}: [${n.kind}]`);
  return shown.join(', ') + (notes.length > 5 ? `, and ${notes.length - 5} more` : '');
}
