/**
 * Markers disguised by characters a reader does not see or cannot tell apart:
 * `[CLA` + U+200D + `RIFY]`, a soft hyphen, fullwidth brackets, Cyrillic letters. Each
 * looks like a marker to every person, so each is a note (docs/scanning.md, "Disguised
 * markers"). A marker's spelling is folded before it is matched: default-ignorable code
 * points are removed, fullwidth and compatibility forms are read through NFKC, and the
 * look-alikes of Latin letters (look-alikes.ts, written from Unicode's confusables data:
 * Cyrillic, Greek, Cherokee, Coptic, Armenian, Latin small capitals and many more) are
 * read as the letters they imitate. Only the few characters after a bracket-like opener
 * are folded, and only in a text that holds a character outside ASCII (or, in markdown, a
 * character reference), so a plain document costs one pattern test.
 */
import { LOOK_ALIKE_GROUPS } from './look-alikes.js';

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
const MARKDOWN_REFERENCE = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/;
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
const EITHER_ALL = /[\ue000\ue001]/g;

/** Each look-alike, built on the first text that needs it, with what it folds to and how a message says it reads. */
let lookAlikes: Map<string, { fold: string; reads: string }> | undefined;

function lookAlike(ch: string): { fold: string; reads: string } | undefined {
  if (!lookAlikes) {
    lookAlikes = new Map();
    for (const [group, chars] of Object.entries(LOOK_ALIKE_GROUPS)) {
      const look = { fold: EITHER[group] ?? group, reads: group.length === 1 ? group : `${group[0]} or ${group[1]}` };
      for (const c of chars) lookAlikes.set(c, look);
    }
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
/** Original code units looked at after an opener: invisible padding longer than this is not followed. */
const REACH = 512;

export interface DisguiseOptions {
  markdown: boolean;
  /** `(?:NAME|OTHER)` alternatives, any case, as the scanner's pattern has them. */
  names: string;
}

/** Every disguised marker in `text` that does not start at one of `plain` (the offsets of markers spelled plainly, ascending). */
export function disguisedMarkers(text: string, plain: ArrayLike<number>, opts: DisguiseOptions): DisguisedMarker[] {
  if (PLAIN_TEXT.test(text) && !(opts.markdown && MARKDOWN_REFERENCE.test(text))) return [];
  const names = namesFor(opts.names);
  const opener = opts.markdown ? OPENER_MARKDOWN : OPENER;
  opener.lastIndex = 0;
  const out: DisguisedMarker[] = [];
  let p = 0;
  for (let m = opener.exec(text); m; m = opener.exec(text)) {
    while (p < plain.length && plain[p]! < m.index) p++;
    if (p < plain.length && plain[p] === m.index) continue;
    const found = foldAt(text, m.index, opts.markdown, names);
    if (found) {
      out.push(found);
      opener.lastIndex = found.end;
    }
  }
  return out;
}

/** What a folded spelling may hold after its `[` before the `]`: the characters of a name (MARKER_NAME), and the folds of two letters. */
const NAME_CHAR = /^[A-Za-z0-9_\-\ue000\ue001]$/;

/** The folded spelling after `start`, matched against the names; null when it is no marker or no disguise. */
function foldAt(text: string, start: number, markdown: boolean, names: Names): DisguisedMarker | null {
  let folded = '';
  const ends: number[] = []; // per folded character: the original offset after it
  const disguises: string[] = [];
  const at = (): string => (folded === '' ? 'as the opening bracket' : `after ${JSON.stringify(folded)}`);
  for (let i = start; i < text.length && i - start < REACH && folded.length < WINDOW; ) {
    const cp = text.codePointAt(i)!;
    if (cp === 10 || cp === 13) break;
    let width = cp > 0xffff ? 2 : 1;
    let ch = String.fromCodePoint(cp);
    let written = ch;
    let out = ch;
    if (markdown && cp === 38) {
      const ref = reference(text, i);
      if (ref) {
        width = ref.length;
        ch = out = ref.char;
        written = text.slice(i, i + width);
      }
    } else if (markdown && cp === 92 && text[i + 1] === ']') {
      width = 2;
      ch = out = ']';
    }
    // ASCII is itself (no ASCII character is invisible, a look-alike or a compatibility form).
    if (ch.charCodeAt(0) > 0x7f) {
      const look = lookAlike(ch);
      if (look) {
        disguises.push(`${codePoint(ch)} (${kindOf(ch)} like ${look.reads}) ${at()}`);
        out = look.fold;
      } else if (IGNORABLE.test(ch)) {
        disguises.push(`${codePoint(ch)} (invisible${written === ch ? '' : `, written ${written}`}) ${at()}`);
        out = '';
      } else {
        out = ch.normalize('NFKC');
        if (out !== ch) disguises.push(`${codePoint(ch)} (a compatibility form of ${out}) ${at()}`);
        // Only a look-alike folds to a letter of two (a private-use character of the text is not one).
        if (EITHER_CHARS.test(out)) out = out.replace(EITHER_ALL, '\ufffd');
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
  const m = names.anchored.exec(folded);
  if (!m || disguises.length === 0) return null;
  return { index: start, end: ends[m[0].length - 1]!, name: readName(m[1]!, names), disguise: disguises.join(', ') };
}

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
  const what = /^\p{L}$/u.test(ch) ? 'letter' : /^\p{N}$/u.test(ch) ? 'digit' : script ? 'character' : 'symbol';
  const words = script ? `${script} ${what}` : what;
  return `${/^[AEIOU]/.test(words) ? 'an' : 'a'} ${words}`;
}
