/**
 * The MDX constructs that are not text (see docs/scanning.md, "MDX"): JSX tags with their
 * attributes, and JavaScript comments inside `{...}` expressions. A light reading, not a
 * JavaScript parser: strings and comments are stepped over so that a `>` or `}` inside them
 * ends nothing.
 */

/** A tag starts with `<` then a name start, `/` (closing tag) or `>` (fragment). */
const TAG_START = /[A-Za-z$_/>]/;

/** After a JSX tag starting at `<` at i: its end, -2 when `<` is not a tag here, -1 when the tag never closes. */
export function jsxTagEnd(s: string, i: number): number {
  if (!TAG_START.test(s[i + 1] ?? '')) return -2;
  for (let q = i + 1; q < s.length; q++) {
    const c = s[q];
    if (c === '>') return q + 1;
    if (c === '<') return -2;
    if (c === '"' || c === "'") q = s.indexOf(c, q + 1);
    else if (c === '{') q = expressionEnd(s, q, []) - 1;
    if (q < 0) return -1;
  }
  return -1;
}

/** After the `{...}` expression starting at i (nested braces, strings and comments stepped over), or -1; its comments go to `comments`. */
export function expressionEnd(s: string, i: number, comments: number[]): number {
  let depth = 0;
  for (let q = i; q < s.length; q++) {
    const c = s[q];
    if (c === '{') depth++;
    else if (c === '}') {
      if (--depth === 0) return q + 1;
    } else if (c === '"' || c === "'" || c === '`') {
      q = stringEnd(s, q);
      if (q < 0) return -1;
    } else if (c === '/' && (s[q + 1] === '*' || s[q + 1] === '/')) {
      const block = s[q + 1] === '*';
      const e = block ? s.indexOf('*/', q + 2) : s.indexOf('\n', q + 2);
      if (e < 0) return -1;
      comments.push(q, block ? e + 2 : e);
      q = block ? e + 1 : e;
    }
  }
  return -1;
}

/** Index of the quote that closes the string opened at q (backslash escapes skipped), or -1. */
function stringEnd(s: string, q: number): number {
  const quote = s[q];
  for (let p = q + 1; p < s.length; p++) {
    if (s[p] === '\\') p++;
    else if (s[p] === quote) return p;
  }
  return -1;
}
