import { describe, expect, it } from 'vitest';
import { DEFAULT_OUTPUT_TOKENS, assertFitsBudget, outputBudget } from '../../src/preflight/preflight.js';
import { estimateTokens } from '../../src/text/token-estimate.js';
import { usageErrorOf } from '../support/errors.js';
import { testAgent } from '../support/test-agent.js';

describe('estimateTokens, outputBudget, assertFitsBudget', () => {
  it('estimates about four characters a token, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('x'.repeat(4000))).toBe(1000);
  });

  it('the budget: max_output_tokens, else the adapter default (claude 32000, anthropic 16000), else none', () => {
    expect(outputBudget(testAgent({ adapter: 'claude' }))).toBe(32_000);
    expect(outputBudget(testAgent({ adapter: 'anthropic' }))).toBe(16_000);
    for (const a of ['codex', 'openai', 'mock', 'cmd', 'something-else']) expect(outputBudget(testAgent({ adapter: a }))).toBeNull();
    expect(outputBudget(testAgent({ adapter: 'claude', options: { max_output_tokens: 100 } }))).toBe(100);
    expect(outputBudget(testAgent({ adapter: 'openai', options: { max_output_tokens: 8192 } }))).toBe(8192);
    expect(DEFAULT_OUTPUT_TOKENS.claude).toBe(32_000);
  });

  it('no budget: any size passes', () => {
    expect(() => assertFitsBudget('x'.repeat(10_000_000), 'reviewer', testAgent({ adapter: 'openai' }))).not.toThrow();
  });

  it('needs the estimate plus 20%: exactly at the budget passes, one token over is refused', () => {
    const a = testAgent({ adapter: 'openai', options: { max_output_tokens: 100 }, spec: 'openai:small' });
    // 83 tokens * 1.2 = 99.6 -> 100: fits.
    expect(() => assertFitsBudget('x'.repeat(332), 'reviewer', a)).not.toThrow();
    // 84 tokens * 1.2 = 100.8 -> 101: does not fit.
    const err = usageErrorOf(() => assertFitsBudget('x'.repeat(336), 'composer', a));
    expect(err.message).toBe("the document (about 84 tokens) will not fit in the composer openai:small's output budget of 100 tokens");
    expect(err.code).toBe('input');
    expect(err.line).toContain('max_output_tokens');
  });

  it('the claude default refuses a document of about 27 000 tokens', () => {
    expect(() => assertFitsBudget('x'.repeat(4 * 26_000), 'reviewer', testAgent({ adapter: 'claude' }))).not.toThrow();
    usageErrorOf(() => assertFitsBudget('x'.repeat(4 * 27_000), 'reviewer', testAgent({ adapter: 'claude' })));
  });
});
