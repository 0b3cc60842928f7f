/**
 * Edit replies: search/replace blocks against the document an agent was sent, parsed, applied
 * in order (as whole lines, else inside lines, else ignoring whitespace) and reported block by
 * block. Pure functions of text; the reply mode that uses them is `editsMode` in reply.ts.
 */
import { diffLines } from './line-diff.js';
import type { BlockApplied, BlockFailed, EditFormat, EditFormatSetting } from '../vocabulary.js';
import { countWords, isSpaceCode, moreWordsThan, wordsIn } from './words.js';

/** The three marker lines of a block, exactly as the prompt (prompts/edits.md) shows them. */
export const EDIT_MARKERS = { search: '<<<<<<< SEARCH', divider: '=======', replace: '>>>>>>> REPLACE' } as const;

const SEARCH_RE = /^<<<<<<< SEARCH[ \t]*$/;
const DIVIDER_RE = /^=======[ \t]*$/;
const REPLACE_RE = /^>>>>>>> REPLACE[ \t]*$/;
const MARKER_LINE_RE = /^(?:<<<<<<< SEARCH|>>>>>>> REPLACE)[ \t]*\r?$/m;
const FENCE_RE = /^ {0,3}(?:`{3,}|~{3,})/;

/**
 * `auto` asks for edit blocks when the input has more words than this. Around this size a
 * whole-document reply starts to cost more than the few changes a pass makes, and agents
 * are reported to answer a long document with a summary or a cut-off copy.
 */
export const AUTO_EDITS_ABOVE_WORDS = 800;

/**
 * At most this many blocks in one reply: each is looked for in the whole document, so a
 * reply of tens of thousands would take minutes to apply. A reply that changes that much
 * is better sent whole.
 */
export const MAX_EDIT_BLOCKS = 1000;

/** The edit format a run uses: the setting, with `auto` decided by the input's size. */
export function editFormatFor(setting: EditFormatSetting, text: string): EditFormat {
  if (setting !== 'auto') return setting;
  // A document that shows block markers itself could not be told apart from an agent's blocks.
  if (holdsEditMarkers(text)) return 'whole';
  return moreWordsThan(text, AUTO_EDITS_ABOVE_WORDS) ? 'edits' : 'whole';
}

/** Whether a line of `text` reads as a SEARCH or REPLACE marker line. */
export function holdsEditMarkers(text: string): boolean {
  return MARKER_LINE_RE.test(text);
}

/** One block as the reply wrote it. */
export interface EditBlock {
  /** 1-based, in the order of the reply. */
  index: number;
  /** The lines between the SEARCH and the REPLACE marker lines. */
  body: string[];
  /** Indices in `body` of the lines that may be the divider: a Markdown heading underline can look like one. */
  dividers: number[];
  /** The block as written, marker lines included. */
  text: string;
}

export type ParsedReply =
  | { kind: 'blocks'; blocks: EditBlock[] /** Text other than blank lines and fences stood outside the blocks. */; stray: boolean }
  | { kind: 'document' }
  | { kind: 'malformed'; reason: string };

/** Reads a reply (LF or CRLF, any BOM) as edit blocks; a reply without a SEARCH line is a document. */
export function parseEditReply(reply: string): ParsedReply {
  const lines = reply.replace(/^\uFEFF/, '').split(/\r?\n/);
  const blocks: EditBlock[] = [];
  let start = -1;
  let dividers: number[] = [];
  let stray = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (start < 0) {
      if (SEARCH_RE.test(line)) {
        start = i;
        dividers = [];
      } else if (line.trim() !== '' && !FENCE_RE.test(line)) stray = true;
      continue;
    }
    if (REPLACE_RE.test(line)) {
      if (dividers.length === 0)
        return { kind: 'malformed', reason: `Edit block ${blocks.length + 1} has no ${EDIT_MARKERS.divider} line between its two parts.` };
      const from = start;
      blocks.push({
        index: blocks.length + 1,
        body: lines.slice(from + 1, i),
        dividers: dividers.map((d) => d - from - 1),
        text: lines.slice(from, i + 1).join('\n'),
      });
      start = -1;
    } else if (DIVIDER_RE.test(line)) dividers.push(i);
  }
  if (start >= 0) return { kind: 'malformed', reason: `Edit block ${blocks.length + 1} has no ${EDIT_MARKERS.replace} line: the reply ends inside it.` };
  if (blocks.length > MAX_EDIT_BLOCKS)
    return {
      kind: 'malformed',
      reason: `The reply has ${blocks.length} edit blocks, more than the ${MAX_EDIT_BLOCKS} one reply may hold: merge neighbouring changes into larger blocks, or send the whole revised document.`,
    };
  return blocks.length ? { kind: 'blocks', blocks, stray } : { kind: 'document' };
}

/** Where a block landed, or why it did not: lines are 1-based, in the document the blocks produced. */
export type BlockOutcome =
  | { block: number; applied: BlockApplied /** First line of its replacement (for a deletion: the line after it). */; line: number; lines: number }
  | {
      block: number;
      failed: BlockFailed /** First closest line (missing) or first match (ambiguous); null when nothing is close. */;
      line: number | null;
      lines: number;
      matches: number;
    };

/** Lines of the document, quoted for a repair: where a failed block comes closest, or matches. */
export interface Excerpt {
  /** 1-based number of the first line. */
  line: number;
  lines: string[];
}

/** A block that did not apply, with what a repair request shows of it. */
export interface BlockFailure {
  block: number;
  failed: BlockFailed;
  /** The block as the agent wrote it. */
  written: string;
  /** Places its SEARCH part matches (0 when missing). */
  matches: number;
  excerpts: Excerpt[];
}

/** What an edit reply did: whether it was blocks or a whole document, and each block's outcome. */
export interface EditReport {
  reply: 'blocks' | 'document';
  blocks: BlockOutcome[];
  failures: BlockFailure[];
}

export interface EditResult {
  /** The document after every block that applied (LF, as the blocks were written against). */
  text: string;
  /** countWords(text) less countWords of the document the blocks were applied to (a long document is not counted again for a few blocks). */
  wordDelta: number;
  outcomes: BlockOutcome[];
  failures: BlockFailure[];
}

/** A line compared without its indentation, trailing spaces, CR, or runs of inner whitespace. */
const loose = (line: string): string => line.trim().replace(/\s+/g, ' ');

/** At most this many lines of one excerpt, and this many places of an ambiguous block, go into a repair. */
const MAX_EXCERPT_LINES = 40;
const MAX_PLACES = 3;

interface Split {
  search: string[];
  replace: string[];
  starts: number[];
  how: BlockApplied;
  /** For an inline match: where the SEARCH text starts in its first line. */
  column?: number;
}

/** Applies `blocks` in order to `doc` (LF): each must match the document as the blocks before it left it exactly once. */
export function applyEditBlocks(doc: string, blocks: readonly EditBlock[]): EditResult {
  return applyExactly(doc, blocks) ?? applyByLines(doc, blocks);
}

/** Where `search` occurs in `text` as whole lines: up to two starts (two already make it ambiguous). */
function wholeLineMatches(text: string, search: string): number[] {
  const found: number[] = [];
  // An empty SEARCH line matches at every line break: the search must step past the end.
  for (let at = text.indexOf(search); at !== -1 && found.length < 2; at = at < text.length ? text.indexOf(search, at + 1) : -1) {
    const end = at + search.length;
    if ((at === 0 || text.charCodeAt(at - 1) === 10) && (end === text.length || text.charCodeAt(end) === 10)) found.push(at);
  }
  return found;
}

const WORD_RE = /[\p{L}\p{N}\p{M}_]/u;
/** Whether the code point that ends just before `i` and the one that starts at `i` are both word characters. */
const insideWord = (text: string, i: number): boolean => i > 0 && wordBefore(text, i) && wordAt(text, i);

/**
 * Where `search` occurs in `text` inside lines: starting and ending on a word boundary (so
 * `x = 1` does not match in `x = 10`), and holding more than whitespace. Up to `limit` starts.
 */
function inlineMatches(text: string, search: string, limit = 2): number[] {
  const found: number[] = [];
  if (search.trim() === '') return found;
  for (let at = text.indexOf(search); at !== -1 && found.length < limit; at = text.indexOf(search, at + 1))
    if (!insideWord(text, at) && !insideWord(text, at + search.length)) found.push(at);
  return found;
}

/** Line breaks in `text` before `end`: the 0-based line `end` is on. */
function lineOf(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * The common case on a long document, without splitting it into lines: every block has one
 * divider and its SEARCH part matches exactly once as written (as whole lines, or inside
 * lines when it is nowhere as whole lines). The outcome is what applyByLines gives for such
 * blocks; null (any other case) leaves the work to it.
 */
function applyExactly(doc: string, blocks: readonly EditBlock[]): EditResult | null {
  let text = doc;
  // The words each replacement removes and adds, counted over the words it touches (from the
  // space before its start to the space after its end), while that costs less than a count of the whole.
  let wordDelta = 0;
  let counted = 0;
  const placed: { block: number; applied: BlockApplied; start: number; count: number }[] = [];
  for (const block of blocks) {
    if (block.dividers.length !== 1) return null;
    const d = block.dividers[0] as number;
    const search = block.body.slice(0, d);
    let replace = block.body.slice(d + 1);
    if (search.length === 0) return null;
    const joined = search.join('\n');
    let how: BlockApplied = 'exact';
    let found = wholeLineMatches(text, joined);
    if (found.length === 0) {
      found = inlineMatches(text, joined);
      how = 'inline';
      // Inside a line, an empty replacement takes the text and leaves the line.
      if (replace.length === 0) replace = [''];
    }
    if (found.length !== 1) return null;
    const offset = found[0] as number;
    const at = lineOf(text, offset);
    const k = search.length;
    // What goes, [from, to), and what comes in its place.
    let from = offset;
    let to = offset + joined.length;
    let put = replace.join('\n');
    if (replace.length === 0) {
      // The block's lines go, with the line break after them (or before them, at the end).
      if (to < text.length) to++;
      else from = Math.max(0, offset - 1);
      put = '';
    }
    let lo = from;
    while (lo > 0 && !isSpaceCode(text.charCodeAt(lo - 1))) lo--;
    let hi = to;
    while (hi < text.length && !isSpaceCode(text.charCodeAt(hi))) hi++;
    const before = counted < doc.length ? wordsIn(text, lo, hi) : 0;
    counted += hi - lo;
    text = text.slice(0, from) + put + text.slice(to);
    if (counted < doc.length) {
      const after = hi - (to - from) + put.length;
      wordDelta += wordsIn(text, lo, after) - before;
      counted += after - lo;
    }
    const delta = replace.length - k;
    for (const p of placed) {
      if (p.start >= at + k) p.start += delta;
      else if (p.start + p.count > at) p.count = Math.max(0, p.count + delta);
    }
    placed.push({ block: block.index, applied: how, start: at, count: replace.length });
  }
  const outcomes: BlockOutcome[] = placed.map((p) => ({ block: p.block, applied: p.applied, line: p.start + 1, lines: p.count }));
  if (counted >= doc.length) wordDelta = countWords(text) - countWords(doc);
  return { text, wordDelta, outcomes: outcomes.sort((a, b) => a.block - b.block), failures: [] };
}

/** The general case, line by line (exported for the test that holds the fast path to it). */
export function applyByLines(doc: string, blocks: readonly EditBlock[]): EditResult {
  let lines = doc.split('\n');
  // The whitespace-tolerant view is built only when an exact match fails: on a long document
  // most blocks match as written, and loosening every line would cost more than the rest.
  let loosenedLines: string[] | null = null;
  const loosened = (): string[] => (loosenedLines ??= lines.map(loose));
  // The lines as one text, for matches inside lines: joined once, again only after a block changed them.
  let joinedText: string | null = null;
  const joined = (): string => (joinedText ??= lines.join('\n'));
  const placed: { block: number; applied: BlockApplied; start: number; count: number }[] = [];
  const failed: { block: EditBlock; failed: BlockFailed; split: Split }[] = [];
  for (const block of blocks) {
    const split = chooseSplit(block, lines, loosened, joined);
    if (split.search.length === 0 || split.starts.length !== 1) {
      failed.push({ block, failed: split.starts.length > 1 || split.search.length === 0 ? 'ambiguous' : 'missing', split });
      continue;
    }
    const at = split.starts[0] as number;
    const k = split.search.length;
    const replace =
      split.how === 'tolerant'
        ? reindent(lines.slice(at, at + k), split.search, split.replace)
        : split.how === 'inline'
          ? within(lines, at, split)
          : split.replace;
    lines = [...lines.slice(0, at), ...replace, ...lines.slice(at + k)];
    joinedText = null;
    if (loosenedLines) loosenedLines = [...loosenedLines.slice(0, at), ...replace.map(loose), ...loosenedLines.slice(at + k)];
    const delta = replace.length - k;
    for (const p of placed) {
      if (p.start >= at + k) p.start += delta;
      else if (p.start + p.count > at) p.count = Math.max(0, p.count + delta);
    }
    placed.push({ block: block.index, applied: split.how, start: at, count: replace.length });
  }
  const failures = failed.map(({ block, failed: why, split }): BlockFailure => {
    const again = split.search.length ? findMatches(lines, loosened, split.search, joined) : { starts: [] };
    const excerpts =
      why === 'ambiguous' && again.starts.length > 0
        ? again.starts.slice(0, MAX_PLACES).map((s) => excerpt(lines, s, split.search.length))
        : closestExcerpt(lines, loosened, split.search);
    return { block: block.index, failed: why, written: block.text, matches: split.search.length ? split.starts.length : lines.length, excerpts };
  });
  const outcomes: BlockOutcome[] = [
    ...placed.map((p) => ({ block: p.block, applied: p.applied, line: p.start + 1, lines: p.count })),
    ...failures.map((f) => ({
      block: f.block,
      failed: f.failed,
      line: f.excerpts[0]?.line ?? null,
      lines: f.excerpts[0]?.lines.length ?? 0,
      matches: f.matches,
    })),
  ].sort((a, b) => a.block - b.block);
  const text = lines.join('\n');
  return { text, wordDelta: countWords(text) - countWords(doc), outcomes, failures };
}

/**
 * Which divider line splits the block: the last one whose SEARCH part matches exactly once
 * (a heading underline above it then belongs to the SEARCH part), else the first.
 */
function chooseSplit(block: EditBlock, lines: readonly string[], loosened: () => readonly string[], joined: () => string): Split {
  let first: Split | undefined;
  for (let i = block.dividers.length - 1; i >= 0; i--) {
    const d = block.dividers[i] as number;
    const search = block.body.slice(0, d);
    const replace = block.body.slice(d + 1);
    const found = search.length ? findMatches(lines, loosened, search, joined) : { starts: [], how: 'exact' as const };
    const split: Split = { search, replace, starts: found.starts, how: found.how ?? 'exact', column: found.column };
    if (split.starts.length === 1) return split;
    if (i === 0) first = split;
  }
  return first as Split;
}

/**
 * Where `search` matches: as whole lines as written if it does anywhere; else inside lines as
 * written if that is one place; else as whole lines ignoring whitespace; else the places
 * inside lines (none, or several: ambiguous).
 */
function findMatches(
  lines: readonly string[],
  loosened: () => readonly string[],
  search: readonly string[],
  joined: () => string,
): { starts: number[]; how?: BlockApplied; column?: number } {
  const exact = runs(lines, search);
  if (exact.length) return { starts: exact, how: 'exact' };
  const text = joined();
  const inline = inlineMatches(text, search.join('\n'), Number.POSITIVE_INFINITY);
  const at = (offset: number): { line: number; column: number } => {
    const line = lineOf(text, offset);
    return { line, column: offset - (text.lastIndexOf('\n', offset - 1) + 1) };
  };
  if (inline.length === 1) {
    const { line, column } = at(inline[0] as number);
    return { starts: [line], how: 'inline', column };
  }
  const tolerant = runs(loosened(), search.map(loose));
  if (tolerant.length) return { starts: tolerant, how: 'tolerant' };
  return inline.length ? { starts: inline.map((o) => at(o).line), how: 'inline' } : { starts: [] };
}

/**
 * The lines an inline match leaves: the text of its first line before the match, the
 * replacement, and the text of its last line after it (an empty replacement takes only the
 * matched text).
 */
function within(lines: readonly string[], at: number, split: Split): string[] {
  const column = split.column ?? 0;
  const k = split.search.length;
  const last = lines[at + k - 1] ?? '';
  const tail = last.slice((k === 1 ? column : 0) + (split.search.at(-1) ?? '').length);
  const replace = split.replace.length ? [...split.replace] : [''];
  replace[0] = (lines[at] ?? '').slice(0, column) + replace[0];
  replace[replace.length - 1] += tail;
  return replace;
}

/** Start indices of every run of `lines` equal to `want`. */
function runs(lines: readonly string[], want: readonly string[]): number[] {
  const out: number[] = [];
  const k = want.length;
  const head = want[0];
  for (let i = 0; i + k <= lines.length; i++) {
    if (lines[i] !== head) continue;
    let j = 1;
    while (j < k && lines[i + j] === want[j]) j++;
    if (j === k) out.push(i);
  }
  return out;
}

const lead = (line: string): string => /^[ \t]*/.exec(line)?.[0] ?? '';

/**
 * A block matched only once its indentation was ignored: its replacement takes the document's
 * indentation when the two differ by one common prefix, else it stays as written.
 */
function reindent(found: readonly string[], search: readonly string[], replace: readonly string[]): string[] {
  const pairs = found.map((f, i) => [f, search[i] ?? ''] as const).filter(([f, s]) => f.trim() !== '' && s.trim() !== '');
  const [f0, s0] = pairs[0] ?? ['', ''];
  const docLead = lead(f0);
  const searchLead = lead(s0);
  if (docLead.length > searchLead.length && docLead.endsWith(searchLead)) {
    const add = docLead.slice(0, docLead.length - searchLead.length);
    if (pairs.every(([f, s]) => lead(f) === add + lead(s))) return replace.map((r) => (r.trim() === '' ? r : add + r));
  } else if (searchLead.length > docLead.length && searchLead.endsWith(docLead)) {
    const drop = searchLead.slice(0, searchLead.length - docLead.length);
    if (pairs.every(([f, s]) => lead(s) === drop + lead(f))) return replace.map((r) => (r.startsWith(drop) ? r.slice(drop.length) : r));
  }
  return [...replace];
}

function excerpt(lines: readonly string[], start: number, count: number): Excerpt {
  const n = Math.max(1, Math.min(count, MAX_EXCERPT_LINES, lines.length - start));
  return { line: start + 1, lines: lines.slice(start, start + n) };
}

/**
 * The window of the document most like `search`: where most of its lines fall in place
 * (ignoring whitespace), else around the line sharing most words with it; none when no
 * line shares a word.
 */
function closestExcerpt(lines: readonly string[], loosenedOf: () => readonly string[], search: readonly string[]): Excerpt[] {
  const loosened = loosenedOf();
  const k = Math.max(1, search.length);
  const want = search.map(loose);
  const wanted = new Map<string, number[]>();
  want.forEach((l, j) => {
    if (l !== '') wanted.set(l, [...(wanted.get(l) ?? []), j]);
  });
  const votes = new Map<number, number>();
  loosened.forEach((l, i) => {
    for (const j of wanted.get(l) ?? []) votes.set(i - j, (votes.get(i - j) ?? 0) + 1);
  });
  let best: number | undefined;
  for (const [start, n] of votes) if (best === undefined || n > (votes.get(best) ?? 0) || (n === votes.get(best) && start < best)) best = start;
  if (best === undefined) {
    const words = new Set(
      want
        .join(' ')
        .toLowerCase()
        .split(' ')
        .filter((w) => w.length > 2),
    );
    let score = 0;
    loosened.forEach((l, i) => {
      const s = l
        .toLowerCase()
        .split(' ')
        .filter((w) => words.has(w)).length;
      if (s > score) [score, best] = [s, i];
    });
  }
  if (best === undefined) return [];
  const start = Math.max(0, Math.min(best, lines.length - k));
  return [excerpt(lines, start, k)];
}

/**
 * Blocks that turn `before` into `after` (both LF), as short as the matching rules allow: each
 * changed stretch with as many words around it as make its SEARCH part match once, where it
 * stands, in the document the blocks before it left; '' when nothing changed. What the mock
 * agent and the benchmark reply in edit mode.
 */
export function editBlocksFor(before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  // Changed runs of lines, as [a0, a1) of `before` replaced by [b0, b1) of `after`.
  const hunks: { a0: number; a1: number; b0: number; b1: number }[] = [];
  let open: (typeof hunks)[number] | null = null;
  let seenA = 0;
  let seenB = 0;
  for (const op of diffLines(a, b)) {
    if (op.type === 'equal') {
      open = null;
      seenA = op.a + 1;
      seenB = op.b + 1;
      continue;
    }
    if (!open) hunks.push((open = { a0: seenA, a1: seenA, b0: seenB, b1: seenB }));
    if (op.type === 'delete') open.a1 = seenA = op.a + 1;
    else open.b1 = seenB = op.b + 1;
  }
  let text = before;
  // Offset in `text` of line `a0` of `before`: the lines above it are already those of `after`.
  let lineStart = 0;
  let line = 0;
  let shift = 0;
  const out: string[] = [];
  for (const h of hunks) {
    for (; line < h.a0; line++) lineStart += (a[line] as string).length + 1;
    let s = lineStart + shift;
    const old = a.slice(h.a0, h.a1).join('\n');
    const neu = b.slice(h.b0, h.b1).join('\n');
    let e: number;
    let r: string;
    if (h.a1 > h.a0 && h.b1 > h.b0) [e, r] = [s + old.length, neu];
    else if (h.a1 > h.a0) {
      // Whole lines go with one line break: the one after them, or at the end the one before.
      if (h.a1 < a.length) [e, r] = [s + old.length + 1, ''];
      else [s, e, r] = [Math.max(0, s - 1), s + old.length, ''];
    } else if (h.a0 < a.length) [e, r] = [s, `${neu}\n`];
    else [s, e, r] = [text.length, text.length, `\n${neu}`];
    // Only what differs, then whole words around it until the SEARCH text is found once, here.
    const span = text.slice(s, e);
    let p = 0;
    while (p < span.length && p < r.length && span[p] === r[p]) p++;
    let q = 0;
    while (q < span.length - p && q < r.length - p && span[span.length - 1 - q] === r[r.length - 1 - q]) q++;
    // Never between the two halves of a surrogate pair.
    if (p > 0 && isLowSurrogate(span, p)) p--;
    if (q > 0 && isLowSurrogate(span, span.length - q)) q--;
    let from = s + p;
    let to = e - q;
    let middle = r.slice(p, r.length - q);
    // Lines put in at the start of a line go in at the end of the line above instead (the same
    // text), so the block quotes the line they follow and not a bare line break.
    while (from === to && from > 0 && middle.endsWith('\n') && text[from - 1] === '\n') {
      from = to = from - 1;
      middle = `\n${middle.slice(0, -1)}`;
    }
    let x = from;
    let y = to;
    while (insideWord(text, x)) x -= x > 1 && isLowSurrogate(text, x - 1) ? 2 : 1;
    while (insideWord(text, y)) y += isLowSurrogate(text, y + 1) ? 2 : 1;
    for (let left = true; !placedOnce(text, x, y); left = !left) {
      if ((left && x > 0) || y >= text.length) x = stepLeft(text, x);
      else y = stepRight(text, y);
    }
    // Whitespace at the edges of the window goes when the rest is still found once.
    while (y > to && /\s/.test(text[y - 1] as string) && placedOnce(text, x, y - 1)) y--;
    while (x < from && /\s/.test(text[x] as string) && placedOnce(text, x + 1, y)) x++;
    const search = text.slice(x, y);
    const replace = text.slice(x, from) + middle + text.slice(to, y);
    // Always a replacement part, if only an empty line: an empty part would also take the line breaks.
    out.push([EDIT_MARKERS.search, search, EDIT_MARKERS.divider, replace, EDIT_MARKERS.replace].join('\n'));
    text = text.slice(0, from) + middle + text.slice(to);
    shift += middle.length - (to - from);
    // The next hunk starts below this one: count its old lines into lineStart.
    for (; line < h.a1; line++) lineStart += (a[line] as string).length + 1;
  }
  return out.join('\n\n');
}

/** Whether text[x, y) is a SEARCH text that the matching rules place at x and nowhere else. */
function placedOnce(text: string, x: number, y: number): boolean {
  if (x === 0 && y === text.length) return true;
  const search = text.slice(x, y);
  if (search.trim() === '') return false;
  const whole = wholeLineMatches(text, search);
  if (whole.length) return whole.length === 1 && whole[0] === x;
  const inline = inlineMatches(text, search);
  return inline.length === 1 && inline[0] === x;
}

const isLowSurrogate = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff;
};

/** The code point that ends just before `i` is a word character. */
function wordBefore(text: string, i: number): boolean {
  if (i <= 0) return false;
  const from = i >= 2 && isLowSurrogate(text, i - 1) ? i - 2 : i - 1;
  return WORD_RE.test(String.fromCodePoint(text.codePointAt(from) as number));
}

/** The code point that starts at `i` is a word character. */
const wordAt = (text: string, i: number): boolean => i < text.length && WORD_RE.test(String.fromCodePoint(text.codePointAt(i) as number));

/** Left of x past the characters that are not words, then past one word. */
function stepLeft(text: string, x: number): number {
  let i = x;
  const back = (): number => (i >= 2 && isLowSurrogate(text, i - 1) ? 2 : 1);
  while (i > 0 && !wordBefore(text, i)) i -= back();
  while (wordBefore(text, i)) i -= back();
  return Math.max(0, i);
}

/** Right of y past the characters that are not words, then past one word. */
function stepRight(text: string, y: number): number {
  let i = y;
  const ahead = (): number => (isLowSurrogate(text, i + 1) ? 2 : 1);
  while (i < text.length && !wordAt(text, i)) i += ahead();
  while (wordAt(text, i)) i += ahead();
  return Math.min(text.length, i);
}

/**
 * Why a reply's blocks go back for repair, by block number and line only: a repair reason
 * stands outside the prompt's frames, where neither document text nor block text may appear.
 */
export function editsReason(edits: EditReport): string {
  const total = edits.blocks.length;
  const failed = edits.blocks.filter((o) => 'failed' in o);
  const each = failed.map((o) => {
    if (!('failed' in o)) return '';
    const at = o.line === null ? null : o.lines > 1 ? `lines ${o.line}-${o.line + o.lines - 1}` : `line ${o.line}`;
    if (o.failed === 'ambiguous') return `block ${o.block} matches ${o.matches} places${at ? ` (first: ${at})` : ''}`;
    return `block ${o.block} matches nowhere (${at ? `closest: ${at}` : 'no line is close'})`;
  });
  const rest = total > failed.length ? `; the other ${total - failed.length} applied and are in the document below` : '';
  return `${failed.length} of ${total} edit block${total === 1 ? '' : 's'} did not apply: ${each.join('; ')}${rest}`;
}
