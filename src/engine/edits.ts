/**
 * Edit replies: search/replace blocks against the document an agent was sent, parsed, applied
 * in order (exactly, else ignoring whitespace) and reported block by block. Pure functions of
 * text; the reply mode that uses them is `editsMode` in reply.ts.
 */
import { diffLines } from '../report/line-diff.js';
import type { BlockApplied, BlockFailed, EditFormat, EditFormatSetting } from '../vocabulary.js';
import { countWords } from './words.js';

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

/** The edit format a run uses: the setting, with `auto` decided by the input's size. */
export function editFormatFor(setting: EditFormatSetting, text: string): EditFormat {
  if (setting !== 'auto') return setting;
  // A document that shows block markers itself could not be told apart from an agent's blocks.
  if (holdsEditMarkers(text)) return 'whole';
  return countWords(text) > AUTO_EDITS_ABOVE_WORDS ? 'edits' : 'whole';
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

/** Line breaks in `text` before `end`: the 0-based line `end` is on. */
function lineOf(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * The common case on a long document, without splitting it into lines: every block has one
 * divider and its SEARCH part matches exactly once, as written. The outcome is what
 * applyByLines gives for such blocks; null (any other case) leaves the work to it.
 */
function applyExactly(doc: string, blocks: readonly EditBlock[]): EditResult | null {
  let text = doc;
  const placed: { block: number; start: number; count: number }[] = [];
  for (const block of blocks) {
    if (block.dividers.length !== 1) return null;
    const d = block.dividers[0] as number;
    const search = block.body.slice(0, d);
    const replace = block.body.slice(d + 1);
    if (search.length === 0) return null;
    const joined = search.join('\n');
    const found = wholeLineMatches(text, joined);
    if (found.length !== 1) return null;
    const offset = found[0] as number;
    const at = lineOf(text, offset);
    const k = search.length;
    if (replace.length === 0) {
      // The block's lines go, with the line break after them (or before them, at the end).
      const end = offset + joined.length;
      text = end < text.length ? text.slice(0, offset) + text.slice(end + 1) : text.slice(0, Math.max(0, offset - 1));
    } else text = text.slice(0, offset) + replace.join('\n') + text.slice(offset + joined.length);
    const delta = replace.length - k;
    for (const p of placed) {
      if (p.start >= at + k) p.start += delta;
      else if (p.start + p.count > at) p.count = Math.max(0, p.count + delta);
    }
    placed.push({ block: block.index, start: at, count: replace.length });
  }
  const outcomes: BlockOutcome[] = placed.map((p) => ({ block: p.block, applied: 'exact', line: p.start + 1, lines: p.count }));
  return { text, outcomes: outcomes.sort((a, b) => a.block - b.block), failures: [] };
}

/** The general case, line by line (exported for the test that holds the fast path to it). */
export function applyByLines(doc: string, blocks: readonly EditBlock[]): EditResult {
  let lines = doc.split('\n');
  // The whitespace-tolerant view is built only when an exact match fails: on a long document
  // most blocks match as written, and loosening every line would cost more than the rest.
  let loosenedLines: string[] | null = null;
  const loosened = (): string[] => (loosenedLines ??= lines.map(loose));
  const placed: { block: number; applied: BlockApplied; start: number; count: number }[] = [];
  const failed: { block: EditBlock; failed: BlockFailed; split: Split }[] = [];
  for (const block of blocks) {
    const split = chooseSplit(block, lines, loosened);
    if (split.search.length === 0 || split.starts.length !== 1) {
      failed.push({ block, failed: split.starts.length > 1 || split.search.length === 0 ? 'ambiguous' : 'missing', split });
      continue;
    }
    const at = split.starts[0] as number;
    const k = split.search.length;
    const replace = split.how === 'tolerant' ? reindent(lines.slice(at, at + k), split.search, split.replace) : split.replace;
    lines = [...lines.slice(0, at), ...replace, ...lines.slice(at + k)];
    if (loosenedLines) loosenedLines = [...loosenedLines.slice(0, at), ...replace.map(loose), ...loosenedLines.slice(at + k)];
    const delta = replace.length - k;
    for (const p of placed) {
      if (p.start >= at + k) p.start += delta;
      else if (p.start + p.count > at) p.count = Math.max(0, p.count + delta);
    }
    placed.push({ block: block.index, applied: split.how, start: at, count: replace.length });
  }
  const failures = failed.map(({ block, failed: why, split }): BlockFailure => {
    const again = split.search.length ? findMatches(lines, loosened, split.search) : { starts: [] };
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
  return { text: lines.join('\n'), outcomes, failures };
}

/**
 * Which divider line splits the block: the last one whose SEARCH part matches exactly once
 * (a heading underline above it then belongs to the SEARCH part), else the first.
 */
function chooseSplit(block: EditBlock, lines: readonly string[], loosened: () => readonly string[]): Split {
  let first: Split | undefined;
  for (let i = block.dividers.length - 1; i >= 0; i--) {
    const d = block.dividers[i] as number;
    const search = block.body.slice(0, d);
    const replace = block.body.slice(d + 1);
    const found = search.length ? findMatches(lines, loosened, search) : { starts: [], how: 'exact' as const };
    const split: Split = { search, replace, starts: found.starts, how: found.how ?? 'exact' };
    if (split.starts.length === 1) return split;
    if (i === 0) first = split;
  }
  return first as Split;
}

/** Where `search` matches as whole lines: exactly if it does anywhere, else ignoring whitespace. */
function findMatches(lines: readonly string[], loosened: () => readonly string[], search: readonly string[]): { starts: number[]; how?: BlockApplied } {
  const exact = runs(lines, search);
  if (exact.length) return { starts: exact, how: 'exact' };
  const tolerant = runs(loosened(), search.map(loose));
  return tolerant.length ? { starts: tolerant, how: 'tolerant' } : { starts: [] };
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
 * Blocks that turn `before` into `after` (both LF): each changed run of lines with as many
 * lines around it as make its SEARCH part unique in `before`; '' when nothing changed. What
 * the mock agent and the benchmark reply in edit mode.
 */
export function editBlocksFor(before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  // Where each unchanged line of `a` stands in `b`: a block's edges are unchanged lines (or an end).
  const bOf = new Map<number, number>();
  const hunks: { a0: number; a1: number }[] = [];
  let open: { a0: number; a1: number } | null = null;
  let seen = 0;
  for (const op of diffLines(a, b)) {
    if (op.type === 'equal') {
      bOf.set(op.a, op.b);
      open = null;
      seen = op.a + 1;
    } else if (op.type === 'delete') {
      if (!open) hunks.push((open = { a0: op.a, a1: op.a }));
      open.a1 = seen = op.a + 1;
    } else if (!open) hunks.push((open = { a0: seen, a1: seen }));
  }
  for (const h of hunks) {
    // Context is taken line by line, above then below, until the SEARCH part is found once.
    for (let above = true; h.a1 - h.a0 === 0 || runs(a, a.slice(h.a0, h.a1)).length !== 1; above = !above) {
      if (above && h.a0 > 0) h.a0--;
      else if (h.a1 < a.length) h.a1++;
      else if (h.a0 > 0) h.a0--;
      else break;
    }
  }
  const merged: { a0: number; a1: number }[] = [];
  for (const h of [...hunks].sort((x, y) => x.a0 - y.a0)) {
    const last = merged.at(-1);
    if (last && h.a0 <= last.a1) last.a1 = Math.max(last.a1, h.a1);
    else merged.push({ ...h });
  }
  return merged
    .map((h) => {
      const b0 = h.a0 === 0 ? 0 : (bOf.get(h.a0 - 1) as number) + 1;
      const b1 = h.a1 === a.length ? b.length : (bOf.get(h.a1) as number);
      return [EDIT_MARKERS.search, ...a.slice(h.a0, h.a1), EDIT_MARKERS.divider, ...b.slice(b0, b1), EDIT_MARKERS.replace].join('\n');
    })
    .join('\n\n');
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
