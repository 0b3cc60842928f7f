/**
 * The inline half of the markdown scan: inside one block's text, the ranges a marker is
 * hidden in (code spans, HTML comments) and the syntax that must be stepped over to find
 * them (autolinks, raw tags, link destinations and titles), per CommonMark 0.31.
 */
const ATTR = `(?:\\s+[A-Za-z_:][\\w.:-]*(?:\\s*=\\s*(?:[^\\s"'=<>\`]+|'[^']*'|"[^"]*"))?)`;
export const OPEN_TAG = `<[A-Za-z][A-Za-z0-9-]*${ATTR}*\\s*/?>`;
export const CLOSE_TAG = `</[A-Za-z][A-Za-z0-9-]*\\s*>`;

/** HTML comments inside raw HTML: `<!--` up to the next `-->` (so `<!-->` is a whole comment), else to `end`. */
export function htmlComments(start: number, end: number, hidden: number[], find: Record<'open' | 'close', Finder>): void {
  for (let i = find.open(start); i >= 0 && i < end; i = find.open(i)) {
    const close = find.close(i + 2);
    const stop = close < 0 || close + 3 > end ? end : close + 3;
    hidden.push(i, stop);
    i = stop;
  }
}

const AUTOLINK = new RegExp(
  '<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\\x00-\\x20<>]*|' +
    "[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>",
  'y',
);
const TAG = new RegExp(`${OPEN_TAG}|${CLOSE_TAG}`, 'y');
const PUNCT = /[!-/:-@[-`{-~]/;
const SPECIAL = /[\\`<[\]!]/g;
const SPNL = /[ \t]*(?:\n[ \t]*)?/y;

/**
 * Code spans and HTML comments in one block's inline content (its line segments joined
 * by '\n'). Left to right as CommonMark ranks them: escapes, code spans, autolinks and
 * raw HTML first; an inline link's destination and title are consumed unparsed.
 */
export function inlineHidden(text: string, segs: number[], hidden: number[]): void {
  const starts: number[] = [];
  let s = '';
  for (let k = 0; k < segs.length; k += 2) {
    if (k) s += '\n';
    starts.push(s.length);
    s += text.slice(segs[k], segs[k + 1]);
  }
  let seg = 0;
  const orig = (i: number): number => {
    while (seg + 1 < starts.length && starts[seg + 1]! <= i) seg++;
    return segs[2 * seg]! + i - starts[seg]!;
  };
  const hide = (a: number, b: number): void => {
    hidden.push(orig(a), orig(b - 1) + 1);
  };

  // Closing backtick runs by length, each list walked once: no quadratic rescans.
  const runs = new Map<number, number[]>(),
    cursor = new Map<number, number>();
  for (let i = s.indexOf('`'); i >= 0; ) {
    let j = i + 1;
    while (s.charCodeAt(j) === 96) j++;
    const list = runs.get(j - i) ?? [];
    runs.set(j - i, list);
    list.push(i);
    i = s.indexOf('`', j);
  }
  const closer = (len: number, from: number): number => {
    const list = runs.get(len) ?? [];
    let c = cursor.get(len) ?? 0;
    while (c < list.length && list[c]! < from) c++;
    cursor.set(len, c);
    return c < list.length ? list[c]! : -1;
  };
  const finders = new Map<string, Finder>();
  const find = (needle: string, from: number): number => {
    const f = finders.get(needle) ?? finder(s, needle);
    finders.set(needle, f);
    return f(from);
  };
  const angle = (i: number): number => {
    if (s.startsWith('<!--', i)) {
      const c = find('-->', i + 2);
      if (c >= 0) hide(i, c + 3);
      return c >= 0 ? c + 3 : i + 1;
    }
    if (s.startsWith('<?', i)) {
      const c = find('?>', i + 2);
      return c >= 0 ? c + 2 : i + 1;
    }
    if (s.startsWith('<![CDATA[', i)) {
      const c = find(']]>', i + 9);
      return c >= 0 ? c + 3 : i + 1;
    }
    if (s[i + 1] === '!' && /[A-Za-z]/.test(s[i + 2] ?? '')) {
      const c = find('>', i + 3);
      return c >= 0 ? c + 1 : i + 1;
    }
    for (const re of [AUTOLINK, TAG]) {
      re.lastIndex = i;
      if (re.test(s)) return re.lastIndex;
    }
    return i + 1;
  };

  const openers: { image: boolean; active: boolean }[] = [];
  for (let i = 0; i < s.length; ) {
    SPECIAL.lastIndex = i;
    const m = SPECIAL.exec(s);
    if (!m) break;
    i = m.index;
    const ch = s[i];
    if (ch === '\\') i += PUNCT.test(s[i + 1] ?? '') ? 2 : 1;
    else if (ch === '`') {
      let j = i + 1;
      while (s.charCodeAt(j) === 96) j++;
      const c = closer(j - i, j);
      if (c >= 0) hide(i, c + j - i);
      i = c >= 0 ? c + j - i : j;
    } else if (ch === '<') i = angle(i);
    else if (ch === '!') {
      if (s[i + 1] === '[') openers.push({ image: true, active: true });
      i += s[i + 1] === '[' ? 2 : 1;
    } else if (ch === '[') {
      openers.push({ image: false, active: true });
      i++;
    } else {
      const o = openers.pop();
      const end = o?.active ? linkTail(s, i + 1) : -1;
      if (end > 0 && !o!.image) for (const x of openers) if (!x.image) x.active = false; // no links in links
      i = end > 0 ? end : i + 1;
    }
  }
}

/** End of an inline link's `(destination "title")` starting at p, or -1. */
function linkTail(s: string, p: number): number {
  if (s[p] !== '(') return -1;
  let q = spnl(s, p + 1);
  if (s[q] === ')') return q + 1;
  const d = destination(s, q);
  if (d < 0) return -1;
  q = spnl(s, d);
  if (q > d) {
    const t = title(s, q);
    if (t >= 0) q = spnl(s, t);
  }
  return s[q] === ')' ? q + 1 : -1;
}

function spnl(s: string, p: number): number {
  SPNL.lastIndex = p;
  SPNL.test(s);
  return SPNL.lastIndex;
}

function destination(s: string, p: number): number {
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
    else if (c === 40 && ++depth > 32) return -1;
    else if (c === 41) {
      if (depth === 0) break;
      depth--;
    }
  }
  return q === p || depth > 0 ? -1 : q;
}

function title(s: string, p: number): number {
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

export type Finder = (from: number) => number;

/** indexOf for searches that only move right: a hit at or after `from`, or a miss, is reused. */
export function finder(s: string, needle: string): Finder {
  let hit = -2;
  return (from) => {
    if (hit === -2 || (hit >= 0 && hit < from)) hit = s.indexOf(needle, from);
    return hit;
  };
}
