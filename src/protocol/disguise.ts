/**
 * Markers disguised by characters a reader does not see or cannot tell apart:
 * `[CLA` + U+200D + `RIFY]`, a soft hyphen, fullwidth brackets, Cyrillic letters, a dash for
 * a name's hyphen; in markdown, inline HTML that shows nothing (`[CON<!-- x -->TESTED]`);
 * in JSON, a string escape (`"[\u0043ONTESTED]"`). Each looks like a marker to every person
 * who reads the page or the data, so each is a note (docs/scanning.md, "Disguised markers").
 * A marker's spelling is folded before it is matched: default-ignorable code points are
 * removed (a soft hyphen may also stand for a name's hyphen), fullwidth and compatibility
 * forms are read through NFKC, and the look-alikes of Latin letters, of `-` and of `_`
 * (look-alikes.ts, written from Unicode's confusables data) are read as what they imitate.
 * Only the characters after a bracket-like opener are folded, up to the first that makes no
 * marker (padding of any length is followed, in time linear in the text), and only in a text
 * that holds a character outside ASCII or, in markdown, a character reference or a `<` after
 * a `[` and a name's start, or in JSON a `\u` escape: a plain document costs a pattern test.
 */
import { LOOK_ALIKE_GROUPS, LOOK_ALIKE_MARKS } from './look-alikes.js';
import { firstAtLeast } from '../arrays.js';

/** A disguised marker: where it starts and ends in the original text, its name as it reads, and what disguised it. */
export interface DisguisedMarker {
  index: number;
  end: number;
  name: string;
  /** The disguising characters, e.g. `U+200D (invisible) after "[CLA"`. */
  disguise: string;
}

const IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;
/** Nothing outside ASCII (and, in markdown, no character reference): no disguise is possible. */
const PLAIN_TEXT = /^[\x00-\x7f]*$/;
/** A character reference at `lastIndex` (sticky: tried only where a string search found an `&`, which costs far less over megabytes). */
const MARKDOWN_REFERENCE = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/y;
/** Where a disguised marker can start: `[`, its fullwidth and vertical forms, and (markdown) a reference. */
const OPENER = /[[\uff3b\ufe47]/g;
const OPENER_MARKDOWN = /[[\uff3b\ufe47]|&(?:#0{0,5}91|#[xX]0{0,4}5[bB]|#0{0,2}65339|#[xX]0{0,2}[fF][fF]3[bB]|lbrack|lsqb);/g;
/** Named references a disguise may use, besides the brackets. */
const NAMED: Record<string, string> = {
  lbrack: '[',
  lsqb: '[',
  rbrack: ']',
  rsqb: ']',
  shy: '\u00ad',
  zwj: '\u200d',
  zwnj: '\u200c',
  ZeroWidthSpace: '\u200b',
  NoBreak: '\u2060',
  InvisibleTimes: '\u2062',
  InvisibleComma: '\u2063',
  ic: '\u2063',
  af: '\u2061',
  it: '\u2062',
  ApplyFunction: '\u2061',
};

/**
 * What a look-alike folds to that reads as either of two letters: a vertical stroke (the
 * Cyrillic palochka, the Greek capital iota: I or l) and the long s (f or s). A name's
 * letter matches its own case pair and these; nothing else folds to them (a private-use
 * character in the text folds to U+FFFD).
 */
const EITHER: Readonly<Record<string, string>> = { Il: '\ue000', fs: '\ue001' };
const EITHER_CHARS = /[\ue000\ue001]/;

/** Each look-alike, built on the first text that needs it, with what it folds to and how a message says it reads. */
let lookAlikes: Map<string, { fold: string; reads: string }> | undefined;

function lookAlike(ch: string): { fold: string; reads: string } | undefined {
  if (!lookAlikes) {
    lookAlikes = new Map();
    for (const [group, chars] of Object.entries(LOOK_ALIKE_GROUPS)) {
      const look = { fold: EITHER[group] ?? group, reads: group.length === 1 ? group : `${group[0]} or ${group[1]}` };
      for (const c of chars) lookAlikes.set(c, look);
    }
    for (const [mark, chars] of Object.entries(LOOK_ALIKE_MARKS)) for (const c of chars) lookAlikes.set(c, { fold: mark, reads: mark });
  }
  return lookAlikes.get(ch);
}

/** The names' pattern for a folded spelling: each letter that a look-alike of two letters reads as also takes that fold. */
interface Names {
  anchored: RegExp;
  /** Per name, its pattern and its letters (upper case), to say which letter a fold of two letters stands for. */
  each: { anchored: RegExp; letters: string[] }[];
}
let namesCache: { key: string; names: Names } | undefined;

function namesFor(pattern: string): Names {
  if (namesCache?.key === pattern) return namesCache.names;
  const widen = (alternatives: string): string =>
    alternatives.replace(/\[([a-z])([A-Z])\]/g, (all, lower: string, upper: string) => {
      const extra = Object.entries(EITHER)
        .filter(([group]) => group.toUpperCase().includes(upper))
        .map(([, fold]) => fold)
        .join('');
      return extra === '' ? all : `[${lower}${upper}${extra}]`;
    });
  // markerNames (scanner.ts) writes each name as `[cC][lL]...`, other characters escaped, names joined by `|`.
  const each = pattern.split('|').map((alt) => ({
    anchored: new RegExp(`^\\[(${widen(alt)})\\]`),
    letters: (alt.match(/\[[a-z][A-Z]\]|\\.|./g) ?? []).map((t) => (t.length === 4 ? t[2]! : t[t.length - 1]!)),
  }));
  const names = { anchored: new RegExp(`^\\[(${widen(pattern)})\\]`), each };
  namesCache = { key: pattern, names };
  return names;
}

/** A name as it reads: each fold of two letters written as the letter the name has there (I, l; f, s). */
function readName(folded: string, names: Names): string {
  if (!EITHER_CHARS.test(folded)) return folded;
  const letters = names.each.find((n) => n.anchored.exec(`[${folded}]`)?.[1] === folded)?.letters ?? [];
  return [...folded].map((c, i) => (EITHER_CHARS.test(c) ? (letters[i] === 'I' ? 'I' : (letters[i] ?? c).toLowerCase()) : c)).join('');
}

/** Folded characters a marker can be: enough for the longest name (32), its brackets and a few spare. */
const WINDOW = 40;

export interface DisguiseOptions {
  markdown: boolean;
  /** Markdown read as MDX: an expression that holds only a comment, `{/* ... *\/}`, shows nothing either. */
  mdx?: boolean;
  /** JSON: a string escape, `\u0043`, is the character it stands for. */
  json?: boolean;
  /** `(?:NAME|OTHER)` alternatives, any case, as the scanner's pattern has them. */
  names: string;
}

/** In markdown of plain ASCII: a `[` and up to 32 characters of a name right before a `<` that opens a comment or tag (MDX: or a `{`), the start of a marker with HTML inside. */
function htmlInName(text: string, open: string): boolean {
  // A string search for the rarer character first: a pattern that starts with `[` costs several times more over 2 MB.
  for (let i = text.indexOf(open); i !== -1; i = text.indexOf(open, i + 1)) {
    const next = text.charCodeAt(i + 1);
    if (open === '<' && next !== 33 && !((next | 32) >= 97 && (next | 32) <= 122)) continue;
    let j = i - 1;
    while (j >= 0 && i - j <= 32 && nameCode(text.charCodeAt(j))) j--;
    if (text.charCodeAt(j) === 91) return true;
  }
  return false;
}
/** Whether `text` holds a character reference (`&#91;`, `&lbrack;`). */
function hasReference(text: string): boolean {
  for (let i = text.indexOf('&'); i !== -1; i = text.indexOf('&', i + 1)) {
    MARKDOWN_REFERENCE.lastIndex = i;
    if (MARKDOWN_REFERENCE.test(text)) return true;
  }
  return false;
}
/** A letter, digit, `_` or `-`. */
function nameCode(c: number): boolean {
  return ((c | 32) >= 97 && (c | 32) <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}
const JSON_ESCAPE = /\\u[0-9a-fA-F]{4}/;
/** JSON: a `[` may also be written as an escape. */
const OPENER_JSON = /[[\uff3b\ufe47]|\\u(?:005[bB]|[fF][fF]3[bB]|[fF][eE]47)/g;

/** Whether a text may hold a disguised marker at all: else the one pattern test (two in markdown) is all it costs. */
function mayHold(text: string, opts: DisguiseOptions): boolean {
  if (!PLAIN_TEXT.test(text)) return true;
  if (opts.markdown) return hasReference(text) || htmlInName(text, '<') || (opts.mdx === true && htmlInName(text, '{'));
  return opts.json === true && JSON_ESCAPE.test(text);
}

/** Every disguised marker in `text` that does not start at one of `plain` (the offsets of markers spelled plainly, ascending). */
export function disguisedMarkers(text: string, plain: ArrayLike<number>, opts: DisguiseOptions): DisguisedMarker[] {
  if (!mayHold(text, opts)) return [];
  const ctx = new Context(text, opts, namesFor(opts.names));
  const opener = opts.markdown ? OPENER_MARKDOWN : opts.json ? OPENER_JSON : OPENER;
  opener.lastIndex = 0;
  const out: DisguisedMarker[] = [];
  let p = 0;
  for (let m = opener.exec(text); m; m = opener.exec(text)) {
    while (p < plain.length && plain[p]! < m.index) p++;
    if (p < plain.length && plain[p] === m.index) continue;
    const found = foldAt(ctx, m.index);
    if (found) {
      out.push(found);
      opener.lastIndex = found.end;
    }
  }
  return out;
}

/**
 * What one scan knows of its text: where the line of the last opener ends, and, on that line,
 * where each closing sequence (`-->`, `*\/`) is. Openers come in text order, so each line is
 * searched once for its line break and once per closing sequence: a scan costs time linear in
 * the text, however many openers, invisible characters or comments it holds.
 */
class Context {
  readonly markdown: boolean;
  readonly mdx: boolean;
  readonly json: boolean;
  private readonly crlf: boolean;
  private lineFrom = -1;
  private lineEnd = -1;
  private closes = new Map<string, number[]>();

  constructor(
    readonly text: string,
    opts: DisguiseOptions,
    readonly names: Names,
  ) {
    this.markdown = opts.markdown;
    this.mdx = opts.markdown && opts.mdx === true;
    this.json = !opts.markdown && opts.json === true;
    this.crlf = text.includes('\r');
  }

  /** The end of the line that holds `at` (an opener, at or after the last one asked about). */
  endOfLine(at: number): number {
    if (at >= this.lineFrom && at < this.lineEnd) return this.lineEnd;
    let end: number;
    if (this.crlf) {
      LINE_END.lastIndex = at;
      end = LINE_END.exec(this.text)?.index ?? this.text.length;
    } else {
      end = this.text.indexOf('\n', at);
      if (end === -1) end = this.text.length;
    }
    this.lineFrom = at;
    this.lineEnd = end;
    this.closes.clear();
    return end;
  }

  /** The first `close` at or after `from` on the current line; -1 when there is none. */
  next(close: string, from: number): number {
    let at = this.closes.get(close);
    if (!at) {
      at = [];
      const line = this.text.slice(this.lineFrom, this.lineEnd);
      for (let k = line.indexOf(close); k !== -1; k = line.indexOf(close, k + 1)) at.push(this.lineFrom + k);
      this.closes.set(close, at);
    }
    const lo = firstAtLeast(at, from);
    return lo < at.length ? at[lo]! : -1;
  }
}
const LINE_END = /[\r\n]/g;

/** What a folded spelling may hold after its `[` before the `]`: the characters of a name (MARKER_NAME), the folds of two letters and a soft hyphen's. */
const NAME_CHAR = /^[A-Za-z0-9_\-\ue000-\ue002]$/;
/** What a soft hyphen folds to: nothing, or the hyphen it shows where a line breaks at it. */
const SOFT = '\ue002';

enum Kind {
  LookAlike,
  Invisible,
  Compatibility,
  Escape,
  Reference,
  Html,
}
/** One disguise (or a run of the same one): what it is, how it is written, how much was folded before it. */
interface Piece {
  kind: Kind;
  ch: string;
  written: string;
  after: number;
  count: number;
  reads: string;
}
interface Pieces {
  list: Piece[];
  /** By place, kind and spelling: each is said once, with how many times it occurs. */
  byKey?: Map<string, Piece>;
}

/** The folded spelling after `start`, matched against the names; null when it is no marker or no disguise. */
function foldAt(ctx: Context, start: number): DisguisedMarker | null {
  const { text, markdown } = ctx;
  // JSON: after a backslash (`\\u005b`, an escaped backslash and then `u005b`) no escape starts.
  if (ctx.json && text.charCodeAt(start) === 92 && escaped(text, start)) return null;
  const lineEnd = ctx.endOfLine(start);
  let folded = '';
  const ends: number[] = []; // per folded character: the original offset after it
  const pieces: Pieces = { list: [] };
  for (let i = start; i < lineEnd && folded.length < WINDOW; ) {
    const cp = text.codePointAt(i)!;
    let width = cp > 0xffff ? 2 : 1;
    let ch = cp < 0x80 ? text[i]! : String.fromCodePoint(cp);
    let written = ch;
    let out = ch;
    if (markdown && cp === 38) {
      const ref = reference(text, i);
      if (ref) {
        width = ref.length;
        ch = out = ref.char;
        written = text.slice(i, i + width);
        // A name's letter written as a reference renders as the letter (a bracket so written is no disguise: the scanner reads it).
        if (ch.charCodeAt(0) <= 0x7f && ch !== '[' && ch !== ']') add(pieces, folded, Kind.Reference, ch, written);
      }
    } else if (markdown && cp === 92 && text[i + 1] === ']') {
      width = 2;
      ch = out = ']';
    } else if (markdown && (cp === 60 || (cp === 123 && ctx.mdx))) {
      const length = quietHtml(ctx, i, lineEnd);
      if (length > 0) {
        add(pieces, folded, Kind.Html, '', text.slice(i, i + length));
        i += length;
        continue;
      }
    } else if (ctx.json && cp === 92 && text[i + 1] === 'u') {
      const esc = jsonEscape(text, i);
      if (esc) {
        width = esc.length;
        ch = out = esc.char;
        written = text.slice(i, i + width);
        if (ch.charCodeAt(0) <= 0x7f) add(pieces, folded, Kind.Escape, ch, written);
      }
    }
    // ASCII is itself (no ASCII character is invisible, a look-alike or a compatibility form).
    if (ch.charCodeAt(0) > 0x7f) {
      const look = lookAlike(ch);
      if (look) {
        add(pieces, folded, Kind.LookAlike, ch, ch, look.reads);
        out = look.fold;
      } else if (ch === '\u00ad') {
        add(pieces, folded, Kind.Invisible, ch, written);
        out = folded.endsWith(SOFT) ? '' : SOFT;
      } else if (IGNORABLE.test(ch)) {
        // A run of the same invisible character, the padding of a disguise: one step.
        let count = 1;
        if (written === ch) while (text.startsWith(ch, i + count * width) && i + count * width < lineEnd) count++;
        add(pieces, folded, Kind.Invisible, ch, written, '', count);
        width *= count;
        out = '';
      } else {
        out = ch.normalize('NFKC');
        if (out !== ch) add(pieces, folded, Kind.Compatibility, ch, out);
        // Only a look-alike folds to a letter of two (a private-use character of the text is not one).
        if (/[\ue000-\ue002]/.test(out)) out = out.replace(/[\ue000-\ue002]/g, '\ufffd');
      }
    }
    for (const c of out) {
      // Past the `[`, anything but a name's character or the `]` makes no marker: stop looking.
      if (folded === '' ? c !== '[' : c !== ']' && !NAME_CHAR.test(c)) return null;
      folded += c;
      ends.push(i + width);
    }
    i += width;
    // A closing bracket ends the spelling: stop at the first one.
    if (folded.length > 1 && folded.endsWith(']')) break;
  }
  if (pieces.list.length === 0) return null;
  const { names } = ctx;
  // A soft hyphen reads as nothing, or (where the name has a hyphen) as the hyphen a line break there shows.
  for (const soft of folded.includes(SOFT) ? ['', '-'] : [SOFT]) {
    const spelled = soft === SOFT ? folded : folded.replaceAll(SOFT, soft);
    const m = names.anchored.exec(spelled);
    if (!m) continue;
    const at = soft === '' ? ends.filter((_, k) => folded[k] !== SOFT) : ends;
    return { index: start, end: at[m[0].length - 1]!, name: readName(m[1]!, names), disguise: describePieces(pieces.list, folded) };
  }
  return null;
}

/** Records a disguise, or `count` more of one already recorded at the same place (padding that mixes invisibles is said once per character). */
function add(pieces: Pieces, folded: string, kind: Kind, ch: string, written: string, reads = '', count = 1): void {
  // A soft hyphen's fold stands once for a run of them; the run's invisibles are said after what came before it.
  const after = folded.endsWith(SOFT) ? folded.length - 1 : folded.length;
  const last = pieces.list[pieces.list.length - 1];
  if (last?.after === after && last.kind === kind && last.written === written) {
    last.count += count;
    return;
  }
  const key = (p: { after: number; kind: Kind; written: string }): string => `${p.after} ${p.kind} ${p.written}`;
  // The map is made for a second piece: most disguises are one.
  if (!pieces.byKey && last) pieces.byKey = new Map([[key(last), last]]);
  const same = pieces.byKey?.get(key({ after, kind, written }));
  if (same) same.count += count;
  else {
    const piece = { kind, ch, written, after, count, reads };
    pieces.list.push(piece);
    pieces.byKey?.set(key(piece), piece);
  }
}

/** The disguises in words: `U+200D (invisible) after "[CLA"`, `600 × U+200B (invisible) after "[C"`, `<!-- x --> (an HTML comment) after "[CON"`. */
function describePieces(pieces: Piece[], folded: string): string {
  return pieces
    .map((p) => {
      const prefix = folded.slice(0, p.after).replaceAll(SOFT, '');
      const at = prefix === '' ? 'as the opening bracket' : `after ${JSON.stringify(prefix)}`;
      const times = p.count > 1 ? `${p.count} × ` : '';
      switch (p.kind) {
        case Kind.LookAlike:
          return `${times}${codePoint(p.ch)} (${kindOf(p.ch)} like ${p.reads}) ${at}`;
        case Kind.Invisible:
          return `${times}${codePoint(p.ch)} (invisible${p.written === p.ch ? '' : `, written ${p.written}`}) ${at}`;
        case Kind.Compatibility:
          return `${times}${codePoint(p.ch)} (a compatibility form of ${p.written}) ${at}`;
        case Kind.Escape:
          return `${times}${p.written} (an escape of ${p.ch}) ${at}`;
        case Kind.Reference:
          return `${times}${p.written} (a character reference to ${p.ch}) ${at}`;
        default: {
          const shown = p.written.length > 40 ? `${p.written.slice(0, 37)}...` : p.written;
          return `${times}${shown} (${p.written.startsWith('<!--') ? 'an HTML comment' : p.written.startsWith('{') ? 'an MDX comment' : 'HTML that shows nothing'}) ${at}`;
        }
      }
    })
    .join(', ');
}

/** An odd number of backslashes before `at`: the character at `at` is escaped. */
function escaped(text: string, at: number): boolean {
  let n = 0;
  while (text.charCodeAt(at - 1 - n) === 92) n++;
  return n % 2 === 1;
}

/** A JSON escape `\uXXXX` at i (a surrogate pair in two): the character and its length; null when there is none. */
function jsonEscape(text: string, i: number): { char: string; length: number } | null {
  JSON_UNIT.lastIndex = i;
  const m = JSON_UNIT.exec(text);
  if (!m) return null;
  const unit = Number.parseInt(m[1]!, 16);
  if (unit >= 0xd800 && unit <= 0xdbff) {
    JSON_UNIT.lastIndex = i + 6;
    const low = JSON_UNIT.exec(text);
    const second = low ? Number.parseInt(low[1]!, 16) : 0;
    if (second >= 0xdc00 && second <= 0xdfff) return { char: String.fromCharCode(unit, second), length: 12 };
  }
  // A lone surrogate is no character a reader sees.
  return { char: unit >= 0xd800 && unit <= 0xdfff ? '\ufffd' : String.fromCharCode(unit), length: 6 };
}
const JSON_UNIT = /\\u([0-9a-fA-F]{4})/y;

/**
 * Inline HTML at i that shows nothing, on the marker's line: a comment (`<!-- x -->`, `<!-->`),
 * an empty element of one of QUIET (`<span></span>`, `<a name="x"></a>`), `<wbr>`, and in MDX a
 * self-closing one of QUIET (`<span />`) and an expression that holds only a comment (`{/* x *\/}`).
 * Its length; 0 when there is none. An attribute value holding `<` or `>` is not read: so no two
 * tags overlap, and reading them stays linear.
 */
function quietHtml(ctx: Context, i: number, lineEnd: number): number {
  const { text } = ctx;
  if (text.charCodeAt(i) === 123) {
    MDX_COMMENT_OPEN.lastIndex = i;
    const open = MDX_COMMENT_OPEN.exec(text);
    if (!open) return 0;
    const close = ctx.next('*/', i + open[0].length);
    if (close === -1) return 0;
    MDX_COMMENT_CLOSE.lastIndex = close;
    return MDX_COMMENT_CLOSE.test(text) && MDX_COMMENT_CLOSE.lastIndex <= lineEnd ? MDX_COMMENT_CLOSE.lastIndex - i : 0;
  }
  if (text.startsWith('<!--', i)) {
    if (text.startsWith('<!-->', i)) return 5;
    if (text.startsWith('<!--->', i)) return 6;
    const close = ctx.next('-->', i + 4);
    return close === -1 ? 0 : close + 3 - i;
  }
  OPEN_TAG.lastIndex = i;
  const open = OPEN_TAG.exec(text);
  if (!open) return 0;
  const name = ctx.mdx ? open[1]! : open[1]!.toLowerCase();
  if (name === 'wbr') return open[0].length;
  if (!QUIET.has(name)) return 0;
  // In HTML `<span/>` opens an element that holds the letters after it; in MDX it is empty.
  if (open[2] === '/') return ctx.mdx ? open[0].length : 0;
  CLOSE_TAG.lastIndex = i + open[0].length;
  const close = CLOSE_TAG.exec(text);
  if (!close || (ctx.mdx ? close[1]! : close[1]!.toLowerCase()) !== name) return 0;
  return CLOSE_TAG.lastIndex - i;
}
/** CommonMark's open tag on one line, with no `<` or `>` in a quoted value. */
const OPEN_TAG = /<([A-Za-z][A-Za-z0-9-]*)(?:[ \t]+[A-Za-z_:][\w.:-]*(?:[ \t]*=[ \t]*(?:[^ \t\r\n"'=<>`]+|'[^'<>\r\n]*'|"[^"<>\r\n]*"))?)*[ \t]*(\/?)>/y;
const CLOSE_TAG = /<\/([A-Za-z][A-Za-z0-9-]*)[ \t]*>/y;
const MDX_COMMENT_OPEN = /\{[ \t]*\/\*/y;
const MDX_COMMENT_CLOSE = /\*\/[ \t]*\}/y;
/** Elements that show nothing when empty: no box, no quotes, no line break. */
const QUIET = new Set('a abbr b bdi bdo big cite data del dfn em font i ins mark s samp small span strike strong sub sup time tt u var'.split(' '));

/** A markdown character reference at i: what it stands for and its length; null when there is none. */
function reference(text: string, i: number): { char: string; length: number } | null {
  const m = /^&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/.exec(text.slice(i, i + 40));
  if (!m) return null;
  if (m[3] !== undefined) {
    const named = NAMED[m[3]];
    return named ? { char: named, length: m[0].length } : null;
  }
  const cp = m[1] !== undefined ? Number(m[1]) : Number.parseInt(m[2]!, 16);
  // CommonMark: 0 and code points past Unicode read as U+FFFD; surrogates likewise.
  if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return { char: '\ufffd', length: m[0].length };
  return { char: String.fromCodePoint(cp), length: m[0].length };
}

function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Scripts a look-alike may be of (look-alikes.ts), as a message names them; another is "a letter" or "a symbol". */
const SCRIPTS = [
  'Latin',
  'Greek',
  'Cyrillic',
  'Coptic',
  'Armenian',
  'Cherokee',
  'Lisu',
  'Canadian_Aboriginal',
  'Georgian',
  'Hebrew',
  'Arabic',
  'Nko',
  'Runic',
  'Tifinagh',
  'Ethiopic',
  'Old_Italic',
  'Carian',
  'Lycian',
  'Deseret',
  'Osage',
  'Elbasan',
  'Warang_Citi',
  'Miao',
  'Ahom',
] as const;
let scriptPatterns: [string, RegExp][] | undefined;

/** What a look-alike is, for a message: `a Greek letter`, `an Arabic digit`, `a symbol`. */
function kindOf(ch: string): string {
  let kind = kinds.get(ch);
  if (kind === undefined) kinds.set(ch, (kind = describe(ch)));
  return kind;
}
const kinds = new Map<string, string>();

function describe(ch: string): string {
  scriptPatterns ??= SCRIPTS.map((s) => [s === 'Nko' ? "N'Ko" : s.replace(/_/g, ' '), new RegExp(`^\\p{Script=${s}}$`, 'u')]);
  const script = scriptPatterns.find(([, re]) => re.test(ch))?.[0];
  const what = /^\p{L}$/u.test(ch) ? 'letter' : /^\p{N}$/u.test(ch) ? 'digit' : /^\p{Pd}$/u.test(ch) ? 'dash' : script ? 'character' : 'symbol';
  const words = script ? `${script} ${what}` : what;
  return `${/^[AEIOU]/.test(words) ? 'an' : 'a'} ${words}`;
}
