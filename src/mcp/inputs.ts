/**
 * The input of each `bounce mcp` tool, as zod shapes the MCP SDK publishes as the tools' JSON
 * Schemas. The enumerations are the project's own (src/vocabulary.ts, the scan formats); a
 * value is checked where the CLI checks its flag (src/request/), so a bad one gets the CLI's
 * one-line error and fix.
 */
import { z } from 'zod';
import { FORMATS } from '../formats/names.js';
import { EditFormatSettingSchema, LintModeSchema, SyntaxSchema } from '../vocabulary.js';

const text = (what: string) => z.string().describe(what);
const paths = z.array(z.string()).describe('files, folders or globs, relative to the folder bounce mcp was started in');
const config = text('config file (default: bounce.config.yaml here or above, or BOUNCE_CONFIG)').optional();
const runsDir = text('where run folders are (default: runs_dir from config, else ./runs)').optional();
const run = text('a run folder path, run id, a part of an id only that run has, or latest');
const allowSelf = z
  .boolean()
  .describe('run an agent that is the MCP client calling bounce (its own text reviewed by itself: the self-preference trap); default false')
  .optional();

/** What a run obeys besides its config: the limits of the budget and the deadline of each agent call. */
const limits = {
  max_cost_usd: z.number().describe("the run's cost limit in US dollars (config budget.max_cost_usd)").optional(),
  max_tokens: z.number().int().describe("the run's limit on tokens (config budget.max_tokens)").optional(),
  max_dispatches: z.number().int().describe("the run's limit on agent calls (config budget.max_dispatches)").optional(),
  timeout: z.number().int().describe('deadline of each agent call in seconds').optional(),
};

const reading = {
  paths: paths.optional(),
  text: text('a document to read instead of files').optional(),
  format: z.enum(FORMATS).describe('report format, as bounce scan --format (default json)').optional(),
  markers: z.array(z.string()).describe('extra marker names besides CONTESTED and CLARIFY').optional(),
  syntax: SyntaxSchema.describe('read the input as this syntax instead of by its extension').optional(),
  changed: text('only files changed since this git ref').optional(),
  config,
};

export const SCAN_INPUT = {
  ...reading,
  lint: z.boolean().describe("also report each note that breaks the protocol's conformance rules").optional(),
  rules: z.array(z.string()).describe('with lint: the lint rules to apply (default all)').optional(),
};

export const LINT_INPUT = {
  ...reading,
  rules: z.array(z.string()).describe('the lint rules to apply (default all)').optional(),
};

export const REFINE_INPUT = {
  document: text('the path of the document to refine').optional(),
  text: text('the document itself, instead of a path (its run folder keeps the converged one)').optional(),
  name: text("the run folder's name (default: the document's name, or stdin for text)").optional(),
  passes: z.number().int().describe('pass budget N, from 1 to max_passes (default 2)').optional(),
  reviewer: text('agent for odd passes (claude, codex, gemini, opencode, openai:<model>, anthropic, mock, cmd:<program> or a configured name)').optional(),
  composer: text('agent for even passes').optional(),
  goal: text('what the document is for and what the refinement should aim at (config goal)').optional(),
  lens: z.array(z.string()).describe('review lenses the reviewer passes take in turn (config lenses)').optional(),
  context: z.array(z.string()).describe('read-only reference files, folders or globs given to every pass (config context)').optional(),
  out: text('write the converged document to this file (default: the run folder)').optional(),
  in_place: z.boolean().describe('overwrite the input after convergence, atomically').optional(),
  all_passes: z.boolean().describe('run every pass even when the notes reach zero early').optional(),
  edit_format: EditFormatSettingSchema.describe('what replies carry (config edit_format)').optional(),
  lint: LintModeSchema.describe('what the run does with new notes that break a lint rule (config lint)').optional(),
  syntax: SyntaxSchema.describe('read the document as this syntax instead of by its extension').optional(),
  ...limits,
  runs_dir: runsDir,
  config,
  allow_self: allowSelf,
};

export const SHOW_INPUT = { run, runs_dir: runsDir, config };

export const RESUME_INPUT = {
  run: run.optional(),
  passes: z.number().int().describe("the run's pass budget from now on; takes a not-converged or converged run further").optional(),
  reviewer: text('another agent for odd passes from the next pass on').optional(),
  composer: text('another agent for even passes from the next pass on').optional(),
  ...limits,
  runs_dir: runsDir,
  config,
  allow_self: allowSelf,
};

export const REPLAY_INPUT = {
  runs: z.array(z.string()).describe('runs to replay (default: latest)').optional(),
  batch: text("every run of that batch (run.json's batch_id)").optional(),
  prompts: text('prompt templates to replay with instead of the recorded ones').optional(),
  accept_drift: z.boolean().describe('use the recorded reply of a dispatch whose prompt changed').optional(),
  runs_dir: runsDir,
  config,
};
