/**
 * The ledger of notes: for every note a pass resolved, whether the pass acted on it (the text
 * the note refers to changed) or dismissed it (the note was deleted and that text left as it
 * was), and who raised it. Pure functions of the documents; BOUNCE-PROTOCOL.md ("The ledger
 * of notes") states the rule with examples.
 */
import { diffLines } from '../text/line-diff.js';
import type { NoteFate } from '../vocabulary.js';
import { lineIndex, type Note, noteKey } from './scanner.js';

export type { NoteFate } from '../vocabulary.js';

/** A document as the ledger reads it: its text and the notes the scanner found in it. */
export interface LedgerDocument {
  text: string;
  notes: readonly Note[];
  /** Markdown: a line of only `>` is blank too. */
  markdown: boolean;
}

export interface Judged {
  note: Note;
  fate: NoteFate;
  /** The lines (1-based, in the document the pass was sent) of the text the note refers to; null when it has none. */
  refersTo: [number, number] | null;
}

/**
 * Judges each resolved note of a pass: `acted` when the pass changed the text the note refers
 * to, `dismissed` when it left that text as it was. Both documents are compared with every
 * note taken out, line by line, whitespace-normalised; "the text the note refers to" is the
 * paragraph above the note (module header, BOUNCE-PROTOCOL.md), and a change counts when it
 * removes or rewrites one of its lines or inserts lines into it or between it and the next
 * paragraph (where the note stood).
 */
export function judgeResolved(sent: LedgerDocument, resolved: readonly Note[], accepted: LedgerDocument): Judged[] {
  if (resolved.length === 0) return [];
  const before = withoutNotes(sent);
  const after = withoutNotes(accepted);
  const changes = changesOf(before, after);
  return resolved.map((note) => {
    const span = referent(before, note, sent.markdown);
    if (!span) return { note, fate: changes.any ? 'acted' : 'dismissed', refersTo: null };
    const acted = changes.deletedIn(span.from, span.to) || changes.insertedIn(span.from, span.gap);
    return { note, fate: acted ? 'acted' : 'dismissed', refersTo: [before.origin[span.from]!, before.origin[span.to]!] };
  });
}

/**
 * A document with its notes taken out: the lines left (as written; `line(i)` normalised), the
 * 1-based line each came from, and the reverse. Normal forms and blankness are worked out on
 * first use: a pass changes a few lines of a long document, and only those are compared.
 */
interface Stripped {
  raw: string[];
  line(i: number): string;
  isBlank(i: number): boolean;
  origin: number[];
  /** Per original line (0-based): its index in `raw`, or -1 when it was all note. */
  kept: Int32Array;
}

/** Whitespace in a form `normalise` changes: a run, a character other than a space, or a space at either end. */
const UNNORMAL = /\s\s|[^\S ]|^ | $/;
/** Runs of whitespace as one space, none at the ends; a line already so is returned as it is (no copy: long documents have many). */
const normalise = (line: string): string => (UNNORMAL.test(line) ? line.replace(/\s+/g, ' ').trim() : line);

/** A document's lines (0-based, without their line breaks; a BOM is not part of the first). */
function linesOf(doc: LedgerDocument): { count: number; raw: (l: number) => string } {
  const text = doc.text.charCodeAt(0) === 0xfeff ? doc.text.slice(1) : doc.text;
  const idx = lineIndex(text);
  return { count: idx.starts.length, raw: (l) => text.slice(idx.starts[l], idx.ends[l]) };
}

/**
 * The lines each note spans, 1-based and in the order of `doc.notes`: its marker's line and the
 * lines after it that carry on its text (what the report highlights as the note).
 */
export function noteSpans(doc: LedgerDocument, lines: { count: number; raw: (l: number) => string } = linesOf(doc)): [number, number][] {
  const { count, raw } = lines;
  const onLine = new Set(doc.notes.map((n) => n.line - 1));
  return doc.notes.map((note) => [note.line, spanEnd(note, note.line - 1, count, raw, onLine, doc.markdown) + 1]);
}

function withoutNotes(doc: LedgerDocument): Stripped {
  const all = linesOf(doc);
  const { count, raw } = all;
  // What is left of each note's line: null for a line that is all note, else the text before its first note.
  const left = new Map<number, string | null>();
  const spans = noteSpans(doc, all);
  const order = doc.notes.map((_, i) => i).sort((a, b) => doc.notes[a]!.offset - doc.notes[b]!.offset);
  for (const i of order) {
    const note = doc.notes[i]!;
    const l = note.line - 1;
    // Notes come in order, so the first on a line decides what is left of it.
    if (!left.has(l)) left.set(l, note.canonical ? null : raw(l).slice(0, note.column - 1));
    for (let c = l + 1; c < spans[i]![1]; c++) left.set(c, null);
  }
  const lines: string[] = [];
  const origin: number[] = [];
  const kept = new Int32Array(count).fill(-1);
  for (let l = 0; l < count; l++) {
    const cut = left.get(l);
    // An inline note's line keeps the text before it; a line that is then empty was all note.
    if (cut === null || (cut !== undefined && normalise(cut) === '')) continue;
    kept[l] = lines.length;
    lines.push(cut ?? raw(l));
    origin.push(l + 1);
  }
  const normal: (string | undefined)[] = new Array(lines.length);
  const blank = new Int8Array(lines.length).fill(-1);
  return {
    raw: lines,
    origin,
    kept,
    line: (i) => (normal[i] ??= normalise(lines[i]!)),
    isBlank: (i) => {
      if (blank[i] === -1) blank[i] = isBlank(lines[i]!, doc.markdown) ? 1 : 0;
      return blank[i] === 1;
    },
  };
}

function isBlank(line: string, markdown: boolean): boolean {
  return markdown ? /^[>\s]*$/.test(line) : /^\s*$/.test(line);
}

/**
 * The last line (0-based) a note spans: the lines after its marker's line that continue its
 * text as the scanner collected it (a blank line, a line holding another note, or a line that
 * is not the next piece of the note's text ends it).
 */
function spanEnd(note: Note, line: number, count: number, raw: (l: number) => string, onLine: Set<number>, markdown: boolean): number {
  const body = normalise(note.text);
  let cursor = 0;
  let end = line;
  for (let l = line + 1; l < count && !onLine.has(l); l++) {
    const piece = raw(l);
    if (isBlank(piece, markdown)) break;
    // Quote prefixes are not part of a note's text.
    const candidates = [normalise(piece), normalise(piece.replace(/^[\s>]*/, ''))];
    const at = candidates.map((c) => (c === '' ? -1 : body.indexOf(c, cursor))).find((i) => i >= 0);
    if (at === undefined) break;
    cursor = at + 1;
    end = l;
  }
  return end;
}

/**
 * The text a note refers to, in indexes of the stripped lines: the paragraph that ends at the
 * nearest line above the note that is not a note (for a note in mid-line, that line's text
 * before it); under a heading, the heading and the paragraph after it; at the top of a
 * document, the paragraph after the note. `gap` is the first line of the next paragraph: lines
 * inserted up to there stand where the note stood.
 */
function referent(doc: Stripped, note: Note, markdown: boolean): { from: number; to: number; gap: number } | null {
  let anchor = -1;
  for (let l = note.line - 1; l >= 0 && anchor < 0; l--) {
    const k = doc.kept[l]!;
    if (k >= 0 && !doc.isBlank(k)) anchor = k;
  }
  if (anchor < 0) {
    // Nothing above: the paragraph below.
    for (let l = note.line; l < doc.kept.length && anchor < 0; l++) {
      const k = doc.kept[l]!;
      if (k >= 0 && !doc.isBlank(k)) anchor = k;
    }
    if (anchor < 0) return null;
    return { from: anchor, to: paragraphEnd(doc, anchor), gap: nextParagraph(doc, paragraphEnd(doc, anchor)) };
  }
  let from = anchor;
  while (from > 0 && !doc.isBlank(from - 1) && !(markdown && STARTS_BLOCK.test(doc.line(from)))) from--;
  let to = anchor;
  if (markdown && HEADING.test(doc.line(anchor))) {
    const next = nextParagraph(doc, anchor);
    if (next < doc.raw.length) to = paragraphEnd(doc, next);
  }
  return { from, to, gap: nextParagraph(doc, to) };
}

/** A markdown line that starts a block of its own even without a blank line above it: a heading or a list item. */
const HEADING = /^#{1,6}(?: |$)/;
const STARTS_BLOCK = /^(?:#{1,6}(?: |$)|(?:[-*+]|\d{1,9}[.)]) )/;

function paragraphEnd(doc: Stripped, from: number): number {
  let to = from;
  while (to + 1 < doc.raw.length && !doc.isBlank(to + 1)) to++;
  return to;
}

/** The first non-blank line after `to`, or the line count. */
function nextParagraph(doc: Stripped, to: number): number {
  let k = to + 1;
  while (k < doc.raw.length && doc.isBlank(k)) k++;
  return k;
}

/**
 * Where a line diff of the two stripped documents (normalised lines) changed the first one.
 * Lines the two share as written at the start and at the end are matched first, without
 * normalising them (equal as written is equal normalised); the rest is diffed normalised.
 */
function changesOf(x: Stripped, y: Stripped): { any: boolean; deletedIn(from: number, to: number): boolean; insertedIn(from: number, to: number): boolean } {
  const n = x.raw.length;
  const m = y.raw.length;
  let pre = 0;
  while (pre < n && pre < m && x.raw[pre] === y.raw[pre]) pre++;
  let suf = 0;
  while (suf < n - pre && suf < m - pre && x.raw[n - 1 - suf] === y.raw[m - 1 - suf]) suf++;
  const a = Array.from({ length: n - pre - suf }, (_, i) => x.line(pre + i));
  const b = Array.from({ length: m - pre - suf }, (_, i) => y.line(pre + i));
  const deleted = new Int32Array(n + 1);
  const inserts: number[] = [];
  let at = pre;
  for (const op of diffLines(a, b)) {
    if (op.type === 'equal') at++;
    else if (op.type === 'delete') deleted[++at] = 1;
    else inserts.push(at);
  }
  // Prefix sums: deleted[i] is how many of the first i lines were removed.
  for (let i = 1; i <= n; i++) deleted[i]! += deleted[i - 1]!;
  return {
    any: deleted[n]! > 0 || inserts.length > 0,
    deletedIn: (from, to) => deleted[to + 1]! - deleted[from]! > 0,
    insertedIn: (from, to) => {
      // `inserts` ascends: the first position at or after `from`.
      let lo = 0,
        hi = inserts.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (inserts[mid]! < from) lo = mid + 1;
        else hi = mid;
      }
      return lo < inserts.length && inserts[lo]! <= to;
    },
  };
}

/** Who raised a note: a pass and its agent, or the input (pass null, agent `input`). */
export interface NoteOrigin {
  pass: number | null;
  agent: string;
}

export const INPUT_ORIGIN: NoteOrigin = { pass: null, agent: 'input' };

/**
 * Who raised each note still open, followed across passes: the input's notes were raised by
 * `input`, a note a pass added by that pass's agent. Notes are matched as the notes diff
 * matches them (kind and normalised text, a multiset): of two open notes with the same key,
 * the one raised first is the one resolved first.
 */
/** What NoteOrigins matches notes by: their kind and text (a scanner note, or one read back from a record). */
export type NoteIdentity = Pick<Note, 'kind' | 'text'>;

export class NoteOrigins {
  private readonly open = new Map<string, NoteOrigin[]>();

  constructor(inputNotes: readonly NoteIdentity[]) {
    this.push(inputNotes, INPUT_ORIGIN);
  }

  /** Who raised each of `resolved` (notes of the current document), without changing anything. */
  originsOf(resolved: readonly NoteIdentity[]): NoteOrigin[] {
    const used = new Map<string, number>();
    return resolved.map((note) => {
      const key = noteKey(note);
      const k = used.get(key) ?? 0;
      used.set(key, k + 1);
      // A resolved note is always one of the open ones: the input origin is only a fallback.
      return this.open.get(key)?.[k] ?? INPUT_ORIGIN;
    });
  }

  /** An accepted pass: its resolved notes close, its added ones open with `origin`. */
  advance(resolved: readonly NoteIdentity[], added: readonly NoteIdentity[], origin: NoteOrigin): void {
    for (const note of resolved) this.open.get(noteKey(note))?.shift();
    this.push(added, origin);
  }

  private push(notes: readonly NoteIdentity[], origin: NoteOrigin): void {
    for (const note of notes) {
      const key = noteKey(note);
      const list = this.open.get(key) ?? [];
      list.push(origin);
      this.open.set(key, list);
    }
  }
}
