/**
 * A line as a reader sees it, for the ledger (src/protocol/ledger.ts): what is written one way
 * and shows another is taken as it shows, so a pass cannot pass off a note deleted as a note
 * acted on by writing the same text differently. Everywhere, a letter that looks like a Latin
 * one (src/protocol/look-alikes.ts) is that letter. In Markdown also: a backslash escape is
 * the character it escapes, a character reference the character it stands for, and an inline
 * HTML tag (`<span>`, `</b>`, `<wbr>`) nothing.
 */
import { LOOK_ALIKE_GROUPS } from './look-alikes.js';

export interface Rendered {
  text: string;
  /** Where an offset of the line as written falls in `text`. */
  at(offset: number): number;
}

/** Each look-alike character by the letter it reads as (`Il` reads as I). */
const FOLD = new Map<string, string>();
for (const [letters, chars] of Object.entries(LOOK_ALIKE_GROUPS)) for (const ch of chars) FOLD.set(ch, letters[0]!);

/** A line that may show otherwise than it is written: no rendering needed for the rest. */
const MAYBE = /[\\&<\u0080-\u{10FFFF}]/u;
const MAYBE_PLAIN = /[\u0080-\u{10FFFF}]/u;
const PUNCT = /^[!-/:-@[-`{-~]$/;
const REFERENCE = /&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/y;
const TAG = /<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/y;
/** The named references a writer uses for what a keyboard gives too. */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  shy: '\u00ad',
  zwj: '\u200d',
  zwnj: '\u200c',
};

/** The line as it shows; null when it shows as it is written. */
export function rendered(line: string, markdown: boolean): Rendered | null {
  if (!(markdown ? MAYBE : MAYBE_PLAIN).test(line)) return null;
  let out = '';
  const map = new Int32Array(line.length + 1);
  let changed = false;
  for (let i = 0; i < line.length; ) {
    map[i] = out.length;
    const c = line[i]!;
    if (markdown && c === '\\' && i + 1 < line.length && PUNCT.test(line[i + 1]!)) {
      out += line[i + 1];
      map[i + 1] = out.length - 1;
      i += 2;
      changed = true;
      continue;
    }
    if (markdown && c === '&') {
      REFERENCE.lastIndex = i;
      const m = REFERENCE.exec(line);
      const code = m ? (m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? Number.parseInt(m[2], 16) : -1) : -1;
      const shown = !m ? undefined : code >= 0 ? (code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined) : NAMED[m[3]!];
      if (m && shown !== undefined) {
        for (let k = i; k < i + m[0].length; k++) map[k] = out.length;
        out += shown;
        i += m[0].length;
        changed = true;
        continue;
      }
    }
    if (markdown && c === '<') {
      TAG.lastIndex = i;
      const m = TAG.exec(line);
      if (m) {
        for (let k = i; k < i + m[0].length; k++) map[k] = out.length;
        i += m[0].length;
        changed = true;
        continue;
      }
    }
    const ch = String.fromCodePoint(line.codePointAt(i)!);
    const fold = FOLD.get(ch);
    out += fold ?? ch;
    if (fold !== undefined) changed = true;
    for (let k = 1; k < ch.length; k++) map[i + k] = map[i]!;
    i += ch.length;
  }
  map[line.length] = out.length;
  if (!changed) return null;
  return { text: out, at: (offset) => (offset >= line.length ? (Number.isFinite(offset) ? out.length + offset - line.length : offset) : map[offset]!) };
}
