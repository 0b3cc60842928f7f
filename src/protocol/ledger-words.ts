/**
 * The ledger's word diff (src/protocol/ledger.ts): the words of the lines a pass changed, and
 * which of them its reply kept. A note's words, the text it may run on to and JSON's commas
 * are free: a pass may delete them as part of a note, and those it keeps are text.
 */
import { diffLines } from '../text/line-diff.js';
import { INVISIBLE } from '../text/invisible.js';

/** A line's words as the diff compares them (`keys`), and 1 in `free` for each a pass may delete at no cost. */
export interface Words {
  keys: string[];
  free: Uint8Array;
}

/**
 * A word: a run of letters and digits, one Han or kana character (text written without spaces
 * rewraps anywhere), or one other character that is not whitespace (punctuation: `"linear"` is
 * the word `linear` in quotes, a table's `|` a word of its own).
 */
const WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\s\p{P}\p{S}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+|\S/gu;

const HAS_INVISIBLE = new RegExp(INVISIBLE, 'u');
/** A Markdown list item's marker and the blanks after it. */
const LIST_MARKER = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)/;
const INVISIBLES = new RegExp(INVISIBLE, 'gu');

/**
 * The words of a line for the word diff. The words in `cut` (the notes on it, [from, to)
 * pairs) are free: a pass may delete them as the note, and those it keeps are text. Those in
 * `hidden` (HTML comments) are not words at all, nor is a list item's marker. In
 * Markdown a line's quote markers are not words: each word carries its quote depth instead,
 * so a quote rewrapped is the same words. In JSON the commas between values are free.
 */
export function wordsOf(line: string, cut: readonly number[] | undefined, reading: { markdown: boolean; json: boolean }, hidden?: readonly number[]): Words {
  let from = 0;
  let depth = '';
  if (reading.markdown) {
    const quote = /^(?:[ \t]*>)+/.exec(line);
    if (quote) {
      from = quote[0].length;
      depth = `${'>'.repeat(quote[0].split('>').length - 1)} `;
    }
    // A list item's marker is its form, not its text: renumbering a list, or another bullet, changes no word.
    const item = LIST_MARKER.exec(line.slice(from));
    if (item) from += item[0].length;
  }
  const commas = reading.json ? jsonCommas(line) : null;
  const keys: string[] = [];
  const free: number[] = [];
  WORD.lastIndex = from;
  for (let m = WORD.exec(line); m; m = WORD.exec(line)) {
    if (hidden && inCut(hidden, m.index)) continue; // in an HTML comment: not shown
    // What a reader does not see is no part of a word, and alone no word at all.
    const word = HAS_INVISIBLE.test(m[0]) ? m[0].replace(INVISIBLES, '') : m[0];
    if (word === '') continue;
    keys.push(depth + word);
    free.push(inCut(cut, m.index) || commas?.has(m.index) ? 1 : 0);
  }
  return { keys, free: Uint8Array.from(free) };
}

function inCut(cut: readonly number[] | undefined, at: number): boolean {
  if (!cut) return false;
  for (let k = 0; k < cut.length; k += 2) if (cut[k]! <= at && at < cut[k + 1]!) return true;
  return false;
}

/** JSON: where the line's commas outside strings are. */
function jsonCommas(line: string): Set<number> {
  const out = new Set<number>();
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === ',') out.add(i);
  }
  return out;
}

/** The words of some lines in a row: their keys, which are free, which are on a line a note ran on to, the line each is on, and where each line's words start. */
export interface LineWords {
  keys: string[];
  free: number[];
  whole: number[];
  line: number[];
  /** The line each word is on, counted among the lines given (text lines: a blank line between two of them is not counted). */
  row: number[];
  starts: number[];
}

export function wordsOfLines(doc: { words(i: number): Words; runOn: Uint8Array }, lines: readonly number[]): LineWords {
  const keys: string[] = [];
  const free: number[] = [];
  const whole: number[] = [];
  const line: number[] = [];
  const row: number[] = [];
  const starts: number[] = [];
  lines.forEach((i, r) => {
    starts.push(keys.length);
    const w = doc.words(i);
    for (let k = 0; k < w.keys.length; k++) {
      keys.push(w.keys[k]!);
      free.push(w.free[k]!);
      whole.push(doc.runOn[i]!);
      line.push(i);
      row.push(r);
    }
  });
  starts.push(keys.length);
  return { keys, free, whole, line, row, starts };
}

/**
 * For each word of the reply (`b`), the lines of `a` its line of the reply goes on with: the
 * line of the nearest word of text kept before it on that line, and of the nearest after it
 * (-1 for none: a word on a line of only new words and free ones has neither).
 */
export function hosts(a: LineWords, b: LineWords, inA: Int32Array): { before: Int32Array; after: Int32Array } {
  const n = b.keys.length;
  const before = new Int32Array(n).fill(-1);
  const after = new Int32Array(n).fill(-1);
  const textOf = (w: number): number => (inA[w]! >= 0 && a.free[inA[w]!] === 0 ? a.line[inA[w]!]! : -1);
  for (let w = 0, near = -1; w < n; w++) {
    if (w > 0 && b.line[w] !== b.line[w - 1]) near = -1;
    before[w] = near;
    if (textOf(w) >= 0) near = textOf(w);
  }
  for (let w = n - 1, near = -1; w >= 0; w--) {
    if (w < n - 1 && b.line[w] !== b.line[w + 1]) near = -1;
    after[w] = near;
    if (textOf(w) >= 0) near = textOf(w);
  }
  return { before, after };
}

/**
 * Which words of the two sides are the same words kept: for each, the word of the other side,
 * or -1. A word of text of `a` is kept as the same word of text of `b`; free words as
 * keptRuns says. `aligned` finds the way that keeps the most; a hunk too large for it is
 * matched in two steps: the words of text (Myers' diff), then the free words of `a` between
 * two words of text matched.
 */
export function matchWords(a: LineWords, b: LineWords): { inB: Int32Array; inA: Int32Array } {
  const inB = new Int32Array(a.keys.length).fill(-1);
  const inA = new Int32Array(b.keys.length).fill(-1);
  const link = (wa: number, wb: number): void => {
    inB[wa] = wb;
    inA[wb] = wa;
  };
  if (aligned(a, b, link)) return { inB, inA };
  const textOfA = a.keys.flatMap((_, k) => (a.free[k] === 0 ? [k] : []));
  const textOfB = b.keys.flatMap((_, k) => (b.free[k] === 0 || b.whole[k] === 1 ? [k] : []));
  for (const op of diffLines(
    textOfA.map((k) => a.keys[k]!),
    textOfB.map((k) => b.keys[k]!),
  ))
    if (op.type === 'equal') link(textOfA[op.a]!, textOfB[op.b]!);
  let fromA = 0;
  let fromB = 0;
  const between = (toA: number, toB: number): void => {
    const runs = runsOf(a, fromA, toA).filter((run) => a.free[run[0]!] === 1);
    const bs: number[] = [];
    for (let k = fromB; k < toB; k++) bs.push(k);
    // A note's words on a line of text keep an end only right after the word before the note, kept: the word matched before the gap.
    keptRuns(a, b, runs, bs, fromA > 0 && inB[fromA - 1]! >= 0 ? fromA : -1, link);
  };
  for (const k of textOfA) {
    if (inB[k]! < 0) continue;
    between(k, inB[k]!);
    fromA = k + 1;
    fromB = inB[k]! + 1;
  }
  between(a.keys.length, b.keys.length);
  return { inB, inA };
}

/** Beyond this many cells (twice the words of `a` by the words of the reply) a hunk's words are matched in two steps instead (matchWords). */
const ALIGN_LIMIT = 2_000_000;

/**
 * The words of `a` as the alignment reads them: each word of text alone, each run of free
 * words (in a row on one line) as one, whole (a line a note ran on to) or not (keeps an end).
 */
function runsOf(a: LineWords, from = 0, to = a.keys.length): number[][] {
  const runs: number[][] = [];
  for (let k = from; k < to; k++) {
    const run = runs.at(-1);
    if (a.free[k] === 1 && run && a.free[run[0]!] === 1 && run.at(-1) === k - 1 && a.line[k - 1] === a.line[k]) run.push(k);
    else runs.push([k]);
  }
  return runs;
}

/** How many of `run`'s last words the reply's words `bs[.. e)` end with, for each `e`, in one paragraph (on lines in a row). */
function endsWith(a: LineWords, b: LineWords, run: readonly number[], bs: readonly number[]): Int32Array {
  const t = run.length;
  const ends = new Int32Array(bs.length + 1);
  const lineOf = (k: number): number => b.line[bs[k]!]!;
  for (let e = 1; e <= bs.length; e++) {
    let s = 0;
    while (s < t && s < e && a.keys[run[t - 1 - s]!] === b.keys[bs[e - 1 - s]!] && (s === 0 || lineOf(e - s) - lineOf(e - 1 - s) <= 1)) s++;
    ends[e] = s;
  }
  return ends;
}

/**
 * The alignment of matchWords by dynamic programming: the most words kept (a word of text
 * matched, a free word kept as keptRuns says: a run whole or an end of it, the same words in
 * a row in the reply); of alignments that keep as many, the one that keeps the most of them
 * next to each other (the words of a rewrapped paragraph are matched with that paragraph,
 * not one of them with the same word in the paragraph rewritten above it); then the one that
 * matches words of text early and keeps later runs. False, linking nothing, for a hunk beyond
 * ALIGN_LIMIT.
 */
function aligned(a: LineWords, b: LineWords, link: (wa: number, wb: number) => void): boolean {
  const items = runsOf(a);
  const n = items.length;
  const m = b.keys.length;
  const w = m + 1;
  const size = (n + 1) * w;
  if (2 * size > ALIGN_LIMIT) return false;
  const places = items.map((item) => placesOf(a, b, item));
  // A word kept outweighs all the pairs of words kept next to each other.
  const weight = n + m + 1;
  // best[c][i * w + j]: the best score of items i.. with the reply's words from j on; c is 1
  // when item i - 1 was kept just before word j (a word kept at j is next to it).
  const best = [new Float64Array(size), new Float64Array(size)];
  // Two words are next to each other only in one paragraph: on one line or on lines in a row.
  const near = (lines: number[], k: number): number => (k > 0 && lines[k]! - lines[k - 1]! <= 1 ? 1 : 0);
  const nearInA = items.map((item) => near(a.line, item[0]!));
  const nearInB = Array.from({ length: w }, (_, j) => (j < m ? near(b.line, j) : 0));
  // Item i kept as its last `s` words at j.
  const keep = (i: number, j: number, c: number, s: number): number => s * weight + c * nearInA[i]! * nearInB[j]! + s - 1 + best[1]![(i + 1) * w + j + s]!;
  // A note's words on a line of text keep an end only right after the word before the note,
  // kept: on its line, the next line, or after blank lines (a blank line left where the note stood is its place).
  const afterInB = Array.from({ length: w }, (_, j) => (j < m && j > 0 && b.row[j]! - b.row[j - 1]! <= 1 ? 1 : 0));
  const fits = (i: number, j: number, c: number): boolean =>
    a.free[items[i]![0]!] === 0 || a.whole[items[i]![0]!] === 1 || c * nearInA[i]! * afterInB[j]! === 1;
  const skipItem = (i: number, j: number): number => best[0]![(i + 1) * w + j]!;
  const skipWord = (i: number, j: number): number => (j < m ? best[0]![i * w + j + 1]! : -1);
  for (let i = n - 1; i >= 0; i--) {
    const place = places[i]!;
    for (let j = m, p = 0; j >= 0; j--) {
      const from = p;
      while (p < place.length && place[p] === j) p += 2;
      for (let c = 0; c < 2; c++) {
        let v = Math.max(skipItem(i, j), skipWord(i, j));
        if (fits(i, j, c)) for (let q = from; q < p; q += 2) v = Math.max(v, keep(i, j, c, place[q + 1]!));
        best[c]![i * w + j] = v;
      }
    }
  }
  for (let i = 0, j = 0, c = 0; i < n; ) {
    const item = items[i]!;
    const v = best[c]![i * w + j]!;
    const run = a.free[item[0]!] === 1;
    // The ways to keep item i here, longest first.
    const sizes: number[] = [];
    for (let q = 0; q < places[i]!.length; q += 2)
      if (places[i]![q] === j && fits(i, j, c) && v === keep(i, j, c, places[i]![q + 1]!)) sizes.push(places[i]![q + 1]!);
    sizes.sort((x, y) => y - x);
    if (sizes.length > 0 && (!run || (v !== skipItem(i, j) && v !== skipWord(i, j)))) {
      const s = sizes[0]!;
      for (let k = 0; k < s; k++) link(item[item.length - s + k]!, j + k);
      j += s;
      c = 1;
      i++;
    } else if (v === skipWord(i, j) && (run ? v !== skipItem(i, j) : true)) {
      j++;
      c = 0;
    } else {
      i++;
      c = 0;
    }
  }
  return true;
}

/**
 * Where an item of `a` can be kept among the reply's words: [j, s] pairs, j descending (its
 * last s words are the reply's words from j). A word of text is kept as a word of text, or of
 * a line a note of the reply runs on to (text the reply wrote a note above); a run as
 * keptRuns says (whole, or an end of it), in one paragraph.
 */
function placesOf(a: LineWords, b: LineWords, item: readonly number[]): number[] {
  const m = b.keys.length;
  const out: number[] = [];
  if (a.free[item[0]!] === 0) {
    for (let j = m - 1; j >= 0; j--) if ((b.free[j] === 0 || b.whole[j] === 1) && b.keys[j] === a.keys[item[0]!]) out.push(j, 1);
    return out;
  }
  const ends = endsWith(
    a,
    b,
    item,
    Array.from({ length: m }, (_, j) => j),
  );
  const t = item.length;
  const pairs: [number, number][] = [];
  for (let e = m; e > 0; e--) {
    if (a.whole[item[0]!] === 1) {
      if (ends[e]! >= t) pairs.push([e - t, t]);
    } else for (let s = 1; s <= ends[e]!; s++) pairs.push([e - s, s]);
  }
  pairs.sort((x, y) => y[0] - x[0]);
  for (const [j, s] of pairs) out.push(j, s);
  return out;
}

/** Beyond this many pairs of a free word and a word of the reply, free words between two words of text are not looked for: the reply's words there are new. */
const KEPT_RUNS_LIMIT = 1_000_000;

/**
 * Which runs of free words of `a` the reply kept among its words `bs` (in order, between two
 * words of text it kept), and `link`s their words. A line a note ran on to is kept whole, as
 * the same words in a row (perhaps rewrapped), or it was the note; the run of a note's words
 * on a line of text keeps an end, the words that followed the note, right after the word
 * before the note (the pass deleted the note and kept the text after it: an answer taken from
 * the note's options is new text, not a word of the note kept). Such a run is kept only when
 * it is `lead`, the first word after the word of text matched before `bs`. The runs kept keep
 * the most words; of two ways that keep as many, the one that keeps later runs (a note comes
 * before the text it ran on to).
 */
function keptRuns(a: LineWords, b: LineWords, runs: number[][], bs: number[], lead: number, link: (wa: number, wb: number) => void): void {
  const m = bs.length;
  const k = runs.length;
  if (m === 0 || k === 0 || m * runs.reduce((sum, run) => sum + run.length, 0) > KEPT_RUNS_LIMIT) return;
  // most[i][p]: the most words runs i.. keep among bs[p..]; at[i][p], size[i][p]: where run i is kept then, and how many of its words (0: not kept).
  const most = Array.from({ length: k + 1 }, () => new Int32Array(m + 1));
  const at = Array.from({ length: k }, () => new Int32Array(m + 1));
  const size = Array.from({ length: k }, () => new Int32Array(m + 1));
  for (let i = k - 1; i >= 0; i--) {
    const run = runs[i]!;
    const t = run.length;
    const tail = a.whole[run[0]!] === 0;
    const least = tail ? 1 : t;
    const ends = endsWith(a, b, run, bs);
    const next = most[i + 1]!;
    let best = -1;
    let bestAt = 0;
    let bestSize = 0;
    for (let p = m; p >= 0; p--) {
      if (!tail || (p === 0 && run[0] === lead))
        for (let s = least; s <= t && p + s <= m; s++)
          if (ends[p + s]! >= s && s + next[p + s]! > best) {
            best = s + next[p + s]!;
            bestAt = p;
            bestSize = s;
          }
      if (next[p]! >= best) most[i]![p] = next[p]!;
      else {
        most[i]![p] = best;
        at[i]![p] = bestAt;
        size[i]![p] = bestSize;
      }
    }
  }
  for (let i = 0, p = 0; i < k; i++) {
    const s = size[i]![p]!;
    if (s === 0) continue;
    const run = runs[i]!;
    const q = at[i]![p]!;
    for (let j = 0; j < s; j++) link(run[run.length - s + j]!, bs[q + j]!);
    p = q + s;
  }
}
