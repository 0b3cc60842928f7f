/** Markdown character references (`&#91;`, `&#x5B;`, `&lbrack;`) as the characters they stand for, as CommonMark reads them. */

/**
 * The named references bounce reads: those a disguise may use (the brackets, invisibles) and
 * those a writer uses for what a keyboard gives too (the ledger reads text as it shows).
 */
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
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

/** A markdown character reference at i: what it stands for and its length; null when there is none. */
export function reference(text: string, i: number): { char: string; length: number } | null {
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
