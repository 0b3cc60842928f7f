/** The lines a note spans, by the scanner's rule, for the audit trail and the mock agent. */
import type { Lines } from '../text/lines.js';

/** What the audit trail reads of a scanner note. */
export interface NoteLike {
  kind: string;
  line: number;
  text: string;
  canonical: boolean;
}

const STARTS_NOTE = /^\s*(?:(?:[>*+-]|\d+[.)])\s*)*[*_]*\[[A-Za-z][\w-]*\]/;

/**
 * Lines a note spans: from its marker to the end of its paragraph or the line before the
 * next note (the scanner's rule), read from the document it is in.
 */
export function noteRange(note: NoteLike, lines: Lines | null): [number, number] {
  let end = note.line;
  if (lines)
    for (let next = lines.at(end); end < lines.length && next !== undefined && next.trim() !== '' && !STARTS_NOTE.test(next); next = lines.at(end)) end++;
  return [note.line, end];
}
