/**
 * Where a CommonMark 0.31 document hides text from readers: fenced and indented code,
 * code spans and HTML comments. A line-at-a-time block parser that follows the spec's
 * algorithm (the one commonmark.js implements), plus an inline pass over only the
 * blocks that hold a candidate marker. Why not micromark: on a 2 MB document it took
 * ~2 s of linear work plus minutes of quadratic list/quote handling.
 */
import { CLOSE_TAG, htmlFinders, htmlHidden, inlineHidden, OPEN_TAG } from './inline-ranges.js';
import { jsxTagEnd } from './mdx-syntax.js';
import { firstAtLeast } from '../arrays.js';

export interface RegionOptions {
  /** MDX rules: no indented code, no HTML blocks but comments and script/style, ESM lines, JSX inline. */
  mdx?: boolean;
  /** When given, receives every code block, in document order. */
  code?: CodeBlock[];
}

export interface CodeBlock {
  fenced: boolean;
  /** Ended by a closing fence; false when its container or the document ended it. Indented code: true. */
  closed: boolean;
  /** Offset where the block starts (the opening fence, for fenced code). */
  start: number;
  /** Content lines as flat [start, end) pairs, without container prefixes (nor fences). */
  lines: number[];
}

export interface MarkdownRegions {
  /** Hidden text as flat, sorted [start, end) offset pairs. */
  hidden: number[];
  /** Autolinks, where an escape or character reference is text: flat, sorted [start, end) pairs. */
  literal: number[];
  /** Text blocks (paragraphs, headings, HTML blocks) holding a candidate, in document order. */
  blocks: TextBlocks;
}

/**
 * Text blocks as [start, end) content pairs, one per line, every block's after the one
 * before in `segs`: block k's are `segs[starts[k]]` up to `segs[starts[k + 1]]` (or the end).
 * One list for all, not an array per block: 8 MB of one-note paragraphs made 600,000 arrays,
 * about 50 MB.
 */
export interface TextBlocks {
  segs: Int32Array;
  starts: number[];
}

/**
 * The pairs of the walk: the open text block (a paragraph or HTML block) writes its lines
 * after the blocks kept so far, and is kept, or cut off again, when it closes. A typed array
 * grown by doubling: a paragraph of a million lines leaves no grown copies of a JS array
 * behind for the collector (about 40 MB on 8 MB of short lines).
 */
class Pairs {
  data = new Int32Array(256);
  length = 0;
  push(a: number, b: number): void {
    if (this.length + 2 > this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = a;
    this.data[this.length++] = b;
  }
}

/** Where block `k` of `blocks` ends in its `segs` (exclusive). */
export function blockEnd(blocks: TextBlocks, k: number): number {
  return k + 1 < blocks.starts.length ? blocks.starts[k + 1]! : blocks.segs.length;
}

interface Container {
  quote: boolean;
  width: number;
  hasChild: boolean;
}
type Code = { t: 'code'; start: number; end: number; fence: string; len: number; closed: boolean; lines: number[] };
/** A paragraph or HTML block: its lines are `pairs` from `begin` on (set when it opens). */
type Leaf = { t: 'para'; begin: number } | { t: 'html'; kind: number; begin: number } | Code;

const TAB = 9,
  SPACE = 32,
  GT = 62;
const LINE = /\r\n|\n|\r/g;
const MAYBE_SPECIAL = /[#`~*+_=<>0-9-]/; // the only characters a block start can begin with
const LIST = /[-+*]|(\d{1,9})[.)]/y;
/** MDX: an `import` or `export` line at the top level starts an ESM block, up to a blank line. */
const ESM = /(?:import|export)[ \t]/y;
const ESM_KIND = 8;
const BLOCK_NAMES =
  'address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|' +
  'fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|' +
  'menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul';
const HTML_OPEN = [
  /^<(?:script|pre|textarea|style)(?:\s|>|$)/i,
  /^<!--/,
  /^<\?/,
  /^<![A-Za-z]/,
  /^<!\[CDATA\[/,
  new RegExp(`^</?(?:${BLOCK_NAMES})(?:\\s|/?>|$)`, 'i'),
  new RegExp(`^(?:${OPEN_TAG}|${CLOSE_TAG})\\s*$`),
];
/** MDX: `<pre>` and `<textarea>` are JSX like any other tag (only comments and script/style start an HTML block). */
const JSX_ONLY = /^<(?:pre|textarea)(?:\s|>|$)/i;
const HTML_CLOSE = [/<\/(?:script|pre|textarea|style)>/i, /-->/, /\?>/, />/, /\]\]>/];

export function markdownRegions(text: string, candidates: ArrayLike<number>, opts: RegionOptions = {}): MarkdownRegions {
  const mdx = opts.mdx ?? false;
  const out: MarkdownRegions = { hidden: [], literal: [], blocks: { segs: new Int32Array(0), starts: [] } };
  const pairs = new Pairs();
  const stack: Container[] = [];
  // Indices into stack of the containers a blank line does not continue (block quotes and
  // items still without content), ascending: a blank line is then one search, not a walk.
  const stoppers: number[] = [];
  let leaf: Leaf | null = null;
  let nextCandidate = 0;
  const html = htmlFinders(text);
  // Per-line cursor: pos is a char index, col a column (tabs stop every 4); nn* is the next
  // non-space, computed from nsFrom (so a run of spaces is measured once per line).
  let lineEnd = 0,
    pos = 0,
    col = 0,
    nnPos = 0,
    nnCol = 0,
    nsFrom = -1,
    indent = 0,
    blank = false;
  let matched = 0,
    leafOk = false,
    allClosed = true;
  // MDX: the end of a JSX tag that opened a paragraph line and runs past it.
  let jsxUntil = -1;
  const NEVER = -3;
  // Thematic breaks: per line and character, where the run of only that character and spaces up to the line's end begins.
  const pureFrom = new Map<number, number>();

  const nonspace = (): void => {
    if (nsFrom < 0 || pos < nsFrom || pos > nnPos) {
      let p = pos,
        c = col;
      for (; p < lineEnd; p++) {
        const ch = text.charCodeAt(p);
        if (ch === SPACE) c++;
        else if (ch === TAB) c += 4 - (c % 4);
        else break;
      }
      nsFrom = pos;
      nnPos = p;
      nnCol = c;
    }
    indent = nnCol - col;
    blank = nnPos === lineEnd;
  };
  // Advance by columns; a tab may be consumed only partly (pos then stays on it).
  const advanceCols = (n: number): void => {
    while (n > 0 && pos < lineEnd) {
      if (text.charCodeAt(pos) === TAB) {
        const w = 4 - (col % 4);
        if (w > n) {
          col += n;
          return;
        }
        col += w;
        pos++;
        n -= w;
      } else {
        pos++;
        col++;
        n--;
      }
    }
  };
  const spaceOrTab = (p: number): boolean => p < lineEnd && (text.charCodeAt(p) === SPACE || text.charCodeAt(p) === TAB);
  const onlySpaceFrom = (p: number): boolean => {
    while (spaceOrTab(p)) p++;
    return p >= lineEnd;
  };
  const holdsCandidate = (start: number, end: number): boolean => {
    while (nextCandidate < candidates.length && candidates[nextCandidate]! < start) nextCandidate++;
    return nextCandidate < candidates.length && candidates[nextCandidate]! < end;
  };
  /** The text block whose lines are `pairs` from `begin` on: kept when it holds a candidate, else cut off. */
  const textBlock = (begin: number, kind: 'para' | 'heading' | 'html'): void => {
    const end = pairs.length;
    if (end === begin || !holdsCandidate(pairs.data[begin]!, pairs.data[end - 1]!)) {
      pairs.length = begin;
      return;
    }
    out.blocks.starts.push(begin);
    if (kind === 'html') htmlHidden(text, pairs.data[begin]!, pairs.data[end - 1]!, out.hidden, html);
    else inlineHidden(text, pairs.data.subarray(begin, end), out.hidden, out.literal, { paragraph: kind === 'para', mdx });
  };
  const closeLeaf = (): void => {
    if (leaf?.t === 'code') {
      out.hidden.push(leaf.start, leaf.end);
      if (opts.code) {
        const lines = leaf.lines;
        while (!leaf.fence && lines.length && lines[lines.length - 1] === lines[lines.length - 2]) lines.length -= 2; // trailing blank lines
        opts.code.push({ fenced: leaf.fence !== '', closed: leaf.closed, start: leaf.start, lines });
      }
    } else if (leaf?.t === 'html' && leaf.kind === ESM_KIND) {
      if (pairs.length > leaf.begin) out.hidden.push(pairs.data[leaf.begin]!, pairs.data[pairs.length - 1]!);
      pairs.length = leaf.begin;
    } else if (leaf) textBlock(leaf.begin, leaf.t === 'para' ? 'para' : 'html');
    leaf = null;
  };
  const truncate = (n: number): void => {
    stack.length = n;
    while (stoppers.length && stoppers[stoppers.length - 1]! >= n) stoppers.pop();
  };
  const closeUnmatched = (): void => {
    if (!allClosed) {
      if (!leafOk) closeLeaf();
      truncate(matched);
      allClosed = true;
    }
  };
  const adopt = (): void => {
    const top = stack.length - 1;
    const parent = stack[top];
    if (!parent || parent.hasChild) return;
    parent.hasChild = true;
    if (!parent.quote && stoppers[stoppers.length - 1] === top) stoppers.pop();
  };
  /** The first container at index >= from that a blank line does not continue, else stack.length. */
  const blankStop = (from: number): number => {
    const lo = firstAtLeast(stoppers, from);
    return lo < stoppers.length ? stoppers[lo]! : stack.length;
  };
  const openContainer = (c: Container): void => {
    closeLeaf();
    adopt();
    stoppers.push(stack.length);
    stack.push(c);
    matched = stack.length;
    leafOk = false;
  };
  const openLeaf = (l: Leaf): void => {
    closeLeaf();
    adopt();
    if (l.t !== 'code') l.begin = pairs.length;
    leaf = l;
  };
  const afterQuoteMarker = (): void => {
    pos = nnPos + 1;
    col = nnCol + 1;
    if (spaceOrTab(pos)) advanceCols(1);
  };
  const htmlLine = (l: Extract<Leaf, { t: 'html' }>): void => {
    pairs.push(pos, lineEnd);
    if (l.kind <= 5 && HTML_CLOSE[l.kind - 1]!.test(text.slice(pos, lineEnd))) closeLeaf();
  };

  // Continue the open containers and leaf; true when the line is used up.
  const continueOpen = (): boolean => {
    for (matched = 0; matched < stack.length; matched++) {
      const c = stack[matched]!;
      nonspace();
      if (blank) {
        // Items with content continue over a blank line; quotes and empty items stop it.
        const stop = blankStop(matched);
        if (stop > matched) {
          pos = nnPos;
          col = nnCol;
        }
        matched = stop;
        break;
      }
      if (c.quote) {
        if ((indent >= 4 && !mdx) || text.charCodeAt(nnPos) !== GT) break;
        afterQuoteMarker();
      } else if (indent >= c.width) advanceCols(c.width);
      else break;
    }
    leafOk = false;
    if (matched === stack.length && leaf) {
      nonspace();
      if (leaf.t === 'code' && leaf.fence) {
        leaf.end = lineEnd;
        // MDX has no indented code, so a fence closes at any indentation (as it opens).
        if ((indent < 4 || mdx) && isClosingFence(text, nnPos, lineEnd, leaf.fence, leaf.len)) {
          leaf.closed = true;
          closeLeaf();
        } else leaf.lines.push(pos, lineEnd);
        return true;
      }
      if (leaf.t === 'code') {
        if (indent >= 4 || blank) {
          if (!blank) {
            leaf.end = lineEnd;
            advanceCols(4);
          }
          leaf.lines.push(blank ? lineEnd : pos, lineEnd);
          return true;
        }
      } else if (leaf.t === 'html') {
        if (!(blank && leaf.kind >= 6)) {
          htmlLine(leaf);
          return true;
        }
      } else leafOk = !blank;
    }
    allClosed = matched === stack.length && (leaf === null || leafOk);
    return false;
  };

  const isBreak = (ch: number): boolean => {
    if (ch !== 42 && ch !== 45 && ch !== 95) return false;
    let from = pureFrom.get(ch);
    if (from === undefined) {
      from = lineEnd;
      while (from > 0 && (text.charCodeAt(from - 1) === ch || spaceOrTab(from - 1))) from--;
      pureFrom.set(ch, from);
    }
    if (nnPos < from) return false;
    let n = 0;
    for (let p = nnPos; p < lineEnd && n < 3; p++) if (text.charCodeAt(p) === ch) n++;
    return n >= 3;
  };

  // Try block starts; true when a leaf took the rest of the line.
  const startBlocks = (): boolean => {
    for (;;) {
      nonspace();
      const paraTip = leaf?.t === 'para';
      if (indent >= 4 && !mdx) {
        if (paraTip || blank) return false;
        closeUnmatched();
        advanceCols(4);
        openLeaf({ t: 'code', start: pos, end: lineEnd, fence: '', len: 0, closed: true, lines: [pos, lineEnd] });
        return true;
      }
      if (mdx && matched === 0 && nnPos === pos && !(leafOk || (!allClosed && paraTip)) && sticky(ESM, text, nnPos)) {
        closeUnmatched();
        const l: Leaf = { t: 'html', kind: ESM_KIND, begin: 0 };
        openLeaf(l);
        htmlLine(l);
        return true;
      }
      const ch = text.charCodeAt(nnPos);
      if (!MAYBE_SPECIAL.test(text[nnPos] ?? '')) return false;
      if (ch === GT) {
        closeUnmatched();
        afterQuoteMarker();
        openContainer({ quote: true, width: 0, hasChild: false });
        continue;
      }
      const hashes = run(text, nnPos, lineEnd, 35);
      if (hashes >= 1 && hashes <= 6 && (nnPos + hashes === lineEnd || spaceOrTab(nnPos + hashes))) {
        closeUnmatched();
        closeLeaf();
        adopt();
        let p = nnPos + hashes;
        while (spaceOrTab(p)) p++;
        const begin = pairs.length;
        pairs.push(p, lineEnd);
        textBlock(begin, 'heading');
        return true;
      }
      if (ch === 96 || ch === 126) {
        const len = run(text, nnPos, lineEnd, ch);
        if (len >= 3 && (ch === 126 || !hasChar(text, nnPos + len, lineEnd, 96))) {
          closeUnmatched();
          openLeaf({ t: 'code', start: nnPos, end: lineEnd, fence: String.fromCharCode(ch), len, closed: false, lines: [] });
          return true;
        }
      }
      if (ch === 60) {
        const rest = text.slice(nnPos, lineEnd);
        const lazy = !allClosed && !blank && paraTip;
        const kind = HTML_OPEN.findIndex((re, i) => htmlStart(i, rest, mdx) && re.test(rest) && (i < 6 || !(leafOk || lazy))) + 1;
        if (kind > 0) {
          closeUnmatched();
          const l: Leaf = { t: 'html', kind, begin: 0 };
          openLeaf(l);
          htmlLine(l);
          return true;
        }
      }
      if (leafOk && (ch === 61 || ch === 45) && onlySpaceFrom(nnPos + run(text, nnPos, lineEnd, ch))) {
        closeUnmatched();
        closeLeaf();
        return true;
      }
      if (isBreak(ch)) {
        closeUnmatched();
        closeLeaf();
        adopt();
        return true;
      }
      if (!listItem()) return false;
    }
  };

  const listItem = (): boolean => {
    LIST.lastIndex = nnPos;
    const m = LIST.exec(text);
    if (!m || !(nnPos + m[0].length === lineEnd || spaceOrTab(nnPos + m[0].length))) return false;
    const interrupts = leafOk; // the paragraph was continued: stricter rules
    if (interrupts && ((m[1] !== undefined && Number(m[1]) !== 1) || onlySpaceFrom(nnPos + m[0].length))) return false;
    closeUnmatched();
    const markerOffset = indent;
    pos = nnPos + m[0].length;
    col = nnCol + m[0].length;
    const startPos = pos,
      startCol = col;
    do advanceCols(1);
    while (col - startCol < 5 && spaceOrTab(pos));
    const spaces = col - startCol;
    let padding = m[0].length + spaces;
    if (spaces >= 5 || spaces < 1 || pos >= lineEnd) {
      padding = m[0].length + 1;
      pos = startPos;
      col = startCol;
      if (spaceOrTab(pos)) advanceCols(1);
    }
    openContainer({ quote: false, width: markerOffset + padding, hasChild: false });
    return true;
  };

  const line = (start: number, end: number): void => {
    lineEnd = end;
    pos = start;
    col = 0;
    nsFrom = -1;
    pureFrom.clear();
    // MDX: the lines of a JSX tag that spans lines belong to it, whatever they start with
    // (a `>` alone on its line closes the tag, it opens no block quote).
    if (jsxUntil > start && leaf?.t === 'para') {
      pairs.push(start, end);
      return;
    }
    if (continueOpen() || startBlocks()) return;
    nonspace();
    if (mdx && jsxUntil !== NEVER && text.charCodeAt(nnPos) === 60 && !blank) {
      // A tag that never closes makes every later `<` text (as inline): the walk stays linear.
      const tagEnd = jsxTagEnd(text, nnPos);
      if (tagEnd > lineEnd || tagEnd === -1) jsxUntil = tagEnd === -1 ? NEVER : tagEnd;
    }
    if (!allClosed && !blank && leaf?.t === 'para') {
      pairs.push(nnPos, lineEnd);
      return;
    } // lazy continuation
    closeUnmatched();
    if (blank) return;
    if (leaf?.t !== 'para') openLeaf({ t: 'para', begin: 0 });
    pairs.push(nnPos, lineEnd);
  };

  if (!text.includes('\r')) {
    // LF only, the common case: the same walk with a string search instead of the pattern.
    for (let start = 0; start <= text.length; ) {
      const nl = text.indexOf('\n', start);
      const end = nl === -1 ? text.length : nl;
      if (end > start || nl !== -1) line(start, end);
      if (nl === -1) break;
      start = nl + 1;
    }
  } else {
    LINE.lastIndex = 0;
    for (let start = 0; start <= text.length; ) {
      const m = LINE.exec(text);
      const end = m ? m.index : text.length;
      if (end > start || m) line(start, end);
      if (!m) break;
      start = LINE.lastIndex;
    }
  }
  closeLeaf();
  out.blocks.segs = pairs.data.subarray(0, pairs.length);
  return out;
}

/** Whether HTML_OPEN[i] may start an HTML block: in MDX only comments and script/style do. */
function htmlStart(i: number, rest: string, mdx: boolean): boolean {
  return !mdx || i === 1 || (i === 0 && !JSX_ONLY.test(rest));
}

/** Length of the run of `ch` at p (before end). */
function run(text: string, p: number, end: number, ch: number): number {
  let q = p;
  while (q < end && text.charCodeAt(q) === ch) q++;
  return q - p;
}

function sticky(re: RegExp, text: string, p: number): boolean {
  re.lastIndex = p;
  return re.test(text);
}

function hasChar(text: string, p: number, end: number, ch: number): boolean {
  for (let q = p; q < end; q++) if (text.charCodeAt(q) === ch) return true;
  return false;
}

function isClosingFence(text: string, p: number, end: number, fence: string, len: number): boolean {
  const n = run(text, p, end, fence.charCodeAt(0));
  let q = p + n;
  while (q < end && (text.charCodeAt(q) === SPACE || text.charCodeAt(q) === TAB)) q++;
  return n >= len && q === end;
}
