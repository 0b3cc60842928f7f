/**
 * The net change of a document as suggestions on the original: one per changed stretch of
 * lines, each a range of the original and the text to put there, such that applying every
 * one gives the new text byte for byte (line breaks, a missing final one, included).
 */
import type { RdPosition, RdSuggestion } from '../formats/rdjson.js';
import { diffLines } from '../text/line-diff.js';

/** Lines of a text, each with its line break (`\n` or `\r\n`); a last line without one has none. */
export function linesWithBreaks(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** One changed stretch: `deleted` lines of the original from line `start` (0-based) give way to `inserted`. */
export interface LineHunk {
  start: number;
  deleted: number;
  /** The new lines, each with its line break. */
  inserted: string[];
}

/** The changed stretches between two texts, with no context lines, in order. */
export function lineHunks(before: string, after: string): LineHunk[] {
  const ops = diffLines(linesWithBreaks(before), linesWithBreaks(after));
  const out: LineHunk[] = [];
  let open: LineHunk | null = null;
  let next = 0; // the original's next line
  for (const op of ops) {
    if (op.type === 'equal') {
      open = null;
      next = op.a + 1;
      continue;
    }
    if (!open) {
      open = { start: next, deleted: 0, inserted: [] };
      out.push(open);
    }
    if (op.type === 'delete') {
      open.deleted++;
      next = op.a + 1;
    } else open.inserted.push(op.line);
  }
  return out;
}

const breakOf = (line: string): string => /\r?\n$/.exec(line)?.[0] ?? '';
const content = (line: string): string => line.slice(0, line.length - breakOf(line).length);

/**
 * A hunk as a Reviewdog suggestion: 1-based lines, UTF-8 byte columns, the end exclusive.
 * A stretch whose last new line ends as the last replaced one does is the replaced lines'
 * text up to that line's break (what a reviewer sees as whole lines replaced); otherwise
 * (lines only added or only deleted, a line break changed) it runs to the start of the next line.
 */
export function rdSuggestion(original: readonly string[], h: LineHunk): RdSuggestion {
  const last = original[h.start + h.deleted - 1];
  const lastNew = h.inserted.at(-1);
  if (h.deleted > 0 && last !== undefined && lastNew !== undefined && breakOf(lastNew) === breakOf(last)) {
    const text = h.inserted.join('');
    return {
      range: { start: { line: h.start + 1, column: 1 }, end: { line: h.start + h.deleted, column: Buffer.byteLength(content(last)) + 1 } },
      text: text.slice(0, text.length - breakOf(lastNew).length),
    };
  }
  return { range: { start: lineStart(original, h.start), end: lineStart(original, h.start + h.deleted) }, text: h.inserted.join('') };
}

/** Where 0-based line `k` starts; past the last line, the end of the text. */
function lineStart(lines: readonly string[], k: number): RdPosition {
  if (k < lines.length) return { line: k + 1, column: 1 };
  const last = lines.at(-1);
  if (last === undefined) return { line: 1, column: 1 };
  return breakOf(last) === '' ? { line: lines.length, column: Buffer.byteLength(last) + 1 } : { line: lines.length + 1, column: 1 };
}

/**
 * A hunk as whole lines, as a GitHub suggestion replaces them: 1-based first and last line
 * of the original, and the new lines without their breaks. Lines only added take the line
 * above them along (the line below, at the top), since a suggestion replaces at least one.
 */
export function wholeLines(original: readonly string[], h: LineHunk): { start: number; end: number; lines: string[] } {
  const inserted = h.inserted.map(content);
  if (h.deleted > 0) return { start: h.start + 1, end: h.start + h.deleted, lines: inserted };
  if (h.start > 0) return { start: h.start, end: h.start, lines: [content(original[h.start - 1]!), ...inserted] };
  const below = original[0];
  return below === undefined ? { start: 1, end: 1, lines: inserted } : { start: 1, end: 1, lines: [...inserted, content(below)] };
}
