/** Defaults the config schema declares and the engine falls back on: declared once, here. */

/** A reply under `summaryRatio` of the input's words, for inputs over `summaryMinWords` words, is a summary. */
export const REPLY_DEFAULTS: { summaryRatio: number; summaryMinWords: number } = {
  summaryRatio: 0.3,
  summaryMinWords: 50,
};

/**
 * Default of config `min_precision`: the dispatch protocol's line, below which an agent's
 * high-confidence precision (`bounce stats`, docs/grading.md) is flagged by `bounce check`
 * and warned of by `bounce refine`.
 */
export const MIN_PRECISION = 0.85;
