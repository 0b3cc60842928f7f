/** What identifies a note across passes (a scanner `Note` has it). */
export interface NoteIdentity {
  kind: string;
  text: string;
}

/** Identity of a note across passes: its kind and whitespace-normalised text. */
export function noteKey(note: NoteIdentity): string {
  return `${note.kind}\u0000${note.text.replace(/\s+/g, ' ').trim()}`;
}

/** Multiset difference on noteKey: an edited note counts as one resolved plus one added. */
export function diffNotes<N extends NoteIdentity>(before: readonly N[], after: readonly N[]): { added: N[]; resolved: N[] } {
  return { added: unmatched(after, before), resolved: unmatched(before, after) };
}

/** Notes of `from` left over once each note of `other` has cancelled one with the same key. */
function unmatched<N extends NoteIdentity>(from: readonly N[], other: readonly N[]): N[] {
  const budget = new Map<string, number>();
  for (const note of other) budget.set(noteKey(note), (budget.get(noteKey(note)) ?? 0) + 1);
  return from.filter((note) => {
    const left = budget.get(noteKey(note)) ?? 0;
    if (left > 0) budget.set(noteKey(note), left - 1);
    return left === 0;
  });
}
