import { describe, expect, it } from 'vitest';
import { diffLines, splitLines, unifiedDiff, wordChanges, wordDiffLines } from '../../src/text/line-diff.js';

/** Length of a longest common subsequence, the slow way, to check the diff is minimal. */
function lcs(a: string[], b: string[]): number {
  const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) t[i]![j] = a[i] === b[j] ? t[i + 1]![j + 1]! + 1 : Math.max(t[i + 1]![j]!, t[i]![j + 1]!);
  return t[0]![0]!;
}

describe('line diff', () => {
  it('rebuilds both sides and keeps a longest common subsequence (random inputs)', () => {
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let t = 0; t < 2000; t++) {
      const a = Array.from({ length: rnd(12) }, () => 'abcd'[rnd(4)]!);
      const b = Array.from({ length: rnd(12) }, () => 'abcd'[rnd(4)]!);
      const ops = diffLines(a, b);
      expect(ops.filter((o) => o.type !== 'insert').map((o) => o.line)).toEqual(a);
      expect(ops.filter((o) => o.type !== 'delete').map((o) => o.line)).toEqual(b);
      expect(ops.filter((o) => o.type === 'equal')).toHaveLength(lcs(a, b));
    }
  });

  it('diffs 300,000 lines whose first and last change, and whose every line changes (no spread of the edit script)', () => {
    const a = Array.from({ length: 300_000 }, (_, i) => `line ${i}`);
    const edges = [`first`, ...a.slice(1, -1), 'last'];
    const ops = diffLines(a, edges);
    expect(ops.filter((o) => o.type === 'equal')).toHaveLength(a.length - 2);
    expect(ops.filter((o) => o.type !== 'equal').map((o) => o.line)).toEqual(['line 0', 'first', 'line 299999', 'last']);
    const every = a.map((l) => `${l}!`);
    const all = diffLines(a, every);
    expect(all.filter((o) => o.type === 'delete')).toHaveLength(a.length);
    expect(all.filter((o) => o.type === 'insert').map((o) => o.line)).toEqual(every);
    expect(unifiedDiff(`${a.join('\n')}\n`, `${edges.join('\n')}\n`, { aName: 'a', bName: 'b' })).toContain('\n@@ -299997,4 +299997,4 @@\n');
  });

  it('prints diff -u hunks with three lines of context', () => {
    const a = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n';
    const b = 'a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\n';
    expect(unifiedDiff(a, b, { aName: 'a/x', bName: 'b/x' })).toBe(
      ['--- a/x', '+++ b/x', '@@ -1,5 +1,5 @@', ' a', '-b', '+B', ' c', ' d', ' e', '@@ -8,3 +8,4 @@', ' h', ' i', ' j', '+k', ''].join('\n'),
    );
    expect(unifiedDiff('', 'x\n', { aName: 'a', bName: 'b' })).toBe('--- a\n+++ b\n@@ -0,0 +1,1 @@\n+x\n');
    expect(unifiedDiff('same\n', 'same', { aName: 'a', bName: 'b' })).toBe('');
  });

  it('splits CRLF and LF alike and ignores the final newline', () => {
    expect(splitLines('a\r\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('')).toEqual([]);
  });
});

describe('line diff on large inputs', () => {
  it('handles a long document with scattered edits and a full rewrite', () => {
    const a = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
    const b = a.map((l, i) => (i % 50 === 0 ? `${l} edited` : l));
    const ops = diffLines(a, b);
    expect(ops.filter((o) => o.type === 'insert')).toHaveLength(400);
    expect(ops.filter((o) => o.type === 'equal')).toHaveLength(19_600);
    const rewrite = diffLines(
      a,
      a.map((l) => `${l}!`),
    );
    expect(rewrite.filter((o) => o.type === 'delete')).toHaveLength(20_000);
  });
});

describe('word diff', () => {
  const plain = (a: string, b: string): string => unifiedDiff(a, b, { aName: 'a/x', bName: 'b/x', words: true });

  it("marks one changed word of a paragraph in git's plain style", () => {
    expect(plain('one\nThe quick brown fox jumps.\nthree\n', 'one\nThe quick red fox jumps.\nthree\n')).toBe(
      '--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\none\nThe quick [-brown-]{+red+} fox jumps.\nthree\n',
    );
  });

  it('writes a removed word after the word before it, and an added one before the space that follows', () => {
    expect(wordDiffLines(['a x b'], ['a b'])).toEqual(['a[-x-] b']);
    expect(wordDiffLines(['a b'], ['a x b'])).toEqual(['a {+x+} b']);
    expect(wordDiffLines(['a b c d'], ['a B C d'])).toEqual(['a [-b c-]{+B C+} d']);
  });

  it('shows a removed line and an added line whole, marked', () => {
    expect(wordDiffLines(['seven'], [])).toEqual(['[-seven-]']);
    expect(wordDiffLines([], ['new line here'])).toEqual(['{+new line here+}']);
  });

  it('closes a mark at a line end and opens it again on the next line', () => {
    expect(wordDiffLines(['one two', 'three four'], ['one 2', '3 four'])).toEqual(['one [-two-]', '[-three-]{+2+}', '{+3+} four']);
  });

  it('shows a change of spacing alone as the new line, unmarked (the words are the same)', () => {
    expect(wordDiffLines(['a  b'], ['a b'])).toEqual(['a b']);
    expect(wordChanges('a  b', 'a b')).toEqual([]);
  });

  it('compares CJK text character by character', () => {
    expect(wordDiffLines(['这是一个测试。'], ['这是一次测试。'])).toEqual(['这是一[-个-]{+次+}测试。']);
  });

  it('paints each mark, markers included', () => {
    const text = unifiedDiff('a b\n', 'a c\n', { aName: 'a', bName: 'b', words: true, paint: { delete: (s) => `<${s}>`, insert: (s) => `(${s})` } });
    expect(text.split('\n')[3]).toBe('a <[-b-]>({+c+})');
  });

  it('keeps the words both sides share and changes only the rest (random texts)', () => {
    let seed = 11;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const text = (): string => Array.from({ length: rnd(10) }, () => ['ab', 'cd', 'ef', '这', ' ', '  ', '\t'][rnd(7)]).join(rnd(2) ? ' ' : '');
    const wordsOf = (s: string): string[] => s.split(/[ \t\n]+|(?=这)|(?<=这)/).filter(Boolean);
    for (let t = 0; t < 1000; t++) {
      const [a, b] = [text(), text()];
      const changes = wordChanges(a, b);
      const cut = (s: string, spans: [number, number][]): string => {
        let out = '';
        let at = 0;
        for (const [from, to] of spans) {
          out += `${s.slice(at, from)} `;
          at = to;
        }
        return out + s.slice(at);
      };
      // What is left of each side once its changed spans are cut out is the same words.
      expect(
        wordsOf(
          cut(
            a,
            changes.map((c) => c.removed),
          ),
        ),
      ).toEqual(
        wordsOf(
          cut(
            b,
            changes.map((c) => c.added),
          ),
        ),
      );
      // Each span starts and ends on a word (or is empty).
      for (const c of changes)
        for (const [s, [from, to]] of [
          [a, c.removed],
          [b, c.added],
        ] as const)
          if (to > from) expect(s.slice(from, to).trim()).toBe(s.slice(from, to));
    }
  });
});
