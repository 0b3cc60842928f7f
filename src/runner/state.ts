import type { Io } from '../io.js';
import type { RunManifest, UsageTotals } from '../store/manifest.js';
import type { RunFolder } from '../store/run-folder.js';
import type { RunHooks } from './hooks.js';
import type { RunPlan } from './plan.js';
import type { Progress } from './progress.js';

/** The mutable state of one run, shared by the loop, the pass and the dispatcher. */
export interface RunState {
  plan: RunPlan;
  folder: RunFolder;
  manifest: RunManifest;
  hooks: RunHooks;
  io: Io;
  progress: Progress;
  /** The document the next pass revises, and the run-folder file that holds it. */
  current: { text: string; file: string };
  /** Base delay of transient retries (BOUNCE_RETRY_BASE_MS, default 1000). */
  retryBaseMs: number;
}

export const BREAKER_THRESHOLD = 3;

export function addUsage(into: UsageTotals, add: { input_tokens: number | null; output_tokens: number | null; cost_usd: number | null }): void {
  if (add.input_tokens !== null) into.input_tokens = (into.input_tokens ?? 0) + add.input_tokens;
  if (add.output_tokens !== null) into.output_tokens = (into.output_tokens ?? 0) + add.output_tokens;
  if (add.cost_usd !== null) into.cost_usd = (into.cost_usd ?? 0) + add.cost_usd;
}

export function emptyTotals(): UsageTotals {
  return { input_tokens: null, output_tokens: null, cost_usd: null };
}
