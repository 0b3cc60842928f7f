import { eastAsianWidth } from 'get-east-asian-width';

/**
 * Terminal columns, the one measure of every line bounce cuts or pads to a terminal's width:
 * a CJK character and an emoji take two columns, a combining mark, a zero-width joiner or a
 * colour escape none, whatever their count of code points or UTF-16 units.
 */

/** SGR and other CSI escapes (colour): they take no column. */
const ESCAPE = /\u001b\[[0-9;?]*[ -/]*[@-~]/y;
/** Marks, format characters and controls: no column of their own. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]$/u;
/** A grapheme shown as an emoji picture: two columns. */
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

/** Printable ASCII: a column a character, nothing to segment. */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/** Made on first use: creating a segmenter loads ICU's break rules, about 12 ms of every start that imported this module. */
let segmenter: Intl.Segmenter | undefined;

/** The columns one grapheme (a user-perceived character) takes. */
function graphemeWidth(g: string): number {
  const cp = g.codePointAt(0)!;
  if (ZERO_WIDTH.test(String.fromCodePoint(cp))) return 0;
  // An emoji shown as a picture (wide of itself, or asked for by a presentation selector, a ZWJ sequence, a flag) is one two-column picture.
  if (EMOJI.test(g) && (eastAsianWidth(cp) === 2 || g.includes('\ufe0f') || g.includes('\u200d') || /\p{Regional_Indicator}/u.test(g))) return 2;
  return eastAsianWidth(cp);
}

/** The text split into escapes (no column) and graphemes (their columns). */
function* cells(text: string): Generator<{ text: string; width: number }> {
  let plain = '';
  const flush = function* (): Generator<{ text: string; width: number }> {
    if (PLAIN_ASCII.test(plain)) for (const ch of plain) yield { text: ch, width: 1 };
    else {
      segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
      for (const { segment } of segmenter.segment(plain)) yield { text: segment, width: graphemeWidth(segment) };
    }
    plain = '';
  };
  for (let i = 0; i < text.length; ) {
    ESCAPE.lastIndex = i;
    const m = text.charCodeAt(i) === 0x1b ? ESCAPE.exec(text) : null;
    if (m) {
      yield* flush();
      yield { text: m[0], width: 0 };
      i += m[0].length;
    } else plain += text[i++];
  }
  yield* flush();
}

/** The columns `text` takes on a terminal. */
export function displayWidth(text: string): number {
  if (PLAIN_ASCII.test(text)) return text.length;
  let n = 0;
  for (const c of cells(text)) n += c.width;
  return n;
}

/** `text` cut to at most `width` columns, ending in an ellipsis when cut; its escapes are kept (a colour is reset after the cut). */
export function fitColumns(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  let escaped = false;
  for (const c of cells(text)) {
    if (c.width === 0 && c.text.startsWith('\u001b')) {
      out += c.text;
      escaped = true;
      continue;
    }
    if (used + c.width > width - 1) break;
    out += c.text;
    used += c.width;
  }
  return `${out}\u2026${escaped ? '\u001b[0m' : ''}`;
}

/** `text` padded with spaces to `width` columns: at the end, or at the start with `start`. */
export function padColumns(text: string, width: number, start = false): string {
  const pad = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return start ? pad + text : text + pad;
}
