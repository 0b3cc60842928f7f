import { describe, expect, it } from 'vitest';
import { countWords, moreWordsThan } from '../../src/text/words.js';

describe('countWords', () => {
  it('counts whitespace-separated tokens, as split(/\\s+/) would', () => {
    for (const text of ['', '   ', 'one', ' one  two\tthree\n', '# Title\n\n- a, b\n', 'a\u00a0b\u2003c\u3000d\ufeffe\u2028f'])
      expect(countWords(text), JSON.stringify(text)).toBe(text.split(/\s+/).filter(Boolean).length);
  });

  it('agrees with \\s on every UTF-16 code unit as the separator', () => {
    const text = Array.from({ length: 0x10000 }, (_, c) => `a${String.fromCharCode(c)}`).join('');
    expect(countWords(text)).toBe(text.split(/\s+/).filter(Boolean).length);
  });

  it('moreWordsThan says whether a text holds more than n words', () => {
    expect([0, 1, 2, 3].map((n) => moreWordsThan('one two three', n))).toEqual([true, true, true, false]);
    expect(moreWordsThan('', 0)).toBe(false);
  });

  it('punctuation and non-Latin text are words when nothing separates them', () => {
    expect(countWords('well-known, e.g.')).toBe(2);
    expect(countWords('日本語 テキスト')).toBe(2);
    expect(countWords('zero\u200bwidth')).toBe(1);
  });
});
