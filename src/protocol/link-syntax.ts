/**
 * The pieces of CommonMark 0.31 link syntax the inline pass must step over: an inline
 * link's `(destination "title")` (§6.3) and the link reference definitions (§4.7) that
 * open a paragraph. Markers inside them still count; what matters is that a backtick
 * in a destination or title opens no code span.
 */
export const PUNCT = /[!-/:-@[-`{-~]/;
const SPNL = /[ \t]*(?:\n[ \t]*)?/y;
/** Inline links nest parentheses in a destination at most this deep (as micromark does). */
const INLINE_PAREN_DEPTH = 32;
const LABEL_MAX = 999;

/** End of an inline link's `(destination "title")` starting at p, or -1. */
export function linkTail(s: string, p: number): number {
  if (s[p] !== '(') return -1;
  let q = spnl(s, p + 1);
  if (s[q] === ')') return q + 1;
  const d = destination(s, q, INLINE_PAREN_DEPTH);
  if (d < 0) return -1;
  q = spnl(s, d);
  if (q > d) {
    const t = title(s, q);
    if (t >= 0) q = spnl(s, t);
  }
  return s[q] === ')' ? q + 1 : -1;
}

/**
 * Where a paragraph's inline content starts once the link reference definitions at its
 * start are taken out (its lines joined by '\n', leading spaces already removed).
 */
export function definitionsEnd(s: string): number {
  let p = 0;
  for (let e = definitionEnd(s, p); e >= 0; e = definitionEnd(s, p)) p = e;
  return p;
}

/** `[label]: destination "title"` at p, to the start of the next line (or the end), or -1. */
function definitionEnd(s: string, p: number): number {
  const l = label(s, p);
  if (l < 0 || s[l] !== ':') return -1;
  const d = destination(s, spnl(s, l + 1), Number.POSITIVE_INFINITY);
  if (d < 0) return -1;
  const t = spnl(s, d);
  if (t > d) {
    const e = title(s, t);
    const end = e < 0 ? -1 : lineRest(s, e);
    if (end >= 0) return end;
  }
  // Without a title (or with a title followed by text) the destination must end its line.
  return lineRest(s, d);
}

/** After `[...]` at p (at most 999 characters, not blank, no unescaped brackets), or -1. */
function label(s: string, p: number): number {
  if (s[p] !== '[') return -1;
  let size = 0,
    seen = false;
  for (let q = p + 1; q < s.length; q++) {
    const c = s[q]!;
    if (c === ']') return seen && size <= LABEL_MAX ? q + 1 : -1;
    if (c === '[' || size > LABEL_MAX) return -1;
    if (c === '\n') continue;
    size++;
    if (c !== ' ' && c !== '\t') seen = true;
    if (c === '\\' && (s[q + 1] === '[' || s[q + 1] === ']' || s[q + 1] === '\\')) {
      q++;
      size++;
    }
  }
  return -1;
}

/** Past spaces and tabs to the start of the next line (or the end), or -1 if text follows. */
function lineRest(s: string, p: number): number {
  while (s[p] === ' ' || s[p] === '\t') p++;
  if (p === s.length) return p;
  return s[p] === '\n' ? p + 1 : -1;
}

export function spnl(s: string, p: number): number {
  SPNL.lastIndex = p;
  SPNL.test(s);
  return SPNL.lastIndex;
}

/** End of a link destination at p: `<...>` (may be empty) or a non-empty run with balanced parentheses. */
export function destination(s: string, p: number, maxDepth: number): number {
  const escaped = (q: number): boolean => s[q] === '\\' && PUNCT.test(s[q + 1] ?? '');
  if (s[p] === '<') {
    for (let q = p + 1; q < s.length; q++) {
      if (escaped(q)) q++;
      else if (s[q] === '>') return q + 1;
      else if (s[q] === '\n' || s[q] === '<') return -1;
    }
    return -1;
  }
  let depth = 0,
    q = p;
  for (; q < s.length; q++) {
    const c = s.charCodeAt(q);
    if (escaped(q)) q++;
    else if (c <= 32 || c === 127) break;
    else if (c === 40 && ++depth > maxDepth) return -1;
    else if (c === 41) {
      if (depth === 0) break;
      depth--;
    }
  }
  return q === p || depth > 0 ? -1 : q;
}

export function title(s: string, p: number): number {
  const open = s[p];
  if (open !== '"' && open !== "'" && open !== '(') return -1;
  const close = open === '(' ? ')' : open;
  for (let q = p + 1; q < s.length; q++) {
    if (s[q] === '\\' && PUNCT.test(s[q + 1] ?? '')) q++;
    else if (s[q] === close) return q + 1;
    else if (open === '(' && s[q] === '(') return -1;
  }
  return -1;
}
