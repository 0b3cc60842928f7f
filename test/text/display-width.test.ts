import { describe, expect, it } from 'vitest';
import { displayWidth, fitColumns, padColumns } from '../../src/text/display-width.js';

describe('displayWidth', () => {
  it.each([
    ['claude', 6],
    ['été', 3],
    ['e\u0301te\u0301', 3],
    ['审稿人', 6],
    ['レビュー', 8],
    ['한국어', 6],
    ['ｆｕｌｌ', 8],
    ['🤖', 2],
    ['👩‍💻', 2],
    ['👍🏽', 2],
    ['🇫🇷', 2],
    ['❤️', 2],
    ['©', 1],
    ['a\u200bb', 2],
    ['\u001b[1mbold\u001b[22m', 4],
  ])('%s takes %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe('fitColumns', () => {
  it('cuts to a width, ending in an ellipsis only when it cut', () => {
    expect(fitColumns('claude', 6)).toBe('claude');
    expect(fitColumns('claude', 5)).toBe('clau\u2026');
    expect(fitColumns('claude', 1)).toBe('\u2026');
    expect(fitColumns('claude', 0)).toBe('');
    expect(fitColumns('\u00e9t\u00e9-agent', 4)).toBe('\u00e9t\u00e9\u2026');
  });

  it('counts a wide character as two columns and never splits one, nor an emoji sequence', () => {
    expect(fitColumns('审稿人代理', 6)).toBe('审稿\u2026');
    expect(displayWidth(fitColumns('审稿人代理', 6))).toBe(5);
    expect(fitColumns('ab👩‍💻cd', 4)).toBe('ab\u2026');
    expect(fitColumns('ab👩‍💻cd', 5)).toBe('ab👩‍💻\u2026');
  });

  it('keeps colour escapes, counts them as nothing, and resets the colour after a cut', () => {
    const red = '\u001b[31m审稿人代理\u001b[39m';
    expect(fitColumns(red, 10)).toBe(red);
    expect(fitColumns(red, 5)).toBe('\u001b[31m审稿\u2026\u001b[0m');
  });
});

describe('padColumns', () => {
  it('pads to columns at the end or the start', () => {
    expect(padColumns('审稿', 6)).toBe('审稿  ');
    expect(padColumns('ab', 4, true)).toBe('  ab');
    expect(padColumns('审稿人代理', 4)).toBe('审稿人代理');
  });
});
