import { describe, expect, it } from 'vitest';
import { expressionEnd, jsxTagEnd } from '../../src/protocol/mdx-syntax.js';

describe('jsxTagEnd', () => {
  it('ends after the tag, stepping over quoted and braced attributes that hold a >', () => {
    const s = '<Note title="a > b" when={x > 1 ? "}" : 2}>text';
    expect(s.slice(0, jsxTagEnd(s, 0))).toBe('<Note title="a > b" when={x > 1 ? "}" : 2}>');
    expect(jsxTagEnd('</Note> rest', 0)).toBe(7);
    expect(jsxTagEnd('<>x', 0)).toBe(2);
  });

  it('-2 where `<` starts no tag, -1 for a tag that never closes', () => {
    expect(jsxTagEnd('a < b', 2)).toBe(-2);
    expect(jsxTagEnd('<1>', 0)).toBe(-2);
    expect(jsxTagEnd('<a <b>', 0)).toBe(-2);
    expect(jsxTagEnd('<Note title="open', 0)).toBe(-1);
    expect(jsxTagEnd('<Note', 0)).toBe(-1);
  });
});

describe('expressionEnd', () => {
  it('ends after the matching brace, over nested braces, strings with escapes and template strings', () => {
    const s = "{ a({ b: \"}\" }, '\\'}', `}`) } tail";
    expect(s.slice(expressionEnd(s, 0, []))).toBe(' tail');
  });

  it('hands back the span of each comment, and -1 for an expression or comment left open', () => {
    const comments: number[] = [];
    const s = '{/* [CLARIFY] hidden */ x // line\n}';
    expect(expressionEnd(s, 0, comments)).toBe(s.length);
    expect(comments).toEqual([1, 23, 26, 33]);
    expect(s.slice(comments[0], comments[1])).toBe('/* [CLARIFY] hidden */');
    expect(expressionEnd('{ a', 0, [])).toBe(-1);
    expect(expressionEnd('{ /* open', 0, [])).toBe(-1);
    expect(expressionEnd('{ "open }', 0, [])).toBe(-1);
  });
});
