/** Defaults the config schema declares and the engine falls back on: declared once, here. */

/** A reply under `summaryRatio` of the input's words, for inputs over `summaryMinWords` words, is a summary. */
export const REPLY_DEFAULTS: { summaryRatio: number; summaryMinWords: number } = {
  summaryRatio: 0.3,
  summaryMinWords: 50,
};

/** Passes a refine runs when --passes is not given: one reviewer pass and one composer pass. */
export const DEFAULT_PASSES = 2;
