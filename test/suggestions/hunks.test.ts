import { describe, expect, it } from 'vitest';
import { lineHunks, linesWithBreaks, rdSuggestion, wholeLines } from '../../src/suggestions/hunks.js';
import { applyRdSuggestions } from '../support/rdformat.js';
import { seeded } from '../support/random.js';

const suggest = (a: string, b: string) => {
  const lines = linesWithBreaks(a);
  return lineHunks(a, b).map((h) => rdSuggestion(lines, h));
};

/** A random text of `random`'s lines: prose with CJK and emoji, blank lines, CRLF, sometimes no final break. */
function text(random: () => number, pool: readonly string[]): string {
  let out = '';
  for (let i = 0, n = Math.floor(random() * 12); i < n; i++) out += pool[Math.floor(random() * pool.length)]! + (random() < 0.15 ? '\r\n' : '\n');
  return random() < 0.2 ? out.replace(/\r?\n$/, '') : out;
}

/** Another version of a text: lines replaced, deleted, inserted, a line break changed or dropped. */
function edit(random: () => number, before: string, pool: readonly string[]): string {
  const lines = linesWithBreaks(before);
  const out: string[] = [];
  for (const line of lines) {
    const r = random();
    if (r < 0.1) continue;
    if (r < 0.2) out.push(`${pool[Math.floor(random() * pool.length)]}\n`);
    else if (r < 0.25) out.push(line.replace(/\r?\n$/, (m) => (m === '\n' ? '\r\n' : '\n')));
    else out.push(line);
    if (random() < 0.1) out.push(`${pool[Math.floor(random() * pool.length)]}\n`);
  }
  if (random() < 0.1) out.unshift('新しい行 🎉\n');
  const joined = out.join('');
  return random() < 0.15 ? joined.replace(/\r?\n$/, '') : joined;
}

const POOL = ['# 見出し', 'Plain prose.', '', '日本語のテキスト 🎉', '- a list item', '> quoted', 'Same line', 'Same line', '```', 'é'];

describe('suggestions of a net change', () => {
  it('one a changed stretch, whole lines where they can be, applied they give the new text byte for byte', () => {
    const before = 'one\ntwo\nthree\n';
    expect(suggest(before, 'one\n2\nthree\n')).toEqual([{ range: { start: { line: 2, column: 1 }, end: { line: 2, column: 4 } }, text: '2' }]);
    // Only added: an insertion at the start of the line below.
    expect(suggest(before, 'one\nnew\ntwo\nthree\n')).toEqual([{ range: { start: { line: 2, column: 1 }, end: { line: 2, column: 1 } }, text: 'new\n' }]);
    // Only deleted, the last line: up to the end of the text.
    expect(suggest(before, 'one\ntwo\n')).toEqual([{ range: { start: { line: 3, column: 1 }, end: { line: 4, column: 1 } }, text: '' }]);
    // The final line break dropped.
    expect(applyRdSuggestions(before, suggest(before, 'one\ntwo\nthree'))).toBe('one\ntwo\nthree');
    // Columns count UTF-8 bytes.
    expect(suggest('日本\n', '日本語\n')[0]!.range.end).toEqual({ line: 1, column: 7 });
  });

  it('property: over many random texts and edits, applying every suggestion gives the new text', () => {
    const random = seeded(2101);
    for (let round = 0; round < 2000; round++) {
      const before = text(random, POOL);
      const after = random() < 0.1 ? text(random, POOL) : edit(random, before, POOL);
      const got = applyRdSuggestions(before, suggest(before, after));
      expect(got, `round ${round}: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`).toBe(after);
    }
  });

  it('as whole lines (GitHub): an insertion takes the line above along, or the line below at the top', () => {
    const before = linesWithBreaks('one\ntwo\n');
    const [h] = lineHunks('one\ntwo\n', 'one\nnew\ntwo\n');
    expect(wholeLines(before, h!)).toEqual({ start: 1, end: 1, lines: ['one', 'new'] });
    const [top] = lineHunks('one\ntwo\n', 'new\none\ntwo\n');
    expect(wholeLines(before, top!)).toEqual({ start: 1, end: 1, lines: ['new', 'one'] });
    const [del] = lineHunks('one\ntwo\n', 'one\n');
    expect(wholeLines(before, del!)).toEqual({ start: 2, end: 2, lines: [] });
  });
});
