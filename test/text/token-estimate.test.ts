import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/text/token-estimate.js';

describe('estimateTokens', () => {
  it('counts at least one token a non-ASCII character: CJK text is not a quarter of its tokens', () => {
    const cjk = '这是一个关于重试策略的段落。'.repeat(10);
    expect(estimateTokens(cjk)).toBe(cjk.length);
    expect(estimateTokens('ascii text of forty characters, more or.')).toBe(10);
    // An emoji is one character of two UTF-16 units: one token, not two.
    expect(estimateTokens('😀😀😀😀')).toBe(4);
    // Mixed text: the larger of the two counts.
    expect(estimateTokens(`${'a'.repeat(400)}日本`)).toBe(Math.ceil(402 / 4));
  });

  it('counts the non-ASCII characters wherever they stand: runs of them between ASCII, pairs and lone halves', () => {
    // Mostly CJK with ASCII between: the non-ASCII count decides.
    const mixed = `${'日本語 '.repeat(50)}ok 😀 ${'한국어'.repeat(30)}`;
    expect(estimateTokens(mixed)).toBe(50 * 3 + 1 + 30 * 3);
    // A pair of UTF-16 units counts once, in a run of pairs too; a second half alone does not count.
    expect(estimateTokens('😀😀😀ab😀', 1000)).toBe(4);
    expect(estimateTokens('\udc00\udc00\u00e9', 1000)).toBe(1);
    expect(estimateTokens(`${'x'.repeat(8)}\u00e9\u00e9`, 1)).toBe(10);
  });

  it("takes a model's own characters a token when it is given one", () => {
    expect(estimateTokens('a'.repeat(300), 3)).toBe(100);
    expect(estimateTokens('日本語のテキスト', 8)).toBe(8);
  });
});
