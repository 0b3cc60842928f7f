import { describe, expect, it } from 'vitest';
import { originalLines } from '../../src/defects/line-map.js';

describe('lines of a pass carried back to the original', () => {
  const original = ['a', 'b', 'c', 'd', 'e'].join('\n');

  it('maps shared lines to themselves and a line only added to the line above it', () => {
    const map = originalLines(original, ['a', 'b', '[CONTESTED] note', 'c', 'd', 'e'].join('\n'));
    expect([1, 2, 3, 4, 5, 6].map(map)).toEqual([1, 2, 2, 3, 4, 5]);
    expect(originalLines(original, ['[CLARIFY] top', 'a'].join('\n'))(1)).toBe(1);
  });

  it('maps a changed line to the line it replaced, and the note after it there too', () => {
    const map = originalLines(original, ['a', 'B changed', '[CONTESTED] on B', 'c', 'd', 'e'].join('\n'));
    expect([1, 2, 3, 4].map(map)).toEqual([1, 2, 2, 3]);
  });

  it('maps lines after a removed line to where they were', () => {
    const map = originalLines(original, ['a', 'c', 'd', '[CLARIFY] x', 'e'].join('\n'));
    expect([1, 2, 3, 4, 5].map(map)).toEqual([1, 3, 4, 4, 5]);
  });
});
