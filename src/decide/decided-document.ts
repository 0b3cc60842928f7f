/**
 * The decision pass's document (docs/human.md): the run's last document with each decision
 * written in as a [CONTESTED] note, where the note it decides stood, for the final composer
 * pass to integrate. A decision for the composer's side leaves the text as it stands: it
 * writes no note, and an open note it decides is deleted.
 */
import { noteKey, type ScanOptions, scanNotes } from '../protocol/scanner.js';
import type { GradableFinding } from '../grade/gradable.js';
import type { Decision } from './answers.js';
import { noteText } from './undecided.js';

/** One note decided: the note, what the person chose, and the two sides' statements. */
export interface Decided {
  note: GradableFinding;
  decision: Decision;
  alternative: string;
  counter: string;
}

const SHOWN = 60;
const short = (s: string): string => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > SHOWN ? `${line.slice(0, SHOWN - 1)}…` : line;
};

/** `text` as one line with no marker in it: a marker inside a note's text would open another note. */
export function withoutMarkers(text: string, markers: readonly string[]): string {
  const names = new Set(markers.map((m) => m.toUpperCase()));
  return text
    .replace(/\s+/g, ' ')
    .replace(/\[([A-Za-z][A-Za-z_-]*)\]/g, (whole, name: string) => (names.has(name.toUpperCase()) ? name : whole))
    .trim();
}

/** The note a decision writes for the composer to integrate; null for the composer's side (the text stands). */
export function decisionNote(person: string, d: Decided, markers: readonly string[]): string | null {
  if (d.decision.side === 'composer') return null;
  const on = `on the note "${short(withoutMarkers(noteText(d.note), markers))}"`;
  const body =
    d.decision.side === 'own'
      ? `${person} decided (${on}): ${d.decision.text}`
      : `${person} decided for the reviewer (${on}); make this change: ${d.alternative}`;
  return `[CONTESTED] ${withoutMarkers(body, markers)}`;
}

type Edit = { at: number; remove: number; insert: string[] };

/** The line after the paragraph that holds line `i` (0-based): a note goes there, below the text it refers to. */
function paragraphEnd(lines: readonly string[], i: number): number {
  let end = i + 1;
  while (end < lines.length && lines[end]!.trim() !== '') end++;
  return end;
}

/**
 * `text` with the decisions written in. An open note (still in the text) is replaced by its
 * decision's note, or deleted for the composer's side; a dismissed note's decision goes below
 * the paragraph that holds the line the note stood under, else at the end of the document.
 */
export function decidedDocument(text: string, decided: readonly Decided[], person: string, reading: ScanOptions & { markers: readonly string[] }): string {
  const lines = text.split('\n');
  const notes = scanNotes(text, reading);
  const used = new Set<number>();
  const edits: Edit[] = [];
  const tail: string[] = [];
  for (const d of decided) {
    const note = decisionNote(person, d, reading.markers);
    const key = noteKey({ kind: d.note.kind, text: d.note.message });
    const open = d.note.fate === 'open' ? notes.find((n) => !used.has(n.line) && noteKey(n) === key) : undefined;
    if (open) {
      used.add(open.line);
      const next = notes.map((n) => n.line).filter((l) => l > open.line);
      let end = open.line;
      while (end < lines.length && lines[end]!.trim() !== '' && !next.includes(end + 1)) end++;
      edits.push({ at: open.line - 1, remove: end - (open.line - 1), insert: note ? [note] : [] });
      continue;
    }
    if (!note) continue;
    const above = d.note.passage.find((l) => l.line === d.note.lineRange[0] - 1)?.text ?? '';
    const i = above.trim() === '' ? -1 : lines.indexOf(above);
    if (i === -1) tail.push(note);
    else edits.push({ at: paragraphEnd(lines, i), remove: 0, insert: [note] });
  }
  // From the bottom up, so each edit's line numbers still hold.
  for (const e of edits.sort((a, b) => b.at - a.at)) lines.splice(e.at, e.remove, ...e.insert);
  if (tail.length > 0) {
    while (lines.length > 0 && lines.at(-1)!.trim() === '') lines.pop();
    lines.push('', ...tail.flatMap((n, k) => (k === 0 ? [n] : ['', n])), '');
  }
  return lines.join('\n');
}
