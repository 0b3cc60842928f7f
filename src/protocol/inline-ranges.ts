/**
 * The inline half of the markdown scan: inside one block's text, the ranges a marker is
 * hidden in (code spans, HTML comments) and the syntax that must be stepped over to find
 * them (autolinks, raw tags, link destinations and titles), per CommonMark 0.31.
 */
import { definitionsEnd, linkTail, PUNCT } from './link-syntax.js';
import { expressionEnd, jsxTagEnd } from './mdx-syntax.js';

const ATTR = `(?:\\s+[A-Za-z_:][\\w.:-]*(?:\\s*=\\s*(?:[^\\s"'=<>\`]+|'[^']*'|"[^"]*"))?)`;
export const OPEN_TAG = `<[A-Za-z][A-Za-z0-9-]*${ATTR}*\\s*/?>`;
export const CLOSE_TAG = `</[A-Za-z][A-Za-z0-9-]*\\s*>`;

export interface HtmlFinders {
  comment: Finder;
  commentEnd: Finder;
  /** `<script` or `<style` starting a tag. */
  raw: Finder;
  rawEnd: Record<'script' | 'style', Finder>;
}

export function htmlFinders(text: string): HtmlFinders {
  return {
    comment: finder(text, '<!--'),
    commentEnd: finder(text, '-->'),
    raw: regexFinder(text, /<(?:script|style)(?=[\s/>]|$)/gi),
    rawEnd: { script: regexFinder(text, /<\/script(?=[\s/>]|$)/gi), style: regexFinder(text, /<\/style(?=[\s/>]|$)/gi) },
  };
}

/**
 * Inside an HTML block from start to end, left to right: an HTML comment, `<!--` up to
 * the next `-->` (so `<!-->` is a whole comment); a `<script>` or `<style>` element up to
 * its closing tag. Each runs to `end` when unclosed.
 */
export function htmlHidden(text: string, start: number, end: number, hidden: number[], find: HtmlFinders): void {
  for (let i = start; ; ) {
    const c = find.comment(i),
      r = find.raw(i);
    const at = c < 0 ? r : r < 0 ? c : Math.min(c, r);
    if (at < 0 || at >= end) return;
    let close: number;
    if (at === c) {
      const e = find.commentEnd(at + 2);
      close = e < 0 ? -1 : e + 3;
    } else {
      const e = find.rawEnd[/^<script/i.test(text.slice(at, at + 7)) ? 'script' : 'style'](at);
      const gt = e < 0 ? -1 : text.indexOf('>', e);
      close = gt < 0 ? -1 : gt + 1;
    }
    const stop = close < 0 || close > end ? end : close;
    hidden.push(at, stop);
    i = stop;
  }
}

const AUTOLINK = new RegExp(
  '<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\\x00-\\x20<>]*|' +
    "[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>",
  'y',
);
/** An inline HTML tag, open or closing, at `lastIndex` (sticky). */
export const TAG = new RegExp(`${OPEN_TAG}|${CLOSE_TAG}`, 'y');
const SPECIAL = /[\\`<[\]!]/g;
const SPECIAL_MDX = /[\\`<[\]!{]/g;

export interface InlineOptions {
  /** A paragraph: link reference definitions at its start are taken out first. */
  paragraph: boolean;
  /** MDX: `<` starts a JSX tag (hidden) and `{` an expression (its comments hidden). */
  mdx: boolean;
}

/**
 * Code spans and HTML comments in one block's inline content (its line segments joined
 * by '\n'), and autolinks (literal: no escapes or character references). Left to right as CommonMark ranks them: escapes, code spans, autolinks and
 * raw HTML first; an inline link's destination and title are consumed unparsed.
 */
export function inlineHidden(text: string, segs: ArrayLike<number>, hidden: number[], literal: number[], opts: InlineOptions): void {
  // The block's lines joined by line feeds. When nothing stands between them but a line feed
  // (no container prefix, indentation or CR left out), that is a slice of the text itself, and
  // an offset maps by one addition: no copy of each line (a paragraph of 600,000 short lines
  // left about 40 MB of them for the collector).
  let contiguous = true;
  for (let k = 1; k + 1 < segs.length && contiguous; k += 2) contiguous = segs[k + 1] === segs[k]! + 1 && text.charCodeAt(segs[k]!) === 10;
  const starts: number[] = [];
  let s = '';
  if (contiguous) s = text.slice(segs[0], segs[segs.length - 1]);
  else {
    for (let k = 0; k < segs.length; k += 2) {
      if (k) s += '\n';
      starts.push(s.length);
      s += text.slice(segs[k], segs[k + 1]);
    }
  }
  let seg = 0;
  const orig = (i: number): number => {
    if (contiguous) return segs[0]! + i;
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
  const comment = (i: number): number => {
    const c = find('-->', i + 2);
    if (c >= 0) hide(i, c + 3);
    return c >= 0 ? c + 3 : i + 1;
  };
  const angle = (i: number): number => {
    if (s.startsWith('<!--', i)) return comment(i);
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
    AUTOLINK.lastIndex = i;
    if (AUTOLINK.test(s)) {
      literal.push(orig(i), orig(AUTOLINK.lastIndex - 1) + 1); // no escapes or references inside
      return AUTOLINK.lastIndex;
    }
    TAG.lastIndex = i;
    return TAG.test(s) ? TAG.lastIndex : i + 1;
  };
  // MDX: once a tag or expression runs to the end unclosed, later `<` and `{` are text
  // (MDX itself rejects the document); this keeps the pass linear.
  let mdx = opts.mdx;
  const jsx = (i: number): number => {
    if (s.startsWith('<!--', i)) return comment(i);
    const end = jsxTagEnd(s, i);
    if (end === -1) mdx = false;
    if (end < 0) return i + 1;
    hide(i, end);
    return end;
  };
  const expression = (i: number): number => {
    const comments: number[] = [];
    const end = expressionEnd(s, i, comments);
    if (end < 0) {
      mdx = false;
      return i + 1;
    }
    for (let k = 0; k < comments.length; k += 2) hide(comments[k]!, comments[k + 1]!);
    return end;
  };

  // Bracket openers (true for `![`); a link found makes every `[` below `floor` inactive
  // (no links in links), recorded once instead of walking the stack each time.
  const openers: boolean[] = [];
  let floor = 0;
  for (let i = opts.paragraph ? definitionsEnd(s) : 0; i < s.length; ) {
    const special = mdx ? SPECIAL_MDX : SPECIAL;
    special.lastIndex = i;
    // `test` builds no match array (a line of notes has a million brackets); every special is one character.
    if (!special.test(s)) break;
    i = special.lastIndex - 1;
    const ch = s[i];
    if (ch === '\\') i += PUNCT.test(s[i + 1] ?? '') ? 2 : 1;
    else if (ch === '`') {
      let j = i + 1;
      while (s.charCodeAt(j) === 96) j++;
      const c = closer(j - i, j);
      if (c >= 0) hide(i, c + j - i);
      i = c >= 0 ? c + j - i : j;
    } else if (ch === '<') i = mdx ? jsx(i) : angle(i);
    else if (ch === '{') i = mdx ? expression(i) : i + 1;
    else if (ch === '!') {
      if (s[i + 1] === '[') openers.push(true);
      i += s[i + 1] === '[' ? 2 : 1;
    } else if (ch === '[') {
      openers.push(false);
      i++;
    } else {
      const at = openers.length - 1;
      const image = openers.pop();
      const active = image === true || (at >= 0 && at >= floor);
      floor = Math.min(floor, openers.length);
      const end = active ? linkTail(s, i + 1) : -1;
      if (end > 0 && !image) floor = openers.length;
      i = end > 0 ? end : i + 1;
    }
  }
}

export type Finder = (from: number) => number;

/** Like finder, for a global regular expression: the index of its next match. */
function regexFinder(s: string, re: RegExp): Finder {
  let hit = -2;
  return (from) => {
    if (hit === -2 || (hit >= 0 && hit < from)) {
      re.lastIndex = from;
      hit = re.exec(s)?.index ?? -1;
    }
    return hit;
  };
}

/** indexOf for searches that only move right: a hit at or after `from`, or a miss, is reused. */
export function finder(s: string, needle: string): Finder {
  let hit = -2;
  return (from) => {
    if (hit === -2 || (hit >= 0 && hit < from)) hit = s.indexOf(needle, from);
    return hit;
  };
}
