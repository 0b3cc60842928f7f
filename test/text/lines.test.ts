import { describe, expect, it } from 'vitest';
import { countLines, lineView } from '../../src/text/lines.js';

describe('countLines', () => {
  it('a final newline ends the last line rather than starting another', () => {
    expect(['', 'a', 'a\n', 'a\nb', 'a\nb\n', '\n', '\n\n'].map(countLines)).toEqual([0, 1, 1, 2, 2, 1, 2]);
  });

  it('counts CRLF lines as lines, a lone CR as no break', () => {
    expect(countLines('a\r\nb\r\n')).toBe(2);
    expect(countLines('a\rb')).toBe(1);
  });
});

describe('lineView', () => {
  it('gives the lines split on LF, dropping the CR before it', () => {
    const view = lineView('one\r\ntwo\nthree');
    expect(view.length).toBe(3);
    expect([0, 1, 2].map((i) => view.at(i))).toEqual(['one', 'two', 'three']);
  });

  it('a final newline leaves an empty last line (as split does); past the end is undefined', () => {
    const view = lineView('a\nb\n');
    expect(Array.from({ length: view.length }, (_, i) => view.at(i))).toEqual('a\nb\n'.split('\n'));
    expect(view.at(3)).toBeUndefined();
    expect(view.at(-1)).toBeUndefined();
    expect(lineView('').at(0)).toBe('');
  });
});
