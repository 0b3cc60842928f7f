/**
 * The ledger of notes: for every note a pass resolved, whether the pass acted on it (the text
 * the note refers to changed) or dismissed it (the note was deleted and that text left as it
 * was), and who raised it. Pure functions of the documents; BOUNCE-PROTOCOL.md ("The ledger
 * of notes") states the rule with examples.
 */
import { diffLines } from '../text/line-diff.js';
import type { NoteFate, Syntax } from '../vocabulary.js';
import { hosts, matchWords, type Words, wordsOf, wordsOfLines } from './ledger-words.js';
import { rendered } from './rendered.js';
import { lineIndex, type Note, noteKey } from './scanner.js';
import { withoutBom } from '../text/lines.js';
import { firstAtLeast, pushTo } from '../arrays.js';
import { INVISIBLE } from '../text/invisible.js';

export type { NoteFate } from '../vocabulary.js';

/** A document as the ledger reads it: its text and the notes the scanner found in it. */
export interface LedgerDocument {
  text: string;
  notes: readonly Note[];
  /** Markdown: a line of only `>` is blank too. */
  markdown: boolean;
  /** YAML: the `#` that opens a comment holding a note in mid-line is part of the note. */
  yaml?: boolean;
  /**
   * JSON: a note in a string ends at its closing quote, and the commas between values are
   * syntax, not text. When not given, a document that is neither Markdown nor YAML and parses
   * as a JSON object or array is read as JSON.
   */
  json?: boolean;
}

/** How the ledger reads a document of a syntax (the engine, when it judges a pass, and audit, when it judges it again, read it alike). */
export function ledgerReading(syntax: Syntax): Pick<LedgerDocument, 'markdown' | 'yaml'> {
  return { markdown: syntax === 'markdown', yaml: syntax === 'yaml' };
}

export interface Judged {
  note: Note;
  fate: NoteFate;
  /** The lines (1-based, in the document the pass was sent) of the text the note refers to; null when it has none. */
  refersTo: [number, number] | null;
}

/**
 * Judges each resolved note of a pass: `acted` when the pass changed the text the note refers
 * to, `dismissed` when it left that text as it was. Both documents are compared with their
 * notes taken out, whitespace-normalised and without their blank lines: line by line first,
 * then, where lines differ, word by word (a rewrapped line is the same words); "the text the
 * note refers to" is the paragraph above the note (module header, BOUNCE-PROTOCOL.md), and a
 * change counts when it removes or rewrites one of its lines or inserts lines after one of
 * them (into it, or between it and the next paragraph, where the note stood), or breaks it into
 * paragraphs (a blank line between two of its words, away from where a note stood). What a note's
 * text may run on to (the rest of its line, and in mid-paragraph the rest of the paragraph)
 * counts as the note where a pass deletes it and as text where it keeps it.
 */
export function judgeResolved(sent: LedgerDocument, resolved: readonly Note[], accepted: LedgerDocument): Judged[] {
  if (resolved.length === 0) return [];
  const json = sent.json ?? accepted.json ?? [sent, accepted].some((d) => !d.markdown && !d.yaml && parsesAsJson(d.text));
  const before = withoutNotes(sent, json);
  const after = withoutNotes(accepted, json);
  const changes = changesOf(before, after);
  return resolved.map((note) => {
    const span = referent(before, changes.gone, note, sent.markdown);
    if (!span) return { note, fate: changes.any ? 'acted' : 'dismissed', refersTo: null };
    const acted = changes.deletedIn(span.from, span.to) || changes.insertedAfter(span.after, span.to) || changes.splitIn(span.from, span.to);
    return { note, fate: acted ? 'acted' : 'dismissed', refersTo: [before.origin[span.from]!, before.origin[span.to]!] };
  });
}

/** A document that is a JSON object or array (a note in JSON sits in a string, so the document still parses). */
function parsesAsJson(text: string): boolean {
  const t = withoutBom(text).trimStart();
  if (t[0] !== '{' && t[0] !== '[') return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/**
 * A document with the lines that are all note taken out: the lines left, as written (a line
 * holding a note in mid-line keeps it: its words say which of them are the note; `line(i)`
 * normalised), the 1-based line each came from, and the reverse. Normal forms and blankness
 * are worked out on first use, and words only for the lines a diff found changed: a pass
 * changes a few lines of a long document, and only those are compared.
 */
interface Stripped {
  raw: string[];
  markdown: boolean;
  json: boolean;
  line(i: number): string;
  isBlank(i: number): boolean;
  /** The words of a line left, the notes on it included (see `wordsOf`), and which of them a pass may delete as a note. */
  words(i: number): Words;
  origin: number[];
  /** Per original line (0-based): its index in `raw`, or -1 when it was all note. */
  kept: Int32Array;
  /** Per line of `raw`: 1 for a line a note's text runs on to (after its marker's line), which a pass may delete as the note. */
  runOn: Uint8Array;
}

/** What `normalise` changes: whitespace in a run, other than a space, or at either end; a character a reader does not see. */
const UNNORMAL = new RegExp(`\\s\\s|[^\\S ]|^ | $|${INVISIBLE}`, 'u');
const INVISIBLES = new RegExp(`${INVISIBLE}+`, 'gu');
/**
 * Without the characters a reader does not see (a zero-width space is no change), runs of
 * whitespace as one space, none at the ends; a line already so is returned as it is (no copy:
 * long documents have many).
 */
const normalise = (line: string): string => (UNNORMAL.test(line) ? line.replace(INVISIBLES, '').replace(/\s+/g, ' ').trim() : line);

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

function withoutNotes(doc: LedgerDocument, json: boolean): Stripped {
  const all = linesOf(doc);
  const { count, raw } = all;
  const before = (text: string): string => (doc.yaml ? text.replace(/(^|\s)#+\s*$/, '$1') : text);
  // Per line holding notes: null for a line that is all note (its first note starts it), else
  // the parts of it that are notes, [from, to) pairs in order: each note to the end of the line
  // (in JSON, to the end of its string), the first from the text before it (a YAML comment's `#`).
  const cuts = new Map<number, number[] | null>();
  // The lines a note's text runs on to: kept, since the scanner cannot tell them from the text
  // that follows (in mid-paragraph a note takes the rest of the paragraph), but free to delete.
  const runOnLines = new Set<number>();
  const spans = noteSpans(doc, all);
  const order = doc.notes.map((_, i) => i).sort((a, b) => doc.notes[a]!.offset - doc.notes[b]!.offset);
  for (const i of order) {
    const note = doc.notes[i]!;
    const l = note.line - 1;
    for (let c = l + 1; c < spans[i]![1]; c++) runOnLines.add(c);
    // Notes come in order, so the first on a line decides whether it is all note.
    let cut = cuts.get(l);
    if (cut === undefined) cuts.set(l, (cut = note.canonical ? null : []));
    if (cut === null) continue;
    const line = raw(l);
    const from = cut.length === 0 ? before(line.slice(0, note.column - 1)).length : note.column - 1;
    cut.push(from, json ? stringEnd(line, note.column - 1) : line.length);
  }
  const lines: string[] = [];
  const origin: number[] = [];
  const notesOn = new Map<number, number[]>();
  const kept = new Int32Array(count).fill(-1);
  for (let l = 0; l < count; l++) {
    const cut = cuts.get(l);
    if (cut === null) continue;
    // A line that is empty without its notes was all note. One that is not is kept whole, its
    // notes in it: it is the same line only as the same line with the same notes (the words
    // after a note may be text that a reply moved to the next line).
    if (cut !== undefined) {
      if (normalise(outside(raw(l), cut)) === '') continue;
      notesOn.set(lines.length, cut);
    }
    kept[l] = lines.length;
    lines.push(raw(l));
    origin.push(l + 1);
  }
  const runOn = new Uint8Array(lines.length);
  for (const l of runOnLines) if (kept[l]! >= 0) runOn[kept[l]!] = 1;
  const normal: (string | undefined)[] = new Array(lines.length);
  const blank = new Int8Array(lines.length).fill(-1);
  const reading = { markdown: doc.markdown, json };
  // Markdown: what HTML comments hold is not shown, so it is no text ([from, to) pairs per line).
  const hidden = doc.markdown ? commentSpans(lines) : new Map<number, number[]>();
  // The line as a reader sees it: without its comments, references and escapes as they show, look-alikes folded.
  // Once per line: both its normal form and its blankness read it.
  const shown: (string | undefined)[] = new Array(lines.length);
  const seen = (i: number): string => {
    if (shown[i] !== undefined) return shown[i];
    const h = hidden.get(i);
    const text = h ? outside(lines[i]!, h) : lines[i]!;
    return (shown[i] = rendered(text, doc.markdown)?.text ?? text);
  };
  const wordsAt = (i: number, cut: readonly number[] | undefined): Words => {
    const r = rendered(lines[i]!, doc.markdown, true);
    if (!r) return wordsOf(lines[i]!, cut, reading, hidden.get(i));
    const map = (spans: readonly number[] | undefined) => spans?.map((o) => r.at(o));
    return wordsOf(r.text, map(cut), reading, map(hidden.get(i)));
  };
  return {
    raw: lines,
    markdown: doc.markdown,
    json,
    origin,
    kept,
    runOn,
    line: (i) => (normal[i] ??= normalise(seen(i))),
    isBlank: (i) => {
      if (blank[i] === -1) blank[i] = isBlank(seen(i), doc) ? 1 : 0;
      return blank[i] === 1;
    },
    words: (i) => wordsAt(i, runOn[i] === 1 ? [0, Number.POSITIVE_INFINITY] : notesOn.get(i)),
  };
}

/**
 * Where HTML comments (`<!-- ... -->`, over several lines too; one left open runs to the end)
 * lie on each line that has one, as [from, to) pairs. Code is not told apart: a comment's
 * opener in a code block hides the text after it from the ledger, which then sees less change.
 */
function commentSpans(lines: readonly string[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  let open = false;
  for (let l = 0; l < lines.length; l++) {
    const line = lines[l]!;
    if (!open && !line.includes('<!--')) continue;
    const spans: number[] = [];
    let at = 0;
    while (at <= line.length) {
      const start = open ? at : line.indexOf('<!--', at);
      if (start === -1) break;
      const end = line.indexOf('-->', open ? start : start + 4);
      open = end === -1;
      spans.push(start, open ? line.length : end + 3);
      if (open) break;
      at = end + 3;
    }
    if (spans.length > 0) out.set(l, spans);
  }
  return out;
}

/** JSON: where the string a note sits in ends (its closing quote; a JSON string never spans lines), else the line's end. */
function stringEnd(line: string, from: number): number {
  let i = from;
  while (i < line.length && line[i] !== '"') i += line[i] === '\\' ? 2 : 1;
  return Math.min(i, line.length);
}

/** `line` without the parts `cut` names ([from, to) pairs, in order of `from`, perhaps overlapping). */
function outside(line: string, cut: readonly number[]): string {
  let out = '';
  let at = 0;
  for (let k = 0; k < cut.length; k += 2) {
    if (cut[k]! > at) out += line.slice(at, cut[k]);
    at = Math.max(at, cut[k + 1]!);
  }
  return out + line.slice(at);
}

/** A line of nothing a reader sees (in Markdown, quote markers aside; in YAML, an empty comment). */
function isBlank(line: string, doc: { markdown: boolean; yaml?: boolean | undefined }): boolean {
  return (doc.markdown ? BLANK_MARKDOWN : doc.yaml ? BLANK_YAML : BLANK).test(line);
}
const BLANK = new RegExp(`^(?:\\s|${INVISIBLE})*$`, 'u');
const BLANK_MARKDOWN = new RegExp(`^(?:[>\\s]|${INVISIBLE})*$`, 'u');
const BLANK_YAML = new RegExp(`^(?:\\s|${INVISIBLE})*(?:#(?:\\s|${INVISIBLE})*)?$`, 'u');

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
    if (isBlank(piece, doc)) break;
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
 * Where the two stripped documents differ, as changes to the first one. Blank lines are left
 * out (a note deleted with the blank line around it, or with its own, changes no text), the
 * rest is compared normalised: line by line, then each group of changed lines between two
 * kept ones word by word (judgeHunk). Lines the two share as written at the start and at the
 * end are matched first, without normalising them.
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
  const found: Found = { deleted: new Int32Array(n + 1), gone: new Uint8Array(n), inserts: [], landed: new Map() };
  const { deleted, gone, inserts, landed } = found;
  // Where each line of text of `x` went in `y`: the line it equals (-1: none; see `landed`).
  const yOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < pre; i++) yOf[i] = i;
  for (let k = 1; k <= suf; k++) yOf[n - k] = m - k;
  let above = pre - 1;
  while (above >= 0 && x.isBlank(above)) above--;
  let at = 0;
  // A line a note ran on to matches no line on its own (a line of the reply that happens to
  // hold the same words would split the groups around it): the word diff decides whether it
  // was kept, with the lines around it.
  const ops = diffLines(
    xs.map((i) => (x.runOn[i] === 1 ? `\0${i}` : x.line(i))),
    ys.map((j) => y.line(j)),
  );
  const hunks: { removed: number[]; added: number[]; above: number }[] = [];
  for (let o = 0; o < ops.length; ) {
    const op = ops[o]!;
    if (op.type === 'equal') {
      yOf[xs[at]!] = ys[op.b]!;
      above = xs[at++]!;
      o++;
      continue;
    }
    const removed: number[] = [];
    const added: number[] = [];
    for (; o < ops.length && ops[o]!.type !== 'equal'; o++) {
      const op = ops[o]!;
      if (op.type === 'delete') removed.push(xs[at++]!);
      else added.push(ys[op.b]!);
    }
    hunks.push({ removed, added, above });
  }
  moves(x, y, hunks, yOf);
  for (const hunk of hunks) if (hunk.removed.length > 0 || hunk.added.length > 0) judgeHunk(x, y, hunk, found);
  inserts.sort((a, b) => a - b);
  // Prefix sums: deleted[i] is how many of the first i lines were removed.
  for (let i = 1; i <= n; i++) deleted[i]! += deleted[i - 1]!;
  return {
    any: deleted[n]! > 0 || inserts.length > 0,
    gone,
    deletedIn: (from: number, to: number): boolean => deleted[to + 1]! - deleted[from]! > 0,
    /** Whether lines were inserted after a line from `after` to `to`. */
    insertedAfter: (after: number, to: number): boolean => {
      // `inserts` ascends: the first position at or after `after`.
      const lo = firstAtLeast(inserts, after);
      return lo < inserts.length && inserts[lo]! <= to;
    },
    /**
     * Whether the pass broke lines `from` to `to` into paragraphs: two words of them in a row,
     * with no break between them in `x`, are in `y` on lines with a break between them. A break
     * where a note stood (its line, its run-on lines, its words in mid-line) is the note's
     * place, not a split: a pass that deletes a note and leaves a blank line there dismissed it.
     */
    splitIn: (from: number, to: number): boolean => {
      let lastX = -1;
      let lastY = -1;
      for (let i = from; i <= to; i++) {
        if (gone[i] === 1 || x.isBlank(i)) continue;
        const went = yOf[i]! >= 0 ? [yOf[i]!] : (landed.get(i) ?? []);
        for (const j of went) {
          if (j < 0) {
            // A note stood between these words.
            lastY = -1;
            continue;
          }
          if (lastY >= 0 && j !== lastY && !noteOrBreakBetween(x, gone, lastX, i) && breakBetween(y, lastY, j)) return true;
          lastX = i;
          lastY = j;
        }
        if (went.length === 0) lastY = -1;
      }
      return false;
    },
  };
}

/** Beyond this many lines apart, two words of one paragraph of the sent document are in different paragraphs of the reply. */
const FAR = 256;

/** Whether a paragraph break lies between lines `p` and `q` of a document: a blank line, or a line that starts a block of its own. */
function breakBetween(doc: Stripped, p: number, q: number): boolean {
  const lo = Math.min(p, q);
  const hi = Math.max(p, q);
  if (hi - lo > FAR) return true;
  for (let k = lo + 1; k <= hi; k++) {
    if (doc.isBlank(k) || (doc.markdown && (STARTS_BLOCK.test(doc.line(k)) || HEADING.test(doc.line(k - 1))))) return true;
  }
  return false;
}

/** `breakBetween` for lines `p` < `q` of the sent document, or a note stood between them (a line all note, or one it ran on to that the pass deleted). */
function noteOrBreakBetween(doc: Stripped, gone: Uint8Array, p: number, q: number): boolean {
  if (p === q) return false;
  for (let k = p + 1; k <= q; k++) if (gone[k] === 1 || doc.origin[k]! - doc.origin[k - 1]! > 1) return true;
  return breakBetween(doc, p, q);
}

/**
 * Lines of text a pass moved as they were: a line of `x` a group removes, found again
 * (normalised; in JSON, its comma aside) among the lines a group adds. Moving text is not changing it, so such
 * lines are taken out of both groups (`yOf` says where they went): a paragraph moved
 * elsewhere unchanged is the same words, as a rewrapped one is.
 */
function moves(x: Stripped, y: Stripped, hunks: { removed: number[]; added: number[] }[], yOf: Int32Array): void {
  // In JSON a value moved to or from the end of its object gains or loses its comma.
  const key = (doc: Stripped, i: number): string => (doc.json ? doc.line(i).replace(/,$/, '') : doc.line(i));
  const arrived = new Map<string, number[]>();
  for (const h of hunks) for (const j of h.added) if (hasText(y, j)) pushTo(arrived, key(y, j), j);
  if (arrived.size === 0) return;
  const moved = new Set<number>();
  for (const h of hunks) {
    h.removed = h.removed.filter((i) => {
      const to = x.runOn[i] === 0 && hasText(x, i) ? arrived.get(key(x, i))?.shift() : undefined;
      if (to === undefined) return true;
      yOf[i] = to;
      moved.add(to);
      return false;
    });
  }
  for (const h of hunks) h.added = h.added.filter((j) => !moved.has(j));
}

/** What the groups of changed lines did to the first document, as changesOf gathers it. */
interface Found {
  /** 1 at `line + 1` for a line of text removed or rewritten (prefix sums once all are in). */
  deleted: Int32Array;
  /** 1 for a line a note ran on to that the pass deleted: read as the note. */
  gone: Uint8Array;
  /** The lines of `x` after which text was inserted (-1: the top). */
  inserts: number[];
  /** Per line of text of `x` in a group judged word by word: the line of `y` each of its words of text kept is on, in order; -1 where a note stood between two of them. */
  landed: Map<number, number[]>;
}

/** Beyond this many characters on a side a group of changed lines is judged line by line: a word diff of it would cost too much. */
const WORD_DIFF_LIMIT = 100_000;

/**
 * One group of changed lines: `removed` lines of `x` replaced by `added` lines of `y`, after the
 * kept line `above`. Their words are matched (matchWords, ledger-words.ts): the free words of
 * `x` (its notes, the lines they run on to, JSON's commas) cost nothing to delete, those of `y`
 * nothing to insert, so a rewrapped line, or one returned without the note in it, is the same
 * words. A line of text is rewritten when it loses a word or gains one (a new word on a line of
 * the reply next to words kept from it). A line a note ran on to that the reply did not keep
 * whole was the note (`gone`). New words on lines of their own are text inserted after the
 * line of the last word kept before them; in a group that rewrites a line of text they are
 * taken as its new text instead. A group with nothing on one side, or too large for a word
 * diff, is judged line by line.
 */
function judgeHunk(x: Stripped, y: Stripped, hunk: { removed: number[]; added: number[]; above: number }, found: Found): void {
  const { removed, added, above } = hunk;
  const rewrite = (line: number): void => {
    found.deleted[line + 1] = 1;
  };
  const size = (doc: Stripped, lines: number[]): number => lines.reduce((sum, i) => sum + doc.raw[i]!.length, 0);
  if (removed.length === 0 || added.length === 0 || size(x, removed) > WORD_DIFF_LIMIT || size(y, added) > WORD_DIFF_LIMIT) {
    let rewrites = false;
    for (const line of removed) {
      if (hasText(x, line)) {
        rewrite(line);
        rewrites = true;
      } else if (x.runOn[line] === 1) found.gone[line] = 1;
    }
    if (!rewrites && added.some((line) => hasText(y, line))) found.inserts.push(above);
    return;
  }
  const a = wordsOfLines(x, removed);
  const b = wordsOfLines(y, added);
  const { inB, inA } = matchWords(a, b);
  removed.forEach((line, k) => {
    if (x.runOn[line] === 1 && inB[a.starts[k]!]! < 0) found.gone[line] = 1;
  });
  let rewrites = false;
  for (let w = 0; w < a.keys.length; w++)
    if (inB[w]! < 0 && a.free[w] === 0) {
      rewrite(a.line[w]!);
      rewrites = true;
    }
  for (let w = 0; w < a.keys.length; w++) {
    const line = a.line[w]!;
    let went = found.landed.get(line);
    if (!went) found.landed.set(line, (went = []));
    // A line a note ran on to is text where the pass kept it (`gone` says which were deleted).
    if (a.free[w] === 1 && a.whole[w] === 0) {
      if (went.length > 0 && went.at(-1) !== -1) went.push(-1);
    } else if (inB[w]! >= 0) went.push(b.line[inB[w]!]!);
  }
  const host = hosts(a, b, inA);
  const after: number[] = [];
  let last = above;
  for (let w = 0; w < b.keys.length; w++) {
    if (inA[w]! >= 0) last = a.line[inA[w]!]!;
    else if (b.free[w] === 1) continue;
    else if (host.before[w]! >= 0 || host.after[w]! >= 0) {
      for (const line of [host.before[w]!, host.after[w]!]) if (line >= 0) rewrite(line);
      rewrites = true;
    } else if (after.at(-1) !== last) after.push(last);
  }
  if (!rewrites) found.inserts.push(...after);
}

/** Whether a line has a word a pass may not delete for free: a line of text, not all note. */
function hasText(doc: Stripped, line: number): boolean {
  return doc.runOn[line] === 0 && doc.words(line).free.includes(0);
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
