import { z } from 'zod';
import type { CostSource } from './vocabulary.js';

/**
 * List prices in USD per million tokens, for pricing the tokens an adapter reports when it
 * reports no cost itself (4 of the 5 built-in adapters). The day they were read from the
 * providers' published price lists; config `prices:` adds models or overrides these.
 */
export const PRICES_AS_OF = '2026-12-01';

/** One model's prices per million tokens; a cache price left out is the input price. */
export const PriceSchema = z
  .object({
    input: z.number().nonnegative(),
    output: z.number().nonnegative(),
    /** Input tokens read from the provider's prompt cache. */
    cache_read: z.number().nonnegative().optional(),
    /** Input tokens written to it (Anthropic's 5-minute write; OpenAI and Gemini bill writes as input). */
    cache_write: z.number().nonnegative().optional(),
  })
  .strict();
export type Price = z.infer<typeof PriceSchema>;

/** A price's key, `<provider>/<model>` (`openai/gpt-5`); the model part is matched against the model a reply names. */
export const PRICE_KEY = /^[A-Za-z0-9][\w.-]*\/\S+$/;
export const PRICE_KEY_RULE = 'a price is keyed <provider>/<model>, e.g. openai/gpt-5 or local/llama3.1:8b';

const p = (input: number, output: number, cache_read: number, cache_write = input): Price => ({ input, output, cache_read, cache_write });

/**
 * The built-in table, as of PRICES_AS_OF: standard (not batch) rates, and for Gemini 2.5 Pro
 * the rate of prompts up to 200k tokens. Anthropic's cache write is the 5-minute one.
 */
export const PRICE_TABLE: Readonly<Record<string, Price>> = {
  'anthropic/claude-opus-4-8': p(5, 25, 0.5, 6.25),
  'anthropic/claude-opus-4-7': p(5, 25, 0.5, 6.25),
  'anthropic/claude-opus-4-6': p(5, 25, 0.5, 6.25),
  'anthropic/claude-opus-4-5': p(5, 25, 0.5, 6.25),
  'anthropic/claude-opus-4-1': p(15, 75, 1.5, 18.75),
  'anthropic/claude-opus-4': p(15, 75, 1.5, 18.75),
  'anthropic/claude-sonnet-4-6': p(3, 15, 0.3, 3.75),
  'anthropic/claude-sonnet-4-5': p(3, 15, 0.3, 3.75),
  'anthropic/claude-sonnet-4': p(3, 15, 0.3, 3.75),
  'anthropic/claude-haiku-4-5': p(1, 5, 0.1, 1.25),
  'openai/gpt-5.4': p(2.5, 15, 0.25),
  'openai/gpt-5.1': p(1.25, 10, 0.125),
  'openai/gpt-5.1-codex': p(1.25, 10, 0.125),
  'openai/gpt-5': p(1.25, 10, 0.125),
  'openai/gpt-5-codex': p(1.25, 10, 0.125),
  'openai/gpt-5-mini': p(0.25, 2, 0.025),
  'openai/gpt-5-nano': p(0.05, 0.4, 0.005),
  'openai/gpt-4.1': p(2, 8, 0.5),
  'openai/gpt-4.1-mini': p(0.4, 1.6, 0.1),
  'openai/gpt-4.1-nano': p(0.1, 0.4, 0.025),
  'openai/gpt-4o': p(2.5, 10, 1.25),
  'openai/gpt-4o-mini': p(0.15, 0.6, 0.075),
  'openai/o3': p(2, 8, 0.5),
  'openai/o4-mini': p(1.1, 4.4, 0.275),
  'google/gemini-2.5-pro': p(1.25, 10, 0.125),
  'google/gemini-2.5-flash': p(0.3, 2.5, 0.03),
  'google/gemini-2.5-flash-lite': p(0.1, 0.4, 0.01),
};

/** Configured prices (config `prices:`), by `<provider>/<model>`. */
export type PriceOverrides = Readonly<Record<string, Price>>;

/**
 * A model name as the table keys it: `claude-opus-4-8[1m]`, `claude-sonnet-4-5-20250929`,
 * `anthropic/claude-sonnet-4.5` (OpenRouter), `models/gemini-2.5-pro` and
 * `gpt-4o-2024-08-06` all come down to their family's name.
 */
export function normalizeModel(model: string): string {
  let m = model.trim().toLowerCase();
  m = m.replace(/^models\//, '').replace(/^(anthropic|openai|google)\//, '');
  m = m.replace(/\[[^\]]*\]$/, '');
  m = m.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '').replace(/-latest$/, '');
  if (m.startsWith('claude-')) m = m.replace(/(\d)\.(\d)/g, '$1-$2').replace(/^(claude-(?:opus|sonnet)-4)-0$/, '$1');
  return m;
}

const modelOfKey = (key: string): string => normalizeModel(key.slice(key.indexOf('/') + 1));

/** The price of a model and the key it was found under: config `prices:` first, then the built-in table; null when neither has it. */
export function priceFor(model: string | null | undefined, overrides: PriceOverrides = {}): { key: string; price: Price } | null {
  if (!model) return null;
  const wanted = normalizeModel(model);
  for (const table of [overrides, PRICE_TABLE]) {
    for (const [key, price] of Object.entries(table)) if (modelOfKey(key) === wanted) return { key, price };
  }
  return null;
}

/** What a dispatch's cost is computed from: its reported tokens (cache tokens are part of input_tokens) and the adapter's own cost. */
export interface PricedUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens?: number | null;
  cache_write_tokens?: number | null;
  cost_usd: number | null;
}

/** USD of some tokens at a price; cache reads and writes at their own rates, the rest of the input at the input rate. */
export function tokensCost(price: Price, t: { input: number; output: number; cacheRead?: number; cacheWrite?: number }): number {
  const read = t.cacheRead ?? 0;
  const write = t.cacheWrite ?? 0;
  const plain = Math.max(0, t.input - read - write);
  const usd = plain * price.input + read * (price.cache_read ?? price.input) + write * (price.cache_write ?? price.input) + t.output * price.output;
  return usd / 1_000_000;
}

/**
 * A dispatch's cost: the adapter's own figure (`provider`), else its tokens priced for the
 * model the reply names (`table`), else unknown.
 */
export function dispatchCost(usage: PricedUsage, model: string | null, overrides?: PriceOverrides): { cost_usd: number | null; cost_source: CostSource } {
  if (usage.cost_usd !== null) return { cost_usd: usage.cost_usd, cost_source: 'provider' };
  const found = priceFor(model, overrides);
  if (!found || usage.input_tokens === null || usage.output_tokens === null) return { cost_usd: null, cost_source: 'unknown' };
  const cost = tokensCost(found.price, {
    input: usage.input_tokens,
    output: usage.output_tokens,
    cacheRead: usage.cache_read_tokens ?? 0,
    cacheWrite: usage.cache_write_tokens ?? 0,
  });
  return { cost_usd: cost, cost_source: 'table' };
}

/** A cache hit's or a replayed reply's 0 is certain and adds nothing: a sum with a priced part takes that part's source. */
// A subscription's list price is further from what is billed than a table's price of billed tokens: a sum with one is list price in part.
const CERTAINTY: Readonly<Record<CostSource, number>> = { replay: -1, cache: -1, provider: 0, table: 1, subscription: 1.5, unknown: 2 };

/** The source of a sum of costs: the least certain of its parts (`unknown` over `subscription` over `table` over `provider` over `cache` and `replay`); null for no parts. */
export function combineCostSources(a: CostSource | null | undefined, b: CostSource | null | undefined): CostSource | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return CERTAINTY[a] >= CERTAINTY[b] ? a : b;
}
