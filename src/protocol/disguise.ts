/**
 * Markers disguised by characters a reader does not see or cannot tell apart:
 * `[CLA` + U+200D + `RIFY]`, a soft hyphen, fullwidth brackets, Cyrillic letters. Each
 * looks like a marker to every person, so each is a note (docs/scanning.md, "Disguised
 * markers"). A marker's spelling is folded before it is matched: default-ignorable code
 * points are removed, fullwidth and compatibility forms are read through NFKC, and a small
 * table maps Cyrillic and Greek look-alikes to the Latin letters they imitate. Only the
 * few characters after a bracket-like opener are folded, and only in a text that holds a
 * character outside ASCII (or, in markdown, a character reference), so a plain document
 * costs one pattern test.
 */

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

/** Cyrillic and Greek letters that look like Latin ones (the letters of marker names, upper and lower case). */
const LOOK_ALIKES = new Map(
  [
    // Cyrillic, upper and lower case
    'АA ВB СC ЕE НH ІI ЈJ КK МM ОO РP ЅS ТT ХX ҮY ԀD ԚQ ԜW ӀI аa сc ԁd еe һh іi јj оo рp ԛq ѕs уy хx ԝw ӏl',
    // Greek
    'ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX οo ιi κk νv ρp τt υu χx',
    // Latin letters that read as others
    'ıi ȷj ℓl',
  ]
    .join(' ')
    .split(' ')
    .map((pair) => [pair[0]!, pair[1]!] as const),
);

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
  const anchored = new RegExp(`^\\[(${opts.names})\\]`);
  const opener = opts.markdown ? OPENER_MARKDOWN : OPENER;
  opener.lastIndex = 0;
  const out: DisguisedMarker[] = [];
  let p = 0;
  for (let m = opener.exec(text); m; m = opener.exec(text)) {
    while (p < plain.length && plain[p]! < m.index) p++;
    if (p < plain.length && plain[p] === m.index) continue;
    const found = foldAt(text, m.index, opts.markdown, anchored);
    if (found) {
      out.push(found);
      opener.lastIndex = found.end;
    }
  }
  return out;
}

/** The folded spelling after `start`, matched against the names; null when it is no marker or no disguise. */
function foldAt(text: string, start: number, markdown: boolean, anchored: RegExp): DisguisedMarker | null {
  let folded = '';
  const ends: number[] = []; // per folded character: the original offset after it
  const disguises: string[] = [];
  for (let i = start; i < text.length && i - start < REACH && folded.length < WINDOW; ) {
    const cp = text.codePointAt(i)!;
    if (cp === 10 || cp === 13) break;
    let width = cp > 0xffff ? 2 : 1;
    let ch = String.fromCodePoint(cp);
    let written = ch;
    if (markdown && cp === 38) {
      const ref = reference(text, i);
      if (ref) {
        width = ref.length;
        ch = ref.char;
        written = text.slice(i, i + width);
      }
    } else if (markdown && cp === 92 && text[i + 1] === ']') {
      width = 2;
      ch = ']';
    }
    const at = folded === '' ? 'as the opening bracket' : `after ${JSON.stringify(folded)}`;
    if (IGNORABLE.test(ch)) disguises.push(`${codePoint(ch)} (invisible${written === ch ? '' : `, written ${written}`}) ${at}`);
    else {
      const look = LOOK_ALIKES.get(ch);
      const nfkc = look ?? ch.normalize('NFKC');
      if (look) disguises.push(`${codePoint(ch)} (a ${script(ch)} letter like ${look}) ${at}`);
      else if (nfkc !== ch && ch.charCodeAt(0) > 0x7f) disguises.push(`${codePoint(ch)} (a compatibility form of ${nfkc}) ${at}`);
      for (const c of nfkc) {
        folded += c;
        ends.push(i + width);
      }
    }
    i += width;
    // A closing bracket ends the spelling: stop at the first one.
    if (folded.length > 1 && folded.endsWith(']')) break;
  }
  const m = anchored.exec(folded);
  if (!m || disguises.length === 0) return null;
  return { index: start, end: ends[m[0].length - 1]!, name: m[1]!, disguise: disguises.join(', ') };
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

function script(ch: string): string {
  const cp = ch.codePointAt(0)!;
  return cp >= 0x370 && cp <= 0x3ff ? 'Greek' : cp >= 0x400 && cp <= 0x52f ? 'Cyrillic' : 'Latin';
}
