/**
 * Markers disguised by characters a reader does not see or cannot tell apart:
 * `[CLA` + U+200D + `RIFY]`, a soft hyphen, fullwidth brackets, Cyrillic letters, a dash for
 * a name's hyphen; in markdown, inline HTML that shows nothing (`[CON<!-- x -->TESTED]`);
 * in JSON, a string escape (`"[\u0043ONTESTED]"`); a right-to-left override that shows
 * `[YFIRALC]` as `[CLARIFY]` (see "Bidi reordering" below). Each looks like a marker to every
 * person who reads the page or the data, so each is a note (docs/scanning.md, "Disguised markers").
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
import { reference } from './references.js';
import { firstAtLeast } from '../arrays.js';

/**
 * A disguised marker: where it starts and ends in the original text, its name as it reads, and
 * what disguised it. A reversed one starts at the control of its run (or, when another marker of
 * the run came first, at its own first character) and ends where its run ends.
 */
export interface DisguisedMarker {
  index: number;
  end: number;
  name: string;
  /** The disguising characters, e.g. `U+200D (invisible) after "[CLA"`. */
  disguise: string;
  /** What a reader sees after the marker up to `end`, when that is not the text written there: the rest of a reversed run, as it shows. */
  shows?: string;
  /** Where its own first character is, when that is not `index` (a reversed one starts at its run's control): what decides whether it is in code. */
  spelledAt?: number;
  /** Where the `<bdo>` tags are that open the runs reversing it (markdown), when any does: a tag in code is text, and opens no run. */
  tags?: number[];
}

const IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;
/** Nothing outside ASCII (and, in markdown, no character reference): no disguise is possible. */
const PLAIN_TEXT = /^[\x00-\x7f]*$/;
/** A character reference at `lastIndex` (sticky: tried only where a string search found an `&`, which costs far less over megabytes). */
const MARKDOWN_REFERENCE = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/y;
/**
 * Where a disguised marker can start: `[`, its fullwidth and vertical forms, and (markdown) a
 * reference; and a right-to-left control (or its reference), which the same search finds so
 * that a text without one pays nothing more to know it holds none.
 */
const OPENER = /[[\uff3b\ufe47\u202b\u202e\u2067]/g;
const OPENER_MARKDOWN =
  /[[\uff3b\ufe47\u202b\u202e\u2067]|&(?:#0{0,5}91|#[xX]0{0,4}5[bB]|#0{0,2}65339|#[xX]0{0,2}[fF][fF]3[bB]|lbrack|lsqb|#0{0,3}82(?:35|38|95)|#[xX]0{0,2}20(?:2[bBeE]|67));|<[bB][dD][oO](?=[ \t])/g;
/** An opener's match that is a right-to-left control, written as a reference or an escape (its first character is tested first). */
const RTL_WRITTEN = /^(?:&#0{0,3}82|&#[xX]0{0,2}20|\\u20)/;

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
/** Whether `text` holds a `<bdo` tag, which may reverse what it holds (bdoControl). */
function hasBdo(text: string): boolean {
  for (let i = text.indexOf('<'); i !== -1; i = text.indexOf('<', i + 1)) {
    if ((text.charCodeAt(i + 1) | 32) === 98 && (text.charCodeAt(i + 2) | 32) === 100 && (text.charCodeAt(i + 3) | 32) === 111) return true;
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
const OPENER_JSON = /[[\uff3b\ufe47\u202b\u202e\u2067]|\\u(?:005[bB]|[fF][fF]3[bB]|[fF][eE]47|20(?:2[bBeE]|67))/g;

/** Whether a text may hold a disguised marker at all: else the one pattern test (two in markdown) is all it costs. */
function mayHold(text: string, opts: DisguiseOptions): boolean {
  if (!PLAIN_TEXT.test(text)) return true;
  if (opts.markdown) return hasReference(text) || htmlInName(text, '<') || (opts.mdx === true && htmlInName(text, '{')) || hasBdo(text);
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
    const c = m[0].charCodeAt(0);
    if (c === 0x202b || c === 0x202e || c === 0x2067 || c === 60 || ((c === 38 || c === 92) && RTL_WRITTEN.test(m[0]))) {
      ctx.rtlFrom = Math.min(ctx.rtlFrom, m.index);
      continue;
    }
    while (p < plain.length && plain[p]! < m.index) p++;
    if (p < plain.length && plain[p] === m.index) continue;
    const found = foldAt(ctx, m.index);
    if (found) {
      out.push(found);
      opener.lastIndex = found.end;
    }
  }
  const reversed = ctx.rtlFrom < text.length ? reversedMarkers(ctx, plain, out) : [];
  if (reversed.length === 0) return out;
  // Both are in text order, and no two start at one offset: merge them.
  const all: DisguisedMarker[] = [];
  for (let a = 0, b = 0; a < out.length || b < reversed.length; )
    all.push(b === reversed.length || (a < out.length && out[a]!.index < reversed[b]!.index) ? out[a++]! : reversed[b++]!);
  return all;
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
  readonly crlf: boolean;
  /** Where the first right-to-left control is (text.length: none seen). */
  rtlFrom: number;
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
    this.rtlFrom = text.length;
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
  None,
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
  const { text } = ctx;
  // JSON: after a backslash (`\\u005b`, an escaped backslash and then `u005b`) no escape starts.
  if (ctx.json && text.charCodeAt(start) === 92 && escaped(text, start)) return null;
  const spelled = spell(ctx.names, FORWARD.from(ctx, start, ctx.endOfLine(start)));
  if (!spelled || spelled.pieces.list.length === 0) return null;
  // The opener search goes on after this marker: a right-to-left control in it is noted here.
  for (const p of spelled.pieces.list) if (p.kind === Kind.Invisible && RTL_NAME[p.ch] !== undefined) ctx.rtlFrom = Math.min(ctx.rtlFrom, start);
  return { index: start, end: spelled.end, name: spelled.name, disguise: describePieces(spelled.pieces.list, spelled.folded) };
}

/**
 * One thing a reader sees (or does not) at `at`: a character, a reference, an escape, a run of
 * one invisible, HTML that shows nothing; and the disguise it is, if `kind` is not NONE.
 */
interface Unit {
  at: number;
  width: number;
  /** The character it renders as; '' for HTML that shows nothing. */
  ch: string;
  /** What it folds to: '' when it shows nothing, SOFT for a soft hyphen. */
  out: string;
  kind: Kind;
  written: string;
  reads: string;
  count: number;
}
/** readUnit's answer, filled in place: a fold reads a unit per character, and megabytes of padding made an object each. */
const UNIT: Unit = { at: 0, width: 0, ch: '', out: '', kind: Kind.None, written: '', reads: '', count: 0 };

/** The unit at `i`, on a line that ends at `lineEnd` (valid until the next call). */
function readUnit(ctx: Context, i: number, lineEnd: number): Unit {
  const { text, markdown } = ctx;
  const u = UNIT;
  const cp = text.codePointAt(i)!;
  let width = cp > 0xffff ? 2 : 1;
  let ch = cp < 0x80 ? text[i]! : String.fromCodePoint(cp);
  let written = ch;
  u.kind = Kind.None;
  u.reads = '';
  u.count = 1;
  if (markdown && cp === 38) {
    const ref = reference(text, i);
    if (ref) {
      width = ref.length;
      ch = ref.char;
      written = text.slice(i, i + width);
      // A name's letter written as a reference renders as the letter (a bracket so written is no disguise: the scanner reads it).
      if (ch.charCodeAt(0) <= 0x7f && ch !== '[' && ch !== ']') u.kind = Kind.Reference;
    }
  } else if (markdown && cp === 92 && (text[i + 1] === ']' || text[i + 1] === '[')) {
    width = 2;
    ch = text[i + 1]!;
  } else if (markdown && (cp === 60 || (cp === 123 && ctx.mdx))) {
    const length = quietHtml(ctx, i, lineEnd);
    if (length > 0) {
      u.kind = Kind.Html;
      return fill(u, i, length, '', '', text.slice(i, i + length));
    }
    const bdo = cp === 60 && !ctx.mdx ? bdoControl(text, i, lineEnd) : null;
    if (bdo) {
      u.kind = Kind.Invisible;
      return fill(u, i, bdo.length, bdo.ch, '', text.slice(i, i + bdo.length));
    }
  } else if (ctx.json && cp === 92) {
    const esc = text[i + 1] === 'u' ? jsonEscape(text, i) : null;
    if (esc) {
      width = esc.length;
      ch = esc.char;
      written = text.slice(i, i + width);
      if (ch.charCodeAt(0) <= 0x7f) u.kind = Kind.Escape;
    } else if (JSON_SHORT[text[i + 1]!] !== undefined) {
      // `\\`, `\"`, `\n`: the character it stands for (so `\\u202e` is no escape of U+202E).
      width = 2;
      ch = JSON_SHORT[text[i + 1]!]!;
    }
  }
  // ASCII is itself (no ASCII character is invisible, a look-alike or a compatibility form).
  const code = ch.charCodeAt(0);
  if (code <= 0x7f) return fill(u, i, width, ch, ch, written);
  // The invisibles padding is made of are known by their code, before any look-up (none is a look-alike).
  const common = (code >= 0x200b && code <= 0x200f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2060 && code <= 0x206f) || code === 0xfeff;
  const look = common ? undefined : lookAlike(ch);
  if (look) {
    u.kind = Kind.LookAlike;
    u.reads = look.reads;
    return fill(u, i, width, ch, look.fold, ch);
  }
  if (ch === '\u00ad') {
    u.kind = Kind.Invisible;
    return fill(u, i, width, ch, SOFT, written);
  }
  if (common || IGNORABLE.test(ch)) {
    // A run of the same invisible character, the padding of a disguise: one step.
    let count = 1;
    if (written === ch) while (text.startsWith(ch, i + count * width) && i + count * width < lineEnd) count++;
    u.kind = Kind.Invisible;
    u.count = count;
    return fill(u, i, width * count, ch, '', written);
  }
  let out = ch.normalize('NFKC');
  if (out !== ch) u.kind = Kind.Compatibility;
  // Only a look-alike folds to a letter of two (a private-use character of the text is not one).
  if (/[\ue000-\ue002]/.test(out)) out = out.replace(/[\ue000-\ue002]/g, '\ufffd');
  // A compatibility form is said with what NFKC makes of it.
  return fill(u, i, width, ch, out, u.kind === Kind.Compatibility ? ch.normalize('NFKC') : written);
}
function fill(u: Unit, at: number, width: number, ch: string, out: string, written: string): Unit {
  u.at = at;
  u.width = width;
  u.ch = ch;
  u.out = out;
  u.written = written;
  return u;
}
/** JSON's two-character escapes. */
const JSON_SHORT: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** A spelling matched against the names: the name as it reads, its disguises, where the unit that holds its `]` ends. */
interface Spelled {
  name: string;
  folded: string;
  pieces: Pieces;
  end: number;
}

/** Where spell reads its units from: a line in text order (foldAt), or in the order it shows (readLine). */
interface Units {
  next(): Unit | undefined;
}
/** A line's units in text order from `i`; one, reused, so a fold at each of a million openers makes no reader each. */
const FORWARD = {
  ctx: undefined as unknown as Context,
  i: 0,
  lineEnd: 0,
  from(ctx: Context, i: number, lineEnd: number): Units {
    this.ctx = ctx;
    this.i = i;
    this.lineEnd = lineEnd;
    return this;
  },
  next(): Unit | undefined {
    if (this.i >= this.lineEnd) return undefined;
    const unit = readUnit(this.ctx, this.i, this.lineEnd);
    this.i += unit.width;
    return unit;
  },
};

/** Folds the units read, from a `[` to the first `]` or the first character that makes no marker, and matches the names. */
function spell(names: Names, units: Units): Spelled | null {
  let folded = '';
  // Per folded character: where the unit it came from ends.
  const ends: number[] = [];
  const pieces: Pieces = { list: [] };
  for (let unit = units.next(); unit && folded.length < WINDOW; unit = units.next()) {
    if (unit.kind !== Kind.None) add(pieces, folded, unit.kind, unit.kind === Kind.Html ? '' : unit.ch, unit.written, unit.reads, unit.count);
    const out = unit.out === SOFT && folded.endsWith(SOFT) ? '' : unit.out;
    for (const c of out) {
      // Past the `[`, anything but a name's character or the `]` makes no marker: stop looking.
      if (folded === '' ? c !== '[' : c !== ']' && !NAME_CHAR.test(c)) return null;
      folded += c;
      ends.push(unit.at + unit.width);
    }
    // A closing bracket ends the spelling: stop at the first one.
    if (folded.length > 1 && folded.endsWith(']')) break;
  }
  // A soft hyphen reads as nothing, or (where the name has a hyphen) as the hyphen a line break there shows.
  for (const soft of folded.includes(SOFT) ? ['', '-'] : [SOFT]) {
    const m = names.anchored.exec(soft === SOFT ? folded : folded.replaceAll(SOFT, soft));
    if (!m) continue;
    // The character that closes the match, counted without the soft hyphens read as nothing.
    let k = m[0].length - 1;
    if (soft === '') for (let j = 0, kept = -1; j < folded.length; j++) if (folded[j] !== SOFT && ++kept === m[0].length - 1) k = j;
    return { name: readName(m[1]!, names), folded, pieces, end: ends[k]! };
  }
  return null;
}

/*
 * Bidi reordering. A right-to-left override, embedding or isolate shows the characters after
 * it, up to its PDF or PDI or the end of the line, in reverse order and with each bracket
 * mirrored: `U+202E [YFIRALC] U+202C` shows as `[CLARIFY]`. A line that holds one is read a
 * second time as it shows: the explicit levels of UAX #9 (X1-X8, with its limit of 125) on a
 * left-to-right line, every character taking the direction of the run it is in (as an override
 * makes it: so an embedding or isolate is read as an override too), tabs and the spaces at the
 * line's end at the line's level (L1), the runs reversed from the highest level down (L2) and
 * each mirrored character at an odd level shown as its mirror (L4). In markdown a run left open
 * at a line's end goes on over the next lines of its paragraph, as a rendered paragraph shows.
 * A marker in that reading with a character of a reversed run is a note. The openers' search
 * finds the right-to-left controls too (written as a reference in markdown, an escape in JSON):
 * a text without one pays nothing more, and the lines after the first one are searched once.
 */
const RTL_CONTROL = /[\u202b\u202e\u2067]/g;
const RTL_CONTROL_MARKDOWN = /[\u202b\u202e\u2067]|&#(?:0{0,3}82(?:35|38|95)|[xX]0{0,2}20(?:2[bBeE]|67));|<[bB][dD][oO](?=[ \t])/g;
const RTL_CONTROL_JSON = /[\u202b\u202e\u2067]|\\u20(?:2[bBeE]|67)/g;
/** What each control that opens a run does: right to left or not, an isolate or not (a first-strong isolate is read as left to right: a marker's letters are Latin). */
const OPENS: ReadonlyMap<string, { rtl: boolean; isolate: boolean }> = new Map([
  ['\u202a', { rtl: false, isolate: false }],
  ['\u202b', { rtl: true, isolate: false }],
  ['\u202d', { rtl: false, isolate: false }],
  ['\u202e', { rtl: true, isolate: false }],
  ['\u2066', { rtl: false, isolate: true }],
  ['\u2067', { rtl: true, isolate: true }],
  ['\u2068', { rtl: false, isolate: true }],
]);
const PDF = '\u202c';
const PDI = '\u2069';
const MAX_DEPTH = 125;
const RTL_NAME: Readonly<Record<string, string>> = {
  '\u202b': 'right-to-left embedding',
  '\u202e': 'right-to-left override',
  '\u2067': 'right-to-left isolate',
};
/** The bidi class of `ch` the reading needs: B (ends every run), S and WS (for L1), or 0. */
function separatorClass(ch: string): number {
  const c = ch.charCodeAt(0);
  if (c === 10 || c === 13 || (c >= 0x1c && c <= 0x1e) || c === 0x85 || c === 0x2029) return PARAGRAPH;
  if (c === 9 || c === 11 || c === 0x1f) return SEGMENT;
  if (c === 32 || c === 12 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x205f || c === 0x3000) return SPACE;
  return 0;
}
const MIRRORED = /^\p{Bidi_Mirrored}$/u;
const MIRRORED_ASCII = /^[()<>[\]{}]$/;
/** The mirror glyphs a note's text may show (from BidiMirroring.txt: the brackets and quotes of prose), in pairs. */
const MIRROR_PAIRS = '()[]{}<>\u00ab\u00bb\u2039\u203a\u2045\u2046\u2329\u232a\u27e8\u27e9\u3008\u3009\uff08\uff09\uff3b\uff3d\uff5b\uff5d\uff1c\uff1e';
const MIRROR = new Map<string, string>();
for (let k = 0; k < MIRROR_PAIRS.length; k += 2) MIRROR.set(MIRROR_PAIRS[k]!, MIRROR_PAIRS[k + 1]!).set(MIRROR_PAIRS[k + 1]!, MIRROR_PAIRS[k]!);
const INVISIBLES = /\p{Default_Ignorable_Code_Point}/gu;
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;
const BLANK_LINE = /[ \t]*(?:[\r\n]|$)/y;
/** Markdown: a heading line, and a line that starts a block of its own (so it ends the paragraph above it). */
const HEADING_LINE = /[ \t]{0,3}#{1,6}(?:[ \t]|[\r\n]|$)/y;
const BLOCK_START = /[ \t]{0,3}(?:#{1,6}(?:[ \t]|[\r\n]|$)|[-*+](?:[ \t]|[\r\n]|$)|\d{1,9}[.)](?:[ \t]|[\r\n]|$)|>|```|~~~)/y;

// Per unit of a line: a control, what it may start or end, how it shows.
const CONTROL = 1;
const OPEN = 2;
const CLOSE = 4;
const MIRRORS = 8;
const SPACE = 16;
const SEGMENT = 32;
const HIDDEN = 64;
const PARAGRAPH = 128;

/** A reversed run at its root: where its control starts and where the run ends (-1 while it is open), and the control. */
interface Scope {
  start: number;
  end: number;
  ch: string;
  written: string;
}
/** An entry of the directional status stack (X1). */
interface Entry {
  level: number;
  isolate: boolean;
  /** The reversed run it is in, or -1. */
  scope: number;
  /** It opened that run. */
  root: boolean;
}

/** The markers of the lines that hold a right-to-left control, as those lines show, but those a plain or disguised marker already covers. */
function reversedMarkers(ctx: Context, plain: ArrayLike<number>, forward: DisguisedMarker[]): DisguisedMarker[] {
  const { text } = ctx;
  const search = ctx.markdown ? RTL_CONTROL_MARKDOWN : ctx.json ? RTL_CONTROL_JSON : RTL_CONTROL;
  search.lastIndex = ctx.rtlFrom;
  const found: DisguisedMarker[] = [];
  const forwardStarts = forward.map((d) => d.index);
  const covered = (from: number, to: number): boolean => {
    const p = firstAtLeast(plain, from);
    if (p < plain.length && plain[p]! < to) return true;
    const f = firstAtLeast(forwardStarts, from);
    return (f < forward.length && forward[f]!.index < to) || (f > 0 && forward[f - 1]!.end > from);
  };
  for (let m = search.exec(text); m; m = search.exec(text)) {
    let start = Math.max(m.index > 0 ? text.lastIndexOf('\n', m.index - 1) : -1, ctx.crlf && m.index > 0 ? text.lastIndexOf('\r', m.index - 1) : -1) + 1;
    // The runs open at a line's end: in markdown they go on over the rest of the paragraph.
    const runs: Runs = {
      stack: [{ level: 0, isolate: false, scope: -1, root: false }],
      scopes: [],
      overflowIsolates: 0,
      overflowEmbeddings: 0,
      validIsolates: 0,
    };
    for (;;) {
      const lineStart = start;
      const line = readLine(ctx, start, runs);
      for (const d of line.markers) if (!covered(d.from, d.to)) found.push(d.marker);
      search.lastIndex = Math.max(search.lastIndex, line.end);
      start = line.end + (text.startsWith('\r\n', line.end) ? 2 : 1);
      BLANK_LINE.lastIndex = start;
      if (!ctx.markdown || runs.stack.length === 1 || start >= text.length || BLANK_LINE.test(text)) break;
      // A heading is a block of one line, and a line that starts a block (an item, a quote, a heading, a fence) ends the paragraph.
      HEADING_LINE.lastIndex = lineStart;
      BLOCK_START.lastIndex = start;
      if (HEADING_LINE.test(text) || BLOCK_START.test(text)) break;
    }
  }
  // Arrays grown for a long line are not kept.
  if (LINE && LINE.at.length > 1 << 16) LINE = undefined;
  return found.sort((a, b) => a.index - b.index);
}

/** Per unit of the line being read (readLine): where it starts (and, after the last, where the line ends), its level, its run, its flags, where it shows. */
interface LineArrays {
  at: Int32Array;
  level: Uint8Array;
  scopeOf: Int32Array;
  flags: Uint8Array;
  position: Int32Array;
}
/** Kept from line to line and grown as needed: a document of many short lines with controls makes no arrays per line. */
let LINE: LineArrays | undefined;
function lineArrays(size: number): LineArrays {
  return { at: new Int32Array(size), level: new Uint8Array(size), scopeOf: new Int32Array(size), flags: new Uint8Array(size), position: new Int32Array(size) };
}

/** The directional status stack (its base entry first), and the reversed runs its entries point to. */
interface Runs {
  stack: Entry[];
  scopes: Scope[];
  /** X1's counters. */
  overflowIsolates: number;
  overflowEmbeddings: number;
  validIsolates: number;
}

/** One line read as it shows, with the runs open at its start (left open at its end): its markers with a reversed character, each with the range its own characters take. */
function readLine(ctx: Context, lineStart: number, runs: Runs): { end: number; markers: { marker: DisguisedMarker; from: number; to: number }[] } {
  const { text } = ctx;
  const lineEnd = ctx.endOfLine(lineStart);
  const size = lineEnd - lineStart;
  if (!LINE || LINE.at.length <= size) LINE = lineArrays(Math.max(size + 1, 2 * (LINE?.at.length ?? 128)));
  const { at, level, scopeOf, flags, position } = LINE;
  const { stack, scopes } = runs;
  let odd = false;
  const pop = (end: number): void => {
    const e = stack.pop()!;
    if (e.root) scopes[e.scope]!.end = end;
  };
  let n = 0;
  for (let i = lineStart; i < lineEnd; n++) {
    const u = readUnit(ctx, i, lineEnd);
    at[n] = i;
    i += u.width;
    const opens = OPENS.get(u.ch);
    let f = 0;
    // An isolate's controls stay, at the level outside it (X5a, X6a); the others are removed (X9).
    let outer = stack[stack.length - 1]!;
    if (opens || u.ch === PDF || u.ch === PDI) {
      f = opens?.isolate || u.ch === PDI ? HIDDEN : CONTROL;
      for (let c = 0; c < u.count; c++) {
        const top = stack[stack.length - 1]!;
        if (opens) {
          const next = opens.rtl ? (top.level + 1) | 1 : (top.level + 2) & ~1;
          if (next <= MAX_DEPTH && runs.overflowIsolates === 0 && runs.overflowEmbeddings === 0) {
            if (opens.isolate) runs.validIsolates++;
            const root = top.scope < 0 && next % 2 === 1;
            if (root) scopes.push({ start: u.at, end: -1, ch: u.ch, written: text.slice(u.at, u.at + u.width / u.count) });
            stack.push({ level: next, isolate: opens.isolate, scope: root ? scopes.length - 1 : top.scope, root });
          } else if (opens.isolate) runs.overflowIsolates++;
          else if (runs.overflowIsolates === 0) runs.overflowEmbeddings++;
        } else if (u.ch === PDI) {
          if (runs.overflowIsolates > 0) runs.overflowIsolates--;
          else if (runs.validIsolates > 0) {
            runs.overflowEmbeddings = 0;
            while (!stack[stack.length - 1]!.isolate) pop(i);
            pop(i);
            runs.validIsolates--;
          }
        } else if (runs.overflowIsolates === 0) {
          if (runs.overflowEmbeddings > 0) runs.overflowEmbeddings--;
          else if (!top.isolate && stack.length > 1) pop(i);
        }
      }
    } else {
      f = separatorClass(u.ch);
      if (f === PARAGRAPH) {
        // A paragraph separator ends every run (in JSON, an escaped line break).
        while (stack.length > 1) pop(u.at);
        runs.overflowIsolates = runs.overflowEmbeddings = runs.validIsolates = 0;
        f = SEGMENT;
      } else if (f === 0 && u.out === '') f = HIDDEN;
      else if (f === 0) {
        if (u.out[0] === '[') f |= OPEN;
        if (u.out[0] === ']') f |= CLOSE;
        if ((u.ch.charCodeAt(0) < 0x80 ? MIRRORED_ASCII : MIRRORED).test(u.ch)) f |= MIRRORS;
      }
    }
    flags[n] = f;
    if (!opens?.isolate) outer = stack[stack.length - 1]!;
    level[n] = outer.level;
    scopeOf[n] = outer.scope;
    if (outer.level % 2 === 1) odd = true;
  }
  at[n] = lineEnd;
  const result = { end: lineEnd, markers: [] as { marker: DisguisedMarker; from: number; to: number }[] };
  if (!odd) return result;
  // On this line a run starts at its control, or at the line's start when it goes on from the line above; it ends at its PDF or PDI, or the line's end.
  const startOf = (scope: Scope): number => (scope.start >= lineStart ? scope.start : -1);
  const endOf = (scope: Scope): number => (scope.end >= lineStart ? scope.end : lineEnd);
  // L1: a tab, and the spaces (and controls) before it and at the line's end, are at the line's level.
  for (let k = n - 1, trailing = true; k >= 0; k--) {
    if (flags[k]! & SEGMENT) trailing = true;
    else if (!(trailing && flags[k]! & (SPACE | HIDDEN | CONTROL))) {
      trailing = false;
      continue;
    }
    level[k] = 0;
    scopeOf[k] = -1;
  }
  const order = displayOrder(level, flags, n);
  for (let p = 0; p < order.length; p++) position[order[p]!] = p;
  // The unit at display position q, as it shows: a mirrored bracket read as its mirror.
  const shown = (k: number): Unit => {
    const u = readUnit(ctx, at[k]!, lineEnd);
    if (level[k]! % 2 === 1 && flags[k]! & MIRRORS) u.out = u.out === '[' ? ']' : u.out === ']' ? '[' : u.out;
    // An isolate's control is said with the run it opens, not as an invisible.
    else if (flags[k]! & HIDDEN && (OPENS.has(u.ch) || u.ch === PDI)) u.kind = Kind.None;
    return u;
  };
  const spans: { from: number; to: number; spelled: Spelled }[] = [];
  for (let p = 0; p < order.length; p++) {
    const k = order[p]!;
    if (!(flags[k]! & (level[k]! % 2 === 1 && flags[k]! & MIRRORS ? CLOSE : OPEN))) continue;
    let q = p;
    const spelled = spell(ctx.names, { next: () => (q < order.length ? shown(order[q++]!) : undefined) });
    if (!spelled) continue;
    // The unit that holds its `]`: the one that ends where the spelling does.
    let lo = 0;
    for (let hi = n; lo < hi; ) {
      const mid = (lo + hi) >> 1;
      if (at[mid + 1]! < spelled.end) lo = mid + 1;
      else hi = mid;
    }
    const last = position[lo]!;
    spans.push({ from: p, to: last + 1, spelled });
    p = last;
  }
  const claimed = new Set<number>();
  for (let s = 0; s < spans.length; s++) {
    const { from, to, spelled } = spans[s]!;
    // The runs it has characters of, its own characters' range, and its range: they and the runs they are in, each from its control to its end.
    const own: number[] = [];
    let minAt = Number.POSITIVE_INFINITY;
    let maxEnd = -1;
    let start = Number.POSITIVE_INFINITY;
    let end = -1;
    for (let p = from; p < to; p++) {
      const k = order[p]!;
      const c = scopeOf[k]!;
      if (c >= 0 && !own.includes(c)) own.push(c);
      minAt = Math.min(minAt, at[k]!);
      maxEnd = Math.max(maxEnd, at[k + 1]!);
      start = Math.min(start, c >= 0 && startOf(scopes[c]!) >= 0 ? startOf(scopes[c]!) : at[k]!);
      end = Math.max(end, c >= 0 ? endOf(scopes[c]!) : at[k + 1]!);
    }
    // Every character in its place and order: the plain reading has it.
    if (own.length === 0) continue;
    // The first marker of a run shows where the run starts, at its control; another of the same run is placed at its own characters.
    const index = own.some((c) => claimed.has(c)) ? minAt : start;
    for (const c of own) claimed.add(c);
    // What shows after it, up to the next marker or the end of its range.
    let shows = '';
    const stop = s + 1 < spans.length ? spans[s + 1]!.from : order.length;
    for (let p = to; p < stop && at[order[p]!]! >= start && at[order[p]! + 1]! <= end; p++) {
      const k = order[p]!;
      const written = text.slice(at[k]!, at[k + 1]!);
      shows += level[k]! % 2 === 1 && flags[k]! & MIRRORS ? (MIRROR.get(written) ?? written) : written;
    }
    const reversal = own.map((c) => {
      const { ch, written } = scopes[c]!;
      // Its characters in that run, in the order they are written.
      const inRun: number[] = [];
      for (let p = from; p < to; p++) if (scopeOf[order[p]!] === c) inRun.push(order[p]!);
      const spelling = inRun
        .sort((x, y) => x - y)
        .map((k) => text.slice(at[k]!, at[k + 1]!))
        .join('')
        .replace(INVISIBLES, '');
      return `${codePoint(ch)} (${RTL_NAME[ch]}${written === ch ? '' : `, written ${written}`}) reversing ${JSON.stringify(spelling)}`;
    });
    const others = spelled.pieces.list.length > 0 ? `, ${describePieces(spelled.pieces.list, spelled.folded)}` : '';
    const marker: DisguisedMarker = { index, end, name: spelled.name, disguise: reversal.join(', ') + others };
    if (minAt !== index) marker.spelledAt = minAt;
    const tags = own.map((c) => scopes[c]!.start).filter((p) => text.charCodeAt(p) === 60);
    if (tags.length > 0) marker.tags = tags;
    const tail = shows.replace(BIDI_CONTROLS, '').replace(/\s+/g, ' ').trimEnd();
    if (tail !== '') marker.shows = tail;
    result.markers.push({ marker, from: minAt, to: maxEnd });
  }
  return result;
}

/**
 * The units that show (not the controls), in the order they show (L2): from the highest level
 * down, each run at that level or above reversed. Built as a tree of runs, each reversed once
 * if its level is odd, so a line costs time linear in its units however deep its levels go.
 */
function displayOrder(level: Uint8Array, flags: Uint8Array, n: number): Int32Array {
  interface Run {
    level: number;
    items: (number | Run)[];
  }
  const stack: Run[] = [{ level: 0, items: [] }];
  let size = 0;
  for (let k = 0; k < n; k++) {
    if (flags[k]! & CONTROL) continue;
    size++;
    const l = level[k]!;
    while (stack[stack.length - 1]!.level > l) {
      const closed = stack.pop()!;
      const top = stack[stack.length - 1]!;
      // Closed above a level nothing holds yet: the run at this unit's level starts with it.
      if (top.level >= l) top.items.push(closed);
      else stack.push({ level: l, items: [closed] });
    }
    if (stack[stack.length - 1]!.level < l) stack.push({ level: l, items: [] });
    stack[stack.length - 1]!.items.push(k);
  }
  while (stack.length > 1) {
    const closed = stack.pop()!;
    stack[stack.length - 1]!.items.push(closed);
  }
  const order = new Int32Array(size);
  let p = 0;
  const emit = (run: Run): void => {
    const reversed = run.level % 2 === 1;
    for (let j = 0; j < run.items.length; j++) {
      const item = run.items[reversed ? run.items.length - 1 - j : j]!;
      if (typeof item === 'number') order[p++] = item;
      else emit(item);
    }
  };
  emit(stack[0]!);
  return order;
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
/**
 * Markdown: `<bdo dir="rtl">` shows what it holds as a right-to-left override (U+202E) does,
 * and `<bdo dir="ltr">` as a left-to-right one, up to `</bdo>`, which ends it as a PDF does:
 * `<bdo dir="rtl">[YFIRALC]</bdo>` shows as `[CLARIFY]` (GitHub keeps the tag and its `dir`).
 * The control it stands for and the tag's length; null for anything else. A tag is one only
 * where it is markup: not after a backslash, not inside another tag (an attribute's value);
 * one in a code span is no tag either (each marker says which tags reverse it, `tags`, and the
 * scanner, which knows where code is, drops it). Not read: a tag that goes on over a line break, and (MDX) a JSX `<bdo>`,
 * whose `dir` a page may or may not honour.
 */
function bdoControl(text: string, i: number, lineEnd: number): { ch: string; length: number } | null {
  if (!liveTag(text, i)) return null;
  // A tag of more than a kilobyte is not read: each `<bdo` costs at most that much to try.
  const s = text.slice(i, Math.min(lineEnd, i + 1024));
  if (s.charCodeAt(1) === 47) {
    CLOSE_TAG.lastIndex = 0;
    const close = CLOSE_TAG.exec(s);
    return close && close[1]!.toLowerCase() === 'bdo' ? { ch: PDF, length: close[0].length } : null;
  }
  BDO_OPEN.lastIndex = 0;
  const open = BDO_OPEN.exec(s);
  if (!open) return null;
  // The first `dir` counts (HTML keeps the first of an attribute given twice); its value matches in any case.
  let dir = '';
  ATTRIBUTE.lastIndex = 0;
  for (let a = ATTRIBUTE.exec(open[1]!); a; a = ATTRIBUTE.exec(open[1]!)) {
    if (a[1]!.toLowerCase() !== 'dir') continue;
    dir = (a[2] ?? '').replace(/^(["'])(.*)\1$/, '$2').toLowerCase();
    break;
  }
  return dir === 'rtl' ? { ch: '\u202e', length: open[0].length } : dir === 'ltr' ? { ch: '\u202d', length: open[0].length } : null;
}
/** `<bdo` and its attributes up to `>` on one line (a quoted value may hold `>`); `/>` opens it too, as in HTML. */
const BDO_OPEN = /<bdo((?:[ \t]+[A-Za-z_:][\w.:-]*(?:[ \t]*=[ \t]*(?:[^ \t\r\n"'=<>`]+|'[^'\r\n]*'|"[^"\r\n]*"))?)*)[ \t]*\/?>/iy;
/** One attribute of BDO_OPEN's list: its name and its value as written. */
const ATTRIBUTE = /[ \t]+([A-Za-z_:][\w.:-]*)(?:[ \t]*=[ \t]*([^ \t\r\n"'=<>`]+|'[^'\r\n]*'|"[^"\r\n]*"))?/y;
/**
 * Whether the `<` at i can open a tag: not escaped by a backslash, and not inside another
 * tag, which the nearest `<` or `>` before it on its line tells (looked for up to a kilobyte
 * back: a `<` that opens a tag, with no `>` after it, means i is in that tag).
 */
function liveTag(text: string, i: number): boolean {
  let n = 0;
  while (text.charCodeAt(i - 1 - n) === 92) n++;
  if (n % 2 === 1) return false;
  for (let j = i - 1; j >= 0 && j >= i - 1024; j--) {
    const c = text.charCodeAt(j);
    if (c === 62 || c === 10 || c === 13) return true;
    if (c === 60) {
      const next = text.charCodeAt(j + 1) | 32;
      if ((next >= 97 && next <= 122) || next === 47 || next === 33) return false;
    }
  }
  return true;
}
/** CommonMark's open tag on one line, with no `<` or `>` in a quoted value. */
const OPEN_TAG = /<([A-Za-z][A-Za-z0-9-]*)(?:[ \t]+[A-Za-z_:][\w.:-]*(?:[ \t]*=[ \t]*(?:[^ \t\r\n"'=<>`]+|'[^'<>\r\n]*'|"[^"<>\r\n]*"))?)*[ \t]*(\/?)>/y;
const CLOSE_TAG = /<\/([A-Za-z][A-Za-z0-9-]*)[ \t]*>/y;
const MDX_COMMENT_OPEN = /\{[ \t]*\/\*/y;
const MDX_COMMENT_CLOSE = /\*\/[ \t]*\}/y;
/** Elements that show nothing when empty: no box, no quotes, no line break. */
const QUIET = new Set('a abbr b bdi bdo big cite data del dfn em font i ins mark s samp small span strike strong sub sup time tt u var'.split(' '));

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
