import { z } from 'zod';
import { AgentOptionsSchema } from '../contract/contract.js';
import { PRICE_KEY, PRICE_KEY_RULE, PriceSchema } from '../prices.js';
import {
  DEFAULT_CHECK_TIMEOUT_S,
  DEFAULT_MAX_PASSES,
  MARKER_NAME,
  MARKER_NAME_RULE,
  MAX_PASSES_CEILING,
  MIN_PRECISION,
  REPLY_DEFAULTS,
  TIMEOUT_RANGE_S,
} from './defaults.js';
import { LintModeSchema } from '../vocabulary.js';
import { EditFormatSettingSchema } from '../vocabulary.js';
import { DismissalsSchema } from '../vocabulary.js';
import { GateModeSchema } from '../vocabulary.js';

/**
 * The range of a call deadline in seconds (`timeout_s`, `--timeout`): a timer holds at most
 * 2^31-1 ms, and Node fires a longer one at once, so every call would time out.
 */
export const TIMEOUT_RANGE_TEXT = `a number of seconds from ${TIMEOUT_RANGE_S.min} to ${TIMEOUT_RANGE_S.max}`;

/** The longest goal (--goal, --goal-file, config `goal`), in characters. */
export const GOAL_MAX_CHARS = 16_384;
/** Default of config `context_max_bytes`: the context files' total, sent with every prompt. */
export const CONTEXT_MAX_BYTES = 262_144;

/** The most runs a batch keeps going at once (`--concurrency`, config `concurrency`). */
export const MAX_CONCURRENCY = 64;

/** One entry under `agents:` in bounce.config.yaml. */
export const AgentConfigSchema = AgentOptionsSchema.extend({
  adapter: z.string().min(1),
  timeout_s: z.number().min(TIMEOUT_RANGE_S.min, `must be ${TIMEOUT_RANGE_TEXT}`).max(TIMEOUT_RANGE_S.max, `must be ${TIMEOUT_RANGE_TEXT}`).optional(),
}).strict();
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

export { MARKER_NAME, MARKER_NAME_RULE } from './defaults.js';
const markerName = z.string().regex(MARKER_NAME, MARKER_NAME_RULE);

/** Each budget limit's rule, for config `budget:` and the --max-* flags alike. */
export const BUDGET_LIMIT_RULES = {
  max_cost_usd: { schema: z.number().positive().finite(), text: 'a positive number of US dollars', example: '5' },
  max_tokens: { schema: z.number().int().positive().max(Number.MAX_SAFE_INTEGER), text: 'a positive whole number of tokens', example: '2000000' },
  max_dispatches: { schema: z.number().int().positive().max(1_000_000), text: 'a whole number of dispatches from 1 to 1000000', example: '20' },
} as const;

const budgetLimits = {
  max_cost_usd: BUDGET_LIMIT_RULES.max_cost_usd.schema.optional(),
  max_tokens: BUDGET_LIMIT_RULES.max_tokens.schema.optional(),
  max_dispatches: BUDGET_LIMIT_RULES.max_dispatches.schema.optional(),
};

/** `budget:`: a run's limits, and under `batch:` those of a whole batch. */
export const BudgetConfigSchema = z.object({ ...budgetLimits, batch: z.object(budgetLimits).strict().optional() }).strict();
export type BudgetConfig = z.infer<typeof BudgetConfigSchema>;

/** `verify:`: what `bounce verify` asks of an attested run besides its audit (docs/provenance.md). */
export const VerifyConfigSchema = z
  .object({
    /** The reviewer and the composer are of different model families (both known). */
    require_cross_family: z.boolean().default(false),
    /** No [CONTESTED] note was dismissed (deleted with the text it refers to left as it was). */
    forbid_dismissed_contested: z.boolean().default(false),
  })
  .strict();
export type VerifyConfig = z.infer<typeof VerifyConfigSchema>;

/** The most checks a run takes: each runs on every reply that reads as a document. */
export const MAX_CHECKS = 16;

/** One entry of `checks:`: the command, or the command and its time limit. */
export const CheckConfigSchema = z.union([
  z.string().trim().min(1, 'must be a command, e.g. markdownlint-cli2 {file}'),
  z
    .object({
      command: z.string().trim().min(1, 'must be a command, e.g. markdownlint-cli2 {file}'),
      timeout_s: z.number().int().min(TIMEOUT_RANGE_S.min).max(TIMEOUT_RANGE_S.max).default(DEFAULT_CHECK_TIMEOUT_S),
    })
    .strict(),
]);

export const ConfigSchema = z
  .object({
    reviewer: z.string().min(1).optional(),
    composer: z.string().min(1).optional(),
    agents: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'agent names use letters, digits, ".", "_" and "-"'), AgentConfigSchema).default({}),
    runs_dir: z.string().min(1).optional(),
    max_passes: z.number().int().min(1).max(MAX_PASSES_CEILING).default(DEFAULT_MAX_PASSES),
    max_bytes: z.number().int().positive().default(2_000_000),
    /** Runs a batch keeps going at once (default: by the agents' kind, see src/commands/batch.ts). */
    concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).optional(),
    markers: z.array(markerName).default([]),
    /** A reply with fewer than this share of the sent document's words is a summary (repaired). */
    summary_ratio: z.number().gt(0).lt(1).default(REPLY_DEFAULTS.summaryRatio),
    /** The summary check applies only to documents with more words than this. */
    summary_min_words: z.number().int().nonnegative().default(REPLY_DEFAULTS.summaryMinWords),
    /** What replies carry: the whole document, edit blocks, or `auto` (edits above AUTO_EDITS_ABOVE_WORDS words). */
    edit_format: EditFormatSettingSchema.default('auto'),
    /** What the documents are for and what a refinement aims at (--goal); given to every pass ahead of the lens. */
    goal: z.string().trim().min(1, 'must be some text').max(GOAL_MAX_CHARS, `must be at most ${GOAL_MAX_CHARS} characters`).optional(),
    /** Read-only reference files, folders or globs (--context), relative to the config file's folder. */
    context: z.array(z.string().min(1)).optional(),
    /** The most bytes of context files a run sends (each prompt carries them all). */
    context_max_bytes: z.number().int().positive().default(CONTEXT_MAX_BYTES),
    budget: BudgetConfigSchema.default({}),
    /** What a final pass that deletes a [CONTESTED] note without changing its text gets: nothing, a warning, or one repair request. */
    dismissals: DismissalsSchema.default('allow'),
    /** Prices per million tokens by `<provider>/<model>`, consulted before the built-in table. */
    prices: z.record(z.string().regex(PRICE_KEY, PRICE_KEY_RULE), PriceSchema).default({}),
    /** What a run does with new notes that break a lint rule (docs/lint.md); `refine --lint` overrides it. */
    lint: LintModeSchema.default('off'),
    /** An agent whose precision in the grades file is below this is flagged by `bounce check` and warned of by `refine` (docs/grading.md). */
    min_precision: z.number().min(0).max(1).default(MIN_PRECISION),
    /** The response cache (--cache): on with its default folder (true), off (false), or on with this folder, relative to the config file's. */
    cache: z.union([z.boolean(), z.string().trim().min(1, 'must be a folder, or true or false')]).optional(),
    /** `live`: refine checks each agent on the live gate's fixture before its first dispatch, as --gate does (docs/judge-and-gate.md); absent or `off`: it does not. */
    gate: GateModeSchema.optional(),
    /** The reviewer passes' lenses, taken in turn (--lens): built-in names or prompt files relative to this file's folder (docs/prompts.md). */
    lenses: z.array(z.string().trim().min(1)).max(16).optional(),
    /** Commands run on each pass's document ({file} is its copy's path), as words without a shell; a failure is repaired, and the final pass must pass them all (docs/checks.md). */
    checks: z.array(CheckConfigSchema).max(MAX_CHECKS).optional(),
    /** true: a run whose reviewer and composer are of one model family (or of one bounce cannot tell) is refused before any dispatch (docs/configuration.md). */
    require_cross_family: z.boolean().default(false),
    verify: VerifyConfigSchema.default({}),
  })
  .strict();
export type Config = z.infer<typeof ConfigSchema>;

export const DEFAULT_CONFIG: Config = ConfigSchema.parse({});
