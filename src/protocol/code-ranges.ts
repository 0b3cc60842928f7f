/**
 * Where a CommonMark 0.31 document hides text from readers: fenced and indented code,
 * code spans and HTML comments. A line-at-a-time block parser that follows the spec's
 * algorithm (the one commonmark.js implements), plus an inline pass over only the
 * blocks that hold a candidate marker. Why not micromark: on a 2 MB document it took
 * ~2 s of linear work plus minutes of quadratic list/quote handling.
 */
import { CLOSE_TAG, finder, htmlComments, inlineHidden, OPEN_TAG } from './inline-ranges.js';

export interface MarkdownRegions {
  /** Hidden text as flat, sorted [start, end) offset pairs. */
  hidden: number[];
  /** Text blocks (paragraphs, headings, HTML blocks) holding a candidate: flat [start, end) content pairs, one per line. */
  blocks: number[][];
}

interface Container {
  quote: boolean;
  width: number;
  hasChild: boolean;
}
type Leaf = { t: 'para'; segs: number[] } | { t: 'html'; kind: number; segs: number[] } | { t: 'code'; start: number; end: number; fence: string; len: number };

const TAB = 9,
  SPACE = 32,
  GT = 62;
const LINE = /\r\n|\n|\r/g;
const MAYBE_SPECIAL = /[#`~*+_=<>0-9-]/; // the only characters a block start can begin with
const FENCE = /^(?:`{3,}(?!.*`)|~{3,})/;
const SETEXT = /^(?:=+|-+)[ \t]*$/;
const BREAK = /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const LIST = /^(?:[-+*]|(\d{1,9})[.)])(?=[ \t]|$)/;
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
const HTML_CLOSE = [/<\/(?:script|pre|textarea|style)>/i, /-->/, /\?>/, />/, /\]\]>/];

export function markdownRegions(text: string, candidates: readonly number[]): MarkdownRegions {
  const out: MarkdownRegions = { hidden: [], blocks: [] };
  const stack: Container[] = [];
  let leaf: Leaf | null = null;
  let nextCandidate = 0;
  const comments = { open: finder(text, '<!--'), close: finder(text, '-->') };
  // Per-line cursor: pos is a char index, col a column (tabs stop every 4); nn* is the next non-space.
  let lineEnd = 0,
    pos = 0,
    col = 0,
    nnPos = 0,
    nnCol = 0,
    indent = 0,
    blank = false;
  let matched = 0,
    leafOk = false,
    allClosed = true;

  const nonspace = (): void => {
    let p = pos,
      c = col;
    for (; p < lineEnd; p++) {
      const ch = text.charCodeAt(p);
      if (ch === SPACE) c++;
      else if (ch === TAB) c += 4 - (c % 4);
      else break;
    }
    nnPos = p;
    nnCol = c;
    indent = c - col;
    blank = p === lineEnd;
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
  const holdsCandidate = (start: number, end: number): boolean => {
    while (nextCandidate < candidates.length && candidates[nextCandidate]! < start) nextCandidate++;
    return nextCandidate < candidates.length && candidates[nextCandidate]! < end;
  };
  const textBlock = (segs: number[], inline: boolean): void => {
    if (segs.length === 0 || !holdsCandidate(segs[0]!, segs[segs.length - 1]!)) return;
    out.blocks.push(segs);
    if (inline) inlineHidden(text, segs, out.hidden);
    else htmlComments(segs[0]!, segs[segs.length - 1]!, out.hidden, comments);
  };
  const closeLeaf = (): void => {
    if (leaf?.t === 'code') out.hidden.push(leaf.start, leaf.end);
    else if (leaf) textBlock(leaf.segs, leaf.t === 'para');
    leaf = null;
  };
  const closeUnmatched = (): void => {
    if (!allClosed) {
      if (!leafOk) closeLeaf();
      stack.length = matched;
      allClosed = true;
    }
  };
  const adopt = (): void => {
    const parent = stack[stack.length - 1];
    if (parent) parent.hasChild = true;
  };
  const openContainer = (c: Container): void => {
    closeLeaf();
    adopt();
    stack.push(c);
    matched = stack.length;
    leafOk = false;
  };
  const openLeaf = (l: Leaf): void => {
    closeLeaf();
    adopt();
    leaf = l;
  };
  const afterQuoteMarker = (): void => {
    pos = nnPos + 1;
    col = nnCol + 1;
    if (spaceOrTab(pos)) advanceCols(1);
  };
  const htmlLine = (l: Extract<Leaf, { t: 'html' }>): void => {
    l.segs.push(pos, lineEnd);
    if (l.kind <= 5 && HTML_CLOSE[l.kind - 1]!.test(text.slice(pos, lineEnd))) closeLeaf();
  };

  // Continue the open containers and leaf; true when the line is used up.
  const continueOpen = (): boolean => {
    for (matched = 0; matched < stack.length; matched++) {
      const c = stack[matched]!;
      nonspace();
      if (c.quote) {
        if (indent >= 4 || text.charCodeAt(nnPos) !== GT) break;
        afterQuoteMarker();
      } else if (blank) {
        if (!c.hasChild) break; // an item may begin with at most one blank line
        pos = nnPos;
        col = nnCol;
      } else if (indent >= c.width) advanceCols(c.width);
      else break;
    }
    leafOk = false;
    if (matched === stack.length && leaf) {
      nonspace();
      if (leaf.t === 'code' && leaf.fence) {
        leaf.end = lineEnd;
        if (indent < 4 && isClosingFence(text.slice(nnPos, lineEnd), leaf.fence, leaf.len)) closeLeaf();
        return true;
      }
      if (leaf.t === 'code') {
        if (indent >= 4 || blank) {
          if (!blank) leaf.end = lineEnd;
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

  // Try block starts; true when a leaf took the rest of the line.
  const startBlocks = (): boolean => {
    for (;;) {
      nonspace();
      const paraTip = leaf?.t === 'para';
      if (indent >= 4) {
        if (paraTip || blank) return false;
        closeUnmatched();
        advanceCols(4);
        openLeaf({ t: 'code', start: pos, end: lineEnd, fence: '', len: 0 });
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
      const rest = text.slice(nnPos, lineEnd);
      const atx = /^#{1,6}(?:[ \t]+|$)/.exec(rest);
      if (atx) {
        closeUnmatched();
        closeLeaf();
        adopt();
        textBlock([nnPos + atx[0].length, lineEnd], true);
        return true;
      }
      const fence = FENCE.exec(rest);
      if (fence) {
        closeUnmatched();
        openLeaf({ t: 'code', start: nnPos, end: lineEnd, fence: fence[0][0]!, len: fence[0].length });
        return true;
      }
      if (ch === 60) {
        const lazy = !allClosed && !blank && paraTip;
        const kind = HTML_OPEN.findIndex((re, i) => re.test(rest) && (i < 6 || !(leafOk || lazy))) + 1;
        if (kind > 0) {
          closeUnmatched();
          const l: Leaf = { t: 'html', kind, segs: [] };
          openLeaf(l);
          htmlLine(l);
          return true;
        }
      }
      if (leafOk && SETEXT.test(rest)) {
        closeUnmatched();
        closeLeaf();
        return true;
      }
      if (BREAK.test(rest)) {
        closeUnmatched();
        closeLeaf();
        adopt();
        return true;
      }
      if (!listItem(rest)) return false;
    }
  };

  const listItem = (rest: string): boolean => {
    const m = LIST.exec(rest);
    if (!m) return false;
    const interrupts = leafOk; // the paragraph was continued: stricter rules
    if (interrupts && ((m[1] !== undefined && Number(m[1]) !== 1) || /^[ \t]*$/.test(rest.slice(m[0].length)))) return false;
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
    if (continueOpen() || startBlocks()) return;
    nonspace();
    if (!allClosed && !blank && leaf?.t === 'para') {
      leaf.segs.push(nnPos, lineEnd);
      return;
    } // lazy continuation
    closeUnmatched();
    if (blank) return;
    if (leaf?.t === 'para') leaf.segs.push(nnPos, lineEnd);
    else openLeaf({ t: 'para', segs: [nnPos, lineEnd] });
  };

  LINE.lastIndex = 0;
  for (let start = 0; start <= text.length; ) {
    const m = LINE.exec(text);
    const end = m ? m.index : text.length;
    if (end > start || m) line(start, end);
    if (!m) break;
    start = LINE.lastIndex;
  }
  closeLeaf();
  return out;
}

function isClosingFence(rest: string, fence: string, len: number): boolean {
  let n = 0;
  while (rest[n] === fence) n++;
  return n >= len && /^[ \t]*$/.test(rest.slice(n));
}
