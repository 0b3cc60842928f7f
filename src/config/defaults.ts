/** Defaults the config schema declares and the engine falls back on: declared once, here. */
import { BounceError } from '../errors.js';

/** A marker name (config `markers`, `scan --marker`): short, and nothing a terminal or a prompt would read as markup. */
export const MARKER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
export const MARKER_NAME_RULE = 'a marker is a word such as RISK: a letter, then letters, digits, _ or -, at most 32 characters';

/** `--marker NAME` that is no marker name (`--marker n.md`: a path taken for the option's value), in words; null for a good name. */
export function markerFlagError(name: string): BounceError | null {
  if (MARKER_NAME.test(name)) return null;
  const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}...` : name);
  // A file name right after --marker was taken for its value.
  const file = /^[\w./-]+$/.test(name) ? name : shown;
  const path = /[./\\]/.test(name) ? `; to scan ${file}, give --marker a name before it (--marker RISK ${file})` : '';
  return new BounceError(`--marker ${shown} is not a marker name`, { hint: `${MARKER_NAME_RULE}${path}` });
}

/** A reply under `summaryRatio` of the input's words, for inputs over `summaryMinWords` words, is a summary. */
export const REPLY_DEFAULTS: { summaryRatio: number; summaryMinWords: number } = {
  summaryRatio: 0.3,
  summaryMinWords: 50,
};

/** Passes a refine runs when --passes is not given: one reviewer pass and one composer pass. */
export const DEFAULT_PASSES = 2;

/** The most passes a run may have (config `max_passes`) when the config does not say: no `--passes N` goes above it, and no step bounce prints offers more. */
export const DEFAULT_MAX_PASSES = 10;

/** The largest `max_passes` a config may set. */
export const MAX_PASSES_CEILING = 100;

/** An agent call's deadline when neither --timeout nor the agent's `timeout_s` sets one. */
export const DEFAULT_TIMEOUT_S = 600;

/** The deadline of a pass a person plays (the human agent) when neither --timeout nor its `timeout_s` sets one: a day. */
export const HUMAN_TIMEOUT_S = 86_400;

/** The deadlines --timeout and `timeout_s` may set, in seconds (the largest a Node timer takes). */
export const TIMEOUT_RANGE_S = { min: 1, max: 2_147_483 } as const;

/** Repair requests a pass may send when --max-repairs is not given. */
export const DEFAULT_MAX_REPAIRS = 1;

/**
 * Default of config `min_precision`: the dispatch protocol's line, below which an agent's
 * high-confidence precision (`bounce stats`, docs/grading.md) is flagged by `bounce check`
 * and warned of by `bounce refine`.
 */
export const MIN_PRECISION = 0.85;

/** A check command's time limit (config `checks:` entry's `timeout_s`) when it sets none, in seconds. */
export const DEFAULT_CHECK_TIMEOUT_S = 60;

/** Where `bounce serve --a2a` listens when --host and --port are not given: loopback only, on the A2A samples' port. */
export const SERVE_DEFAULTS = { host: '127.0.0.1', port: 41241 } as const;
