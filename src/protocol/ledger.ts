/**
 * The ledger of notes: for every note a pass resolved, whether the pass acted on it (the text
 * the note refers to changed) or dismissed it (the note was deleted and that text left as it
 * was), and who raised it. Pure functions of the documents; BOUNCE-PROTOCOL.md ("The ledger
 * of notes") states the rule with examples.
 */
import { diffLines } from '../text/line-diff.js';
import type { NoteFate } from '../vocabulary.js';
import { lineIndex, type Note, noteKey } from './scanner.js';
import { withoutBom } from '../text/lines.js';

export type { NoteFate } from '../vocabulary.js';

/** A document as the ledger reads it: its text and the notes the scanner found in it. */
export interface LedgerDocument {
  text: string;
  notes: readonly Note[];
  /** Markdown: a line of only `>` is blank too. */
  markdown: boolean;
  /** YAML: the `#` that opens a comment holding a note in mid-line is part of the note. */
  yaml?: boolean;
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
 * note's marker line taken out, line by line, whitespace-normalised and without their blank
 * lines; "the text the note refers to" is the paragraph above the note (module header,
 * BOUNCE-PROTOCOL.md), and a change counts when it removes or rewrites one of its lines or
 * inserts lines after one of them (into it, or between it and the next paragraph, where the
 * note stood). Lines a note's text runs on to (a note in mid-paragraph takes the rest of the
 * paragraph) count as the note where a pass deletes them and as text where it keeps them.
 */
export function judgeResolved(sent: LedgerDocument, resolved: readonly Note[], accepted: LedgerDocument): Judged[] {
  if (resolved.length === 0) return [];
  const before = withoutNotes(sent);
  const after = withoutNotes(accepted);
  const changes = changesOf(before, after);
  return resolved.map((note) => {
    const span = referent(before, changes.gone, note, sent.markdown);
    if (!span) return { note, fate: changes.any ? 'acted' : 'dismissed', refersTo: null };
    const acted = changes.deletedIn(span.from, span.to) || changes.insertedAfter(span.after, span.to);
    return { note, fate: acted ? 'acted' : 'dismissed', refersTo: [before.origin[span.from]!, before.origin[span.to]!] };
  });
}

/**
 * A document with its notes' marker lines taken out: the lines left (as written; `line(i)`
 * normalised), the 1-based line each came from, and the reverse. Normal forms and blankness
 * are worked out on first use: a pass changes a few lines of a long document, and only those
 * are compared.
 */
interface Stripped {
  raw: string[];
  line(i: number): string;
  isBlank(i: number): boolean;
  origin: number[];
  /** Per original line (0-based): its index in `raw`, or -1 when it was all note. */
  kept: Int32Array;
  /** Per line of `raw`: 1 for a line a note's text runs on to (after its marker's line), which a pass may delete as the note. */
  runOn: Uint8Array;
}

/** Whitespace in a form `normalise` changes: a run, a character other than a space, or a space at either end. */
const UNNORMAL = /\s\s|[^\S ]|^ | $/;
/** Runs of whitespace as one space, none at the ends; a line already so is returned as it is (no copy: long documents have many). */
const normalise = (line: string): string => (UNNORMAL.test(line) ? line.replace(/\s+/g, ' ').trim() : line);

/** A document's lines (0-based, without their line breaks; a BOM is not part of the first). */
function linesOf(doc: LedgerDocument): { count: number; raw: (l: number) => string } {
  const text = withoutBom(doc.text);
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
  return doc.notes.map((note) => [note.line, spanEnd(note, note.line - 1, count, raw, onLine, doc) + 1]);
}

function withoutNotes(doc: LedgerDocument): Stripped {
  const all = linesOf(doc);
  const { count, raw } = all;
  const before = (text: string): string => (doc.yaml ? text.replace(/(^|\s)#+\s*$/, '$1') : text);
  // What is left of each note's line: null for a line that is all note, else the text before its first note.
  const left = new Map<number, string | null>();
  // The lines a note's text runs on to: kept, since the scanner cannot tell them from the text
  // that follows (in mid-paragraph a note takes the rest of the paragraph), but free to delete.
  const runOnLines = new Set<number>();
  const spans = noteSpans(doc, all);
  const order = doc.notes.map((_, i) => i).sort((a, b) => doc.notes[a]!.offset - doc.notes[b]!.offset);
  for (const i of order) {
    const note = doc.notes[i]!;
    const l = note.line - 1;
    // Notes come in order, so the first on a line decides what is left of it.
    if (!left.has(l)) left.set(l, note.canonical ? null : before(raw(l).slice(0, note.column - 1)));
    for (let c = l + 1; c < spans[i]![1]; c++) runOnLines.add(c);
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
  const runOn = new Uint8Array(lines.length);
  for (const l of runOnLines) if (kept[l]! >= 0) runOn[kept[l]!] = 1;
  const normal: (string | undefined)[] = new Array(lines.length);
  const blank = new Int8Array(lines.length).fill(-1);
  return {
    raw: lines,
    origin,
    kept,
    runOn,
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
function spanEnd(note: Note, line: number, count: number, raw: (l: number) => string, onLine: Set<number>, doc: LedgerDocument): number {
  const body = normalise(note.text);
  let cursor = 0;
  let end = line;
  for (let l = line + 1; l < count && !onLine.has(l); l++) {
    const piece = raw(l);
    if (isBlank(piece, doc.markdown)) break;
    // Quote prefixes are not part of a note's text, nor the `#` of a YAML comment it runs on in.
    const candidates = [normalise(piece), normalise(piece.replace(doc.yaml ? /^[ \t]*#+[ \t]?/ : /^[\s>]*/, ''))];
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
 * document, the paragraph after the note. Run-on lines of notes the pass deleted are read as
 * note, those it kept as text. `after` is the first line after which inserted lines count for
 * the note (-1, the top, for a note with nothing above it); the last is `to`.
 */
function referent(doc: Stripped, gone: Uint8Array, note: Note, markdown: boolean): { from: number; to: number; after: number } | null {
  const text = (l: number): number => {
    const k = doc.kept[l]!;
    return k >= 0 && gone[k] === 0 ? k : -1;
  };
  // The stripped lines read as text, in order: `doc.raw` without the run-on lines deleted.
  const view = textLines(doc, gone);
  let anchor = -1;
  for (let l = note.line - 1; l >= 0 && anchor < 0; l--) {
    const k = text(l);
    if (k >= 0 && !doc.isBlank(k)) anchor = k;
  }
  if (anchor < 0) {
    // Nothing above: the paragraph below.
    for (let l = note.line; l < doc.kept.length && anchor < 0; l++) {
      const k = text(l);
      if (k >= 0 && !doc.isBlank(k)) anchor = k;
    }
    if (anchor < 0) return null;
    return { from: anchor, to: view.paragraphEnd(anchor), after: -1 };
  }
  let from = anchor;
  for (let above = view.prev(from); above >= 0 && !doc.isBlank(above); above = view.prev(from)) {
    // A list item starts at its marker; a heading is a block of its own.
    if (markdown && (STARTS_BLOCK.test(doc.line(from)) || HEADING.test(doc.line(above)))) break;
    from = above;
  }
  let to = anchor;
  if (markdown && HEADING.test(doc.line(anchor))) {
    const next = view.nextParagraph(anchor);
    if (next >= 0) to = view.paragraphEnd(next);
  }
  return { from, to, after: from };
}

/** A markdown line that starts a block of its own even without a blank line above it: a heading or a list item. */
const HEADING = /^#{1,6}(?: |$)/;
const STARTS_BLOCK = /^(?:#{1,6}(?: |$)|(?:[-*+]|\d{1,9}[.)]) )/;

/** Steps over the stripped lines that are text (not `gone`): the one before and after a line, paragraphs. */
function textLines(doc: Stripped, gone: Uint8Array) {
  const n = doc.raw.length;
  const prev = (k: number): number => {
    let i = k - 1;
    while (i >= 0 && gone[i] === 1) i--;
    return i;
  };
  const next = (k: number): number => {
    let i = k + 1;
    while (i < n && gone[i] === 1) i++;
    return i < n ? i : -1;
  };
  return {
    prev,
    paragraphEnd(from: number): number {
      let to = from;
      for (let k = next(to); k >= 0 && !doc.isBlank(k); k = next(to)) to = k;
      return to;
    },
    /** The first line of the paragraph after the one ending at `to`, or -1. */
    nextParagraph(to: number): number {
      let k = next(to);
      while (k >= 0 && doc.isBlank(k)) k = next(k);
      return k;
    },
  };
}

/**
 * Where a line diff of the two stripped documents changed the first one. Blank lines are left
 * out (a note deleted with the blank line around it, or with its own, changes no text), the
 * rest is compared normalised. A run-on line (`runOn`) costs nothing to delete or insert: the
 * ones of `x` deleted are `gone`, read as the note they continue. A group of changes between
 * two kept lines that deletes a line of text rewrites that line (what it inserts is the new
 * text); one that only inserts is recorded after the kept line above it. Lines the two share as
 * written at the start and at the end are matched first, without normalising them.
 */
function changesOf(x: Stripped, y: Stripped) {
  const n = x.raw.length;
  const m = y.raw.length;
  let pre = 0;
  while (pre < n && pre < m && x.raw[pre] === y.raw[pre]) pre++;
  let suf = 0;
  while (suf < n - pre && suf < m - pre && x.raw[n - 1 - suf] === y.raw[m - 1 - suf]) suf++;
  const xs = textBetween(x, pre, n - suf);
  const ys = textBetween(y, pre, m - suf);
  const deleted = new Int32Array(n + 1);
  const gone = new Uint8Array(n);
  // The line of `x` after which lines were inserted, ascending (-1: the top).
  const inserts: number[] = [];
  let above = pre - 1;
  while (above >= 0 && x.isBlank(above)) above--;
  let at = 0;
  const ops = diffLines(
    xs.map((i) => x.line(i)),
    ys.map((j) => y.line(j)),
  );
  for (let o = 0; o < ops.length; ) {
    if (ops[o]!.type === 'equal') {
      above = xs[at++]!;
      o++;
      continue;
    }
    let rewrites = false;
    let inserted = false;
    for (; o < ops.length && ops[o]!.type !== 'equal'; o++) {
      const op = ops[o]!;
      if (op.type === 'delete') {
        const line = xs[at++]!;
        if (x.runOn[line] === 1) gone[line] = 1;
        else {
          deleted[line + 1] = 1;
          rewrites = true;
        }
      } else if (y.runOn[ys[op.b]!] === 0) inserted = true;
    }
    if (inserted && !rewrites) inserts.push(above);
  }
  // Prefix sums: deleted[i] is how many of the first i lines were removed.
  for (let i = 1; i <= n; i++) deleted[i]! += deleted[i - 1]!;
  return {
    any: deleted[n]! > 0 || inserts.length > 0,
    gone,
    deletedIn: (from: number, to: number): boolean => deleted[to + 1]! - deleted[from]! > 0,
    /** Whether lines were inserted after a line from `after` to `to`. */
    insertedAfter: (after: number, to: number): boolean => {
      // `inserts` ascends: the first position at or after `after`.
      let lo = 0,
        hi = inserts.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (inserts[mid]! < after) lo = mid + 1;
        else hi = mid;
      }
      return lo < inserts.length && inserts[lo]! <= to;
    },
  };
}

/** The indexes of the lines from `from` (inclusive) to `to` (exclusive) that are not blank. */
function textBetween(doc: Stripped, from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) if (!doc.isBlank(i)) out.push(i);
  return out;
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
