import { describe, expect, it } from 'vitest';
import { noteRange } from '../../src/protocol/note-range.js';
import { scanNotes } from '../../src/protocol/scanner.js';
import { lineView } from '../../src/text/lines.js';

/** The range of each note the scanner finds in `text`. */
function ranges(text: string): [number, number][] {
  return scanNotes(text, { syntax: 'markdown' }).map((n) => noteRange(n, lineView(text)));
}

describe('noteRange', () => {
  it('runs from the marker to the end of its paragraph', () => {
    expect(ranges('# A\n\n[CLARIFY] Who runs it:\n(A) on-call,\n(B) the owner?\n\nNext paragraph.\n')).toEqual([[3, 5]]);
  });

  it('stops at the line before the next note, in a list or a quote too', () => {
    expect(ranges('[CONTESTED] one\nmore of one\n- [CLARIFY] two\n> [CONTESTED] three\n')).toEqual([
      [1, 2],
      [3, 3],
      [4, 4],
    ]);
  });

  it('a note on the last line, with or without a final newline, and with no lines to read', () => {
    expect(ranges('text\n\n[CLARIFY] last')).toEqual([[3, 3]]);
    expect(noteRange({ kind: 'CLARIFY', line: 4, text: '[CLARIFY] x', canonical: true }, null)).toEqual([4, 4]);
  });
});
