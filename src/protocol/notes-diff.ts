import type { Note } from './scanner.js';

/** Identity of a note across passes: its kind and whitespace-normalised text. */
export function noteKey(note: Pick<Note, 'kind' | 'text'>): string {
  return `${note.kind}\u0000${note.text.replace(/\s+/g, ' ').trim()}`;
}

/** Multiset difference on noteKey: an edited note counts as one resolved plus one added. */
export function diffNotes(before: readonly Note[], after: readonly Note[]): { added: Note[]; resolved: Note[] } {
  return { added: unmatched(after, before), resolved: unmatched(before, after) };
}

/** Notes of `from` left over once each note of `other` has cancelled one with the same key. */
function unmatched(from: readonly Note[], other: readonly Note[]): Note[] {
  const budget = new Map<string, number>();
  for (const note of other) budget.set(noteKey(note), (budget.get(noteKey(note)) ?? 0) + 1);
  return from.filter((note) => {
    const left = budget.get(noteKey(note)) ?? 0;
    if (left > 0) budget.set(noteKey(note), left - 1);
    return left === 0;
  });
}
