import { describe, expect, it } from 'vitest';
import { combineCostSources, dispatchCost, normalizeModel, PRICE_KEY, PRICE_TABLE, PRICES_AS_OF, priceFor } from '../src/prices.js';

describe('the built-in price table', () => {
  it('is dated and keys every entry <provider>/<model> with all four prices', () => {
    expect(PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const [key, price] of Object.entries(PRICE_TABLE)) {
      expect(key).toMatch(PRICE_KEY);
      expect(Object.keys(price).sort(), key).toEqual(['cache_read', 'cache_write', 'input', 'output']);
      // A cache read is never dearer than plain input.
      expect(price.cache_read!, key).toBeLessThanOrEqual(price.input);
    }
  });

  it('covers the common models of each provider', () => {
    const wanted = [
      'claude-opus-4-5',
      'claude-sonnet-4-5',
      'claude-haiku-4-5',
      'gpt-5',
      'gpt-5-mini',
      'gpt-4.1',
      'gpt-4o',
      'o3',
      'o4-mini',
      'gemini-2.5-pro',
      'gemini-2.5-flash',
    ];
    for (const model of wanted) expect(priceFor(model), model).not.toBeNull();
  });
});

describe('normalizeModel: the names replies give come down to the table keys', () => {
  const cases: [string, string][] = [
    ['claude-opus-4-8[1m]', 'claude-opus-4-8'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['anthropic/claude-sonnet-4.5', 'claude-sonnet-4-5'],
    ['claude-opus-4-0', 'claude-opus-4'],
    ['claude-opus-4-20250514', 'claude-opus-4'],
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['openai/gpt-5-mini', 'gpt-5-mini'],
    ['models/gemini-2.5-pro', 'gemini-2.5-pro'],
    ['GPT-4.1', 'gpt-4.1'],
    ['llama3.1:8b', 'llama3.1:8b'],
  ];
  it.each(cases)('%s -> %s', (given, want) => expect(normalizeModel(given)).toBe(want));

  it('does not take a larger model for its family (gpt-5-pro is not gpt-5)', () => {
    expect(priceFor('gpt-5-pro')).toBeNull();
  });
});

describe('priceFor and dispatchCost', () => {
  it('config prices come first, then the table; a model of neither is null', () => {
    expect(priceFor('gpt-5')?.key).toBe('openai/gpt-5');
    expect(priceFor('gpt-5', { 'mine/gpt-5': { input: 9, output: 9 } })).toEqual({ key: 'mine/gpt-5', price: { input: 9, output: 9 } });
    expect(priceFor('llama3.1:8b', { 'local/llama3.1:8b': { input: 0, output: 0 } })?.key).toBe('local/llama3.1:8b');
    expect(priceFor('llama3.1:8b')).toBeNull();
    expect(priceFor(null)).toBeNull();
  });

  it("the adapter's own cost wins; then the table; unknown without a price or without token counts", () => {
    const usage = { input_tokens: 2_000_000, output_tokens: 100_000, cost_usd: null };
    expect(dispatchCost({ ...usage, cost_usd: 0.7 }, 'gpt-5')).toEqual({ cost_usd: 0.7, cost_source: 'provider' });
    expect(dispatchCost(usage, 'gpt-5')).toEqual({ cost_usd: 2.5 + 1, cost_source: 'table' });
    // A cache price left out in config is the input price.
    expect(dispatchCost({ ...usage, cache_read_tokens: 1_000_000 }, 'x', { 'a/x': { input: 1, output: 0 } })).toEqual({ cost_usd: 2, cost_source: 'table' });
    expect(dispatchCost(usage, 'llama3.1:8b')).toEqual({ cost_usd: null, cost_source: 'unknown' });
    expect(dispatchCost({ ...usage, output_tokens: null }, 'gpt-5')).toEqual({ cost_usd: null, cost_source: 'unknown' });
  });

  it('a sum takes the least certain source of its parts', () => {
    expect(combineCostSources('provider', 'table')).toBe('table');
    expect(combineCostSources('table', 'unknown')).toBe('unknown');
    expect(combineCostSources('table', 'subscription')).toBe('subscription');
    expect(combineCostSources('provider', 'subscription')).toBe('subscription');
    expect(combineCostSources('subscription', 'unknown')).toBe('unknown');
    expect(combineCostSources('cache', 'subscription')).toBe('subscription');
    expect(combineCostSources('unknown', 'provider')).toBe('unknown');
    expect(combineCostSources(null, 'provider')).toBe('provider');
    expect(combineCostSources(null, undefined)).toBeNull();
  });
});
