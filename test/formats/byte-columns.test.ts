import { describe, expect, it } from 'vitest';
import { byteColumns } from '../../src/formats/byte-columns.js';
import { seeded } from '../support/random.js';

describe('byte columns', () => {
  it('count UTF-8 bytes: the proto example a𐐀b has b at 6', () => {
    expect(byteColumns('a𐐀b', [0, 1, 3])).toEqual([
      { column: 1, endColumn: 7 },
      { column: 2, endColumn: 7 },
      { column: 6, endColumn: 7 },
    ]);
  });

  it('start again on each line, whatever its break (LF, CRLF, CR)', () => {
    const text = 'é\r\n日x\rz🎉y\nlast';
    const at = (s: string): number => text.indexOf(s);
    expect(byteColumns(text, [at('x'), at('y'), at('l')])).toEqual([
      { column: 4, endColumn: 5 },
      { column: 6, endColumn: 7 },
      { column: 1, endColumn: 5 },
    ]);
  });

  it('agree with a direct count on random texts and offsets', () => {
    const random = seeded(21);
    const pieces = ['a', ' ', 'é', '日本', '🎉', '\n', '\r\n', '\r', '[X]'];
    for (let round = 0; round < 200; round++) {
      let text = '';
      for (let i = 0, n = 1 + Math.floor(random() * 40); i < n; i++) text += pieces[Math.floor(random() * pieces.length)];
      // Offsets of code points that are no line break, ascending, as the scanner gives notes.
      const offsets = [...text.matchAll(/[^\r\n]/gu)].map((m) => m.index).filter(() => random() < 0.5);
      const expected = offsets.map((o) => {
        const start = Math.max(text.lastIndexOf('\n', o - 1), text.lastIndexOf('\r', o - 1)) + 1;
        const end = text.slice(o).search(/[\r\n]/);
        const line = text.slice(start, end < 0 ? text.length : o + end);
        return { column: Buffer.byteLength(text.slice(start, o)) + 1, endColumn: Buffer.byteLength(line) + 1 };
      });
      expect(byteColumns(text, offsets), JSON.stringify(text)).toEqual(expected);
    }
  });
});
