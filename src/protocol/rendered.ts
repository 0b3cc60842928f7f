/**
 * A line as a reader sees it, for the ledger (src/protocol/ledger.ts): what is written one way
 * and shows another is taken as it shows, so a pass cannot pass off a note deleted as a note
 * acted on by writing the same text differently. Everywhere, a letter that looks like a Latin
 * one (src/protocol/look-alikes.ts) is that letter. In Markdown also: a backslash escape is
 * the character it escapes, a character reference the character it stands for
 * (references.ts), and an inline HTML tag (`<span>`, `</b>`, `<wbr>`) nothing.
 */
import { TAG } from './inline-ranges.js';
import { PUNCT } from './link-syntax.js';
import { LOOK_ALIKE_GROUPS } from './look-alikes.js';
import { reference } from './references.js';

export interface Rendered {
  text: string;
  /** Where an offset of the line as written falls in `text`. */
  at(offset: number): number;
}

/** Each look-alike character by the letter it reads as (`Il` reads as I). */
const FOLD = new Map<string, string>();
for (const [letters, chars] of Object.entries(LOOK_ALIKE_GROUPS)) for (const ch of chars) FOLD.set(ch, letters[0]!);

/** Where the line may show otherwise than it is written; the text between is taken as it is. */
const SPECIAL = /[\\&<\u0080-\u{10FFFF}]/gu;
const SPECIAL_PLAIN = /[\u0080-\u{10FFFF}]/gu;

/** The line as it shows; null when it shows as it is written. Offsets are mapped only with `offsets`. */
export function rendered(line: string, markdown: boolean, offsets = false): Rendered | null {
  const special = markdown ? SPECIAL : SPECIAL_PLAIN;
  special.lastIndex = 0;
  if (!special.test(line)) return null;
  let out = '';
  let changed = false;
  const map = offsets ? new Int32Array(line.length + 1) : null;
  // Takes line[from, to) as written.
  const keep = (from: number, to: number): void => {
    if (map) for (let k = from; k < to; k++) map[k] = out.length + k - from;
    out += line.slice(from, to);
  };
  // Shows `shown` for line[from, to).
  const show = (from: number, to: number, shown: string): void => {
    if (map) map.fill(out.length, from, to);
    out += shown;
    changed = true;
  };
  let i = 0;
  special.lastIndex = 0;
  for (let m = special.exec(line); m; m = special.exec(line)) {
    const at = m.index;
    if (at < i) continue;
    keep(i, at);
    const c = m[0];
    i = at + c.length;
    if (c === '\\') {
      if (at + 1 < line.length && PUNCT.test(line[at + 1]!)) {
        show(at, at + 2, line[at + 1]!);
        i = at + 2;
      } else keep(at, i);
    } else if (c === '&') {
      const ref = reference(line, at);
      if (ref) {
        show(at, at + ref.length, ref.char);
        i = at + ref.length;
      } else keep(at, i);
    } else if (c === '<') {
      TAG.lastIndex = at;
      if (TAG.test(line)) {
        show(at, TAG.lastIndex, '');
        i = TAG.lastIndex;
      } else keep(at, i);
    } else {
      const fold = FOLD.get(c);
      if (fold === undefined) keep(at, i);
      else show(at, i, fold);
    }
    special.lastIndex = i;
  }
  keep(i, line.length);
  if (!changed) return null;
  if (map) map[line.length] = out.length;
  const end = line.length;
  return {
    text: out,
    at: (offset) => (!map || !Number.isFinite(offset) ? offset : offset >= end ? out.length + offset - end : map[offset]!),
  };
}
