/**
 * Finds Bounce Protocol notes ([CONTESTED], [CLARIFY] and configured extra markers) in a
 * document. Markdown hides markers in code and HTML comments (see code-ranges.ts) and also
 * reads brackets written as character references or escapes; plain text counts every
 * literal occurrence. See docs/scanning.md for the user-facing rules.
 */
import { blockEnd, markdownRegions, type TextBlocks } from './code-ranges.js';
import { type DisguisedMarker, disguisedMarkers } from './disguise.js';

export { diffNotes, noteKey } from './notes-diff.js';

export type { Syntax } from '../vocabulary.js';
import type { Syntax } from '../vocabulary.js';
import { withoutBom } from '../text/lines.js';

export const DEFAULT_MARKERS: readonly string[] = ['CONTESTED', 'CLARIFY'];

export interface Note {
  /** Upper-case marker name without brackets, e.g. 'CONTESTED'. */
  kind: string;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units, of the marker's '['. */
  column: number;
  /** 0-based index into the scanned text (after BOM removal). */
  offset: number;
  /** From the marker to the end of its paragraph (or the next note), whitespace-normalised. */
  text: string;
  /** Nearest non-blank line above the note's line, trimmed; null if none. */
  refersTo: { line: number; text: string } | null;
  /** The marker starts its line's text after list, quote and emphasis prefixes. */
  canonical: boolean;
  /** Set when the marker is disguised (an invisible or look-alike character in its spelling): what disguised it. */
  disguise?: string;
}

export interface ScanOptions {
  syntax?: Syntax;
  /** Markdown read as MDX (see mdxForPath): JSX, ESM lines and expression comments are not text. */
  mdx?: boolean;
  /** Extra marker names, added to DEFAULT_MARKERS. */
  markers?: readonly string[];
}

// Indentation, `>` quotes, list markers (each followed by a space or tab), one emphasis
// opener, and a backslash escaping the marker's `[`.
const CANONICAL_PREFIX = /[ \t]*(?:(?:>|[-*+][ \t]|\d{1,9}[.)][ \t])[ \t]*)*(?:\*{1,3}|_{1,3})?\\?/y;
const LINE_BREAK = /\r\n|\n|\r/g;

// In markdown a bracket may also be written as a character reference (decimal: up to 7
// digits, hex: up to 6; named ones are case-sensitive), and `]` as `\]` (`\[` needs no
// pattern: the marker's `[` follows the backslash).
const OPEN_REF = '&#0{0,5}91;|&#[xX]0{0,4}5[bB];|&lbrack;|&lsqb;';
const CLOSE_REF = '\\\\\\]|&#0{0,5}93;|&#[xX]0{0,4}5[dD];|&rbrack;|&rsqb;';

export function syntaxForPath(path: string | undefined): Syntax {
  if (path === undefined || /\.(?:md|markdown|mdx)$/i.test(path)) return 'markdown';
  if (/\.json$/i.test(path)) return 'json';
  return /\.ya?ml$/i.test(path) ? 'yaml' : 'plain';
}

/** `.mdx` files are markdown read with the MDX rules. */
export function mdxForPath(path: string | undefined): boolean {
  return path !== undefined && /\.mdx$/i.test(path);
}

/** The marker names as pattern alternatives: names match in any case, bracket references only as written (so no 'i' flag). */
function markerNames(extra: readonly string[]): string {
  const names = new Set([...DEFAULT_MARKERS, ...extra].filter((n) => n !== '').map((n) => n.toUpperCase()));
  const anyCase = (c: string): string =>
    c.toLowerCase() !== c.toUpperCase() ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  return [...names].map((n) => [...n].map(anyCase).join('')).join('|');
}

function markerPattern(names: string, markdown: boolean): RegExp {
  const open = markdown ? `\\[|${OPEN_REF}` : '\\[';
  const close = markdown ? `\\]|${CLOSE_REF}` : '\\]';
  return new RegExp(`(?:${open})(${names})(?:${close})`, 'y');
}

/**
 * The markers found in a text, in text order: their offsets alone, in a typed array (one
 * long line may hold hundreds of thousands of them, and an object each would cost many times
 * the text). What a marker spelled plainly is (its name, its length) is read again from the
 * text where it is needed (`Candidates.at`); the few disguised ones keep theirs by offset.
 */
class Candidates {
  size = 0;
  index: Int32Array;
  /** The disguised markers by offset: the name as it reads, the length, what disguised it. */
  disguised = new Map<number, DisguisedMarker>();

  /** Room for exactly `capacity` markers: the caller counts them first, so no grown copy is ever made (on one 8 MB line of notes the copies of a doubling array cost 5 MB). */
  constructor(
    private readonly sticky: RegExp,
    capacity: number,
  ) {
    this.index = new Int32Array(capacity);
  }

  push(index: number): void {
    this.index[this.size++] = index;
  }

  /** Keeps the markers `keep` accepts, in order, in place. */
  retain(keep: (offset: number) => boolean): void {
    let n = 0;
    for (let k = 0; k < this.size; k++) {
      const offset = this.index[k]!;
      if (keep(offset)) this.index[n++] = offset;
    }
    this.size = n;
  }

  /** The marker at `offset`: its name as written (as it reads, when disguised), its length, whether it is the plain `[name]`; when disguised, what disguised it and what shows after it if not the text (a reversed run). */
  at(text: string, offset: number): { name: string; length: number; plain: boolean; disguise?: string; shows?: string } {
    const d = this.disguised.get(offset);
    if (d) return { name: d.name, length: d.end - d.index, plain: false, disguise: d.disguise, shows: d.shows };
    this.sticky.lastIndex = offset;
    const m = this.sticky.exec(text)!;
    const name = m[1]!;
    return { name, length: m[0].length, plain: m[0].length === name.length + 2 && text.charCodeAt(offset) === 91 };
  }
}

/** The last names and patterns built: a scan of many files builds them once. */
let patterns: { key: string; names: string; stickyMarkdown: RegExp; stickyPlain: RegExp } | undefined;

function markerPatterns(markers: readonly string[]): NonNullable<typeof patterns> {
  const key = markers.join('\n');
  if (patterns?.key !== key) {
    const names = markerNames(markers);
    patterns = { key, names, stickyMarkdown: markerPattern(names, true), stickyPlain: markerPattern(names, false) };
  }
  return patterns;
}

/**
 * Calls `found` with the offset of each marker `sticky` matches, in text order, as a global
 * search would find them. A marker opens with `[`, or in Markdown with a character reference,
 * which starts with `&`: a string search finds those, and the pattern is tried only there,
 * with `test`, which builds no match array (a million of them grew the young generation of
 * the garbage collector by megabytes, on one 8 MB line of notes).
 */
function eachMarker(text: string, sticky: RegExp, markdown: boolean, found: (offset: number) => void): void {
  let bracket = text.indexOf('[');
  let amp = markdown ? text.indexOf('&') : -1;
  while (bracket !== -1 || amp !== -1) {
    const at = amp === -1 || (bracket !== -1 && bracket < amp) ? bracket : amp;
    sticky.lastIndex = at;
    let next = at + 1;
    if (sticky.test(text)) {
      found(at);
      next = sticky.lastIndex;
    }
    if (bracket !== -1 && bracket < next) bracket = text.indexOf('[', next);
    if (amp !== -1 && amp < next) amp = text.indexOf('&', next);
  }
}

/** Every marker spelling in the text, disguised ones included, in text order. */
function candidates(text: string, markers: readonly string[], markdown: boolean, mdx: boolean, json: boolean): Candidates {
  const { names, ...re } = markerPatterns(markers);
  const sticky = markdown ? re.stickyMarkdown : re.stickyPlain;
  // Counted, then recorded: a search is cheap beside the memory a growing array wastes.
  let count = 0;
  eachMarker(text, sticky, markdown, () => count++);
  const found = new Candidates(sticky, count);
  if (count > 0) eachMarker(text, sticky, markdown, (offset) => found.push(offset));
  const disguised = disguisedMarkers(text, found.index.subarray(0, found.size), { markdown, mdx, json, names });
  if (disguised.length === 0) return found;
  // Both are in text order: merge them.
  const all = new Candidates(sticky, found.size + disguised.length);
  let d = 0;
  for (let k = 0; k <= found.size; k++) {
    const next = k < found.size ? found.index[k]! : Number.POSITIVE_INFINITY;
    for (; d < disguised.length && disguised[d]!.index < next; d++) {
      all.push(disguised[d]!.index);
      all.disguised.set(disguised[d]!.index, disguised[d]!);
    }
    if (k < found.size) all.push(found.index[k]!);
  }
  return all;
}

/** A character reference after an odd number of backslashes is escaped text, not a bracket. */
function escapedReference(text: string, offset: number): boolean {
  let n = 0;
  while (text.charCodeAt(offset - 1 - n) === 92) n++;
  return text[offset] === '&' && n % 2 === 1;
}

export function scanNotes(input: string, opts: ScanOptions = {}): Note[] {
  return Array.from(noteStream(input, opts));
}

/** The notes of scanNotes one at a time, none kept: a caller that prints them holds one at once. */
export function* noteStream(input: string, opts: ScanOptions = {}): Generator<Note, void, undefined> {
  const text = withoutBom(input);
  const markdown = (opts.syntax ?? 'markdown') === 'markdown';
  // The cheap pre-check: no marker at all means no parsing at all.
  const c = candidates(text, opts.markers ?? [], markdown, markdown && (opts.mdx ?? false), opts.syntax === 'json');
  // The markers to read: not escaped references, then not hidden.
  if (markdown) c.retain((offset) => !escapedReference(text, offset));
  if (c.size === 0) return;
  const regions = markdown ? markdownRegions(text, c.index.subarray(0, c.size), { mdx: opts.mdx ?? false }) : undefined;
  const hidden = regions?.hidden ?? [];
  const literal = regions?.literal ?? [];
  // In an autolink only the plain `[name]` is a marker. A reversed marker is in code when its own characters are (its
  // offset is its run's control, and a control in a code span goes on reversing the text after it).
  // A run a `<bdo>` opens counts only when the tag is markup: one in a code span or a comment is text.
  c.retain((offset) => {
    const d = c.disguised.size > 0 ? c.disguised.get(offset) : undefined;
    const at = d?.spelledAt ?? offset;
    if (d?.tags?.some((tag) => isHidden(hidden, tag))) return false;
    return !isHidden(hidden, at) && (!isHidden(literal, at) || c.at(text, offset).plain);
  });
  const visible = c.size;
  const lines = lineIndex(text);
  const blocks: TextBlocks = regions?.blocks ?? { segs: new Int32Array(0), starts: [] };
  let block = 0;
  const above = refersToCache(text, lines, markdown);
  const kinds = new Map<string, string>();

  for (let v = 0; v < visible; v++) {
    const offset = c.index[v]!;
    const { name, length, disguise, shows = '' } = c.at(text, offset);
    const line = lineAt(lines.starts, offset);
    const lineStart = lines.starts[line]!;
    const limit = v + 1 < visible ? c.index[v + 1]! : text.length;
    // The pairs of the note's text are segs[first] up to segs[end] (exclusive): its block's, or those found here.
    let segs: ArrayLike<number>;
    let first = 0;
    let end = 0;
    if (markdown) {
      while (block < blocks.starts.length && blocks.segs[blockEnd(blocks, block) - 1]! <= offset) block++;
      if (block < blocks.starts.length && blocks.segs[blocks.starts[block]!]! <= offset) {
        segs = blocks.segs;
        first = blocks.starts[block]!;
        end = blockEnd(blocks, block);
      } else segs = [offset, lines.ends[line]!];
    } else if (opts.syntax === 'json') segs = jsonString(text, lines, line, offset, offset + length);
    else if (opts.syntax === 'yaml' && yamlComment(text, lineStart, offset)) segs = yamlCommentLines(text, lines, line, offset, limit);
    else segs = plainParagraph(text, lines, line, offset, limit);
    if (end === 0) end = segs.length;
    CANONICAL_PREFIX.lastIndex = lineStart;
    CANONICAL_PREFIX.test(text);
    const canonical =
      opts.syntax === 'json'
        ? JSON_NOTE_START.test(text.slice(lineStart, offset))
        : opts.syntax === 'yaml'
          ? YAML_NOTE_START.test(text.slice(lineStart, offset))
          : CANONICAL_PREFIX.lastIndex === offset;
    let kind = kinds.get(name);
    if (kind === undefined) kinds.set(name, (kind = name.toUpperCase()));
    const note: Note = {
      kind,
      line: line + 1,
      column: offset - lineStart + 1,
      offset,
      // The marker as it renders (as it reads, when disguised), `[name]`, then the rest of the note as written (what a
      // reversed run shows after a marker in it, then the text after the run; a run may reach past the next note's offset).
      text: collect(text, segs, first, end, offset + length, limit, `[${name}]${shows}`),
      refersTo: above(line),
      canonical,
    };
    if (disguise !== undefined) note.disguise = disguise;
    yield note;
  }
}

export interface Lines {
  starts: Int32Array;
  ends: Int32Array;
}

/**
 * Where each line of `text` starts and ends (CRLF, LF and CR all end a line). The breaks are
 * counted first and the offsets then written into arrays of that size: arrays grown by push
 * left about three times their final size for the collector, 39 MB on 8 MB of short lines.
 */
export function lineIndex(text: string): Lines {
  const lf = !text.includes('\r');
  let count = 0;
  // LF only, the common case: a string search is several times quicker than the pattern.
  if (lf) for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  else {
    LINE_BREAK.lastIndex = 0;
    while (LINE_BREAK.test(text)) count++;
  }
  const lines: Lines = { starts: new Int32Array(count + 1), ends: new Int32Array(count + 1) };
  let n = 0;
  if (lf) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
      lines.ends[n] = i;
      lines.starts[++n] = i + 1;
    }
  } else {
    LINE_BREAK.lastIndex = 0;
    for (let m = LINE_BREAK.exec(text); m; m = LINE_BREAK.exec(text)) {
      lines.ends[n] = m.index;
      lines.starts[++n] = LINE_BREAK.lastIndex;
    }
  }
  lines.ends[n] = text.length;
  return lines;
}

/** The 0-based line of `offset`, from lineIndex's starts. */
export function lineAt(starts: ArrayLike<number>, offset: number): number {
  let lo = 0,
    hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Hidden ranges are sorted, disjoint [start, end) pairs. */
function isHidden(hidden: number[], offset: number): boolean {
  let lo = 0,
    hi = hidden.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (hidden[2 * mid + 1]! <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo < hidden.length / 2 && hidden[2 * lo]! <= offset;
}

// JSON: a note opens a string value (`"key": "[CONTESTED] ...` or an array element); YAML: it opens a comment line.
const JSON_NOTE_START = /(?:^|[:[,])\s*"$/;
const YAML_NOTE_START = /^\s*(?:-\s+)?#\s*$/;

/** JSON: the marker's string, up to its closing quote (a JSON string never spans lines), else the line's end. */
function jsonString(text: string, lines: Lines, line: number, offset: number, from: number): number[] {
  const end = lines.ends[line]!;
  let i = from;
  while (i < end && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return [offset, Math.min(i, end)];
}

/** YAML: the marker is in a comment when a `#` at the line's start or after a blank comes before it. */
function yamlComment(text: string, lineStart: number, offset: number): boolean {
  return /(?:^|\s)#/.test(text.slice(lineStart, offset));
}

/** YAML: the rest of the marker's comment, then the comment-only lines right below it, each without its `#`. */
function yamlCommentLines(text: string, lines: Lines, line: number, offset: number, limit: number): number[] {
  const segs = [offset, lines.ends[line]!];
  for (let l = line + 1; l < lines.starts.length && lines.starts[l]! < limit; l++) {
    const start = lines.starts[l]!;
    const m = /^[ \t]*#+[ \t]?/.exec(text.slice(start, lines.ends[l]));
    if (!m || text.slice(start + m[0].length, lines.ends[l]).trim() === '') break;
    segs.push(start + m[0].length, lines.ends[l]!);
  }
  return segs;
}

/** Plain text: the marker's line and the following lines up to a blank line or the next note. */
function plainParagraph(text: string, lines: Lines, line: number, offset: number, limit: number): number[] {
  const segs = [offset, lines.ends[line]!];
  for (let l = line + 1; l < lines.starts.length && lines.starts[l]! < limit; l++) {
    const start = lines.starts[l]!,
      end = lines.ends[l]!;
    if (/^\s*$/.test(text.slice(start, end))) break;
    segs.push(start, end);
  }
  return segs;
}

/** Whitespace collect must normalise: a run of two, or any but a plain space. */
const UNEVEN_SPACE = /\s\s|[^\S ]/;

/** `head`, then the text from `from` to `to` within the [start, end) pairs segs[first] up to segs[end], whitespace made single spaces. */
function collect(text: string, segs: ArrayLike<number>, first: number, end: number, from: number, to: number, head: string): string {
  // The common case, a note within one segment with single spaces: one slice.
  if (end - first === 2 && segs[first]! <= from && to <= segs[first + 1]!) {
    const body = text.slice(from, to);
    if (!UNEVEN_SPACE.test(body)) return `${head}${body}`.trim();
  }
  const parts: string[] = [head];
  // Start at the segment holding `from`: one long paragraph may hold thousands of notes.
  let lo = 0,
    hi = (end - first) / 2 - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (segs[first + 2 * mid + 1]! <= from) lo = mid + 1;
    else hi = mid;
  }
  for (let k = first + 2 * lo; k < end && segs[k]! < to; k += 2) {
    const a = Math.max(segs[k]!, from),
      b = Math.min(segs[k + 1]!, to);
    // The first piece continues the marker's line: no separator after the head.
    if (a < b) parts.push(parts.length === 1 && a === from ? `${parts.pop()}${text.slice(a, b)}` : text.slice(a, b));
  }
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

/** refersTo by line; remembers the last answer, so notes sharing a line share one upward search. */
function refersToCache(text: string, lines: Lines, markdown: boolean): (line: number) => Note['refersTo'] {
  let lastLine = -1;
  let last: Note['refersTo'] = null;
  return (line) => {
    if (line === lastLine) return last;
    lastLine = line;
    last = null;
    for (let l = line - 1; l >= 0 && !last; l--) {
      const t = text.slice(lines.starts[l], lines.ends[l]).trim();
      // In markdown a line of only `>` is a blank line inside a block quote.
      if (t !== '' && !(markdown && /^[>\s]*$/.test(t))) last = { line: l + 1, text: t };
    }
    return last;
  };
}
