import { basename, dirname, resolve } from 'node:path';
import { type Chosen, chooseAgents, type SkippedAgent } from '../adapters/choose.js';
import { withHumanFile } from './human-file.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import type { Config } from '../config/schema.js';
import { EditFormatSettingSchema, type EditFormatSetting, type Role, type Syntax } from '../vocabulary.js';
import type { CheckProblem } from '../contract/contract.js';
import type { Probe } from '../kit/detect.js';
import { loadConfig, runsDirFor } from '../config/load.js';
import { DEFAULT_MAX_REPAIRS, DEFAULT_PASSES, MAX_PASSES_CEILING, TIMEOUT_RANGE_S } from '../config/defaults.js';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import { outputTarget } from './output-target.js';
import type { Lens, OutputTarget, RunPlan } from '../engine/plan.js';
import { readLenses } from './lenses.js';
import { readChecks } from './checks.js';
import type { CheckSpec } from '../checks/command.js';
import { budgetFromFlags } from './budget-flags.js';
import type { BudgetLimits } from '../engine/plan.js';
import { readInput } from './input.js';
import { completePlan, type PlanRequest, perRole, runProbe, unlessInterrupted } from './plan-request.js';
import { type ContextSource, contextForDocument, readContext, readGoal } from './context.js';
import { withSyntax } from './input.js';
import { assertRunsDirWritable } from '../store/run-folder.js';
import { LINT_MODES, type LintMode, LintModeSchema } from '../vocabulary.js';
import { configInUse } from '../config/in-use.js';

export interface RefineOptions {
  doc: string;
  passes?: string | number;
  reviewer?: string;
  composer?: string;
  /** `--human-file FILE`: a person's pass (the human agent) is played in FILE instead of an editor. */
  humanFile?: string;
  prompts?: string;
  allPasses?: boolean;
  out?: string;
  inPlace?: boolean;
  runsDir?: string;
  name?: string;
  timeout?: string | number;
  maxRepairs?: string | number;
  /** off, warn or repair; default: config `lint`. */
  lint?: string;
  config?: string;
  json?: boolean;
  quiet?: boolean;
  dryRun?: boolean;
  maxCostUsd?: string | number;
  maxTokens?: string | number;
  maxDispatches?: string | number;
  editFormat?: string;
  /** --alternate: the agents swap roles every two passes. */
  alternate?: boolean;
  /** --lens NAME[,NAME...], repeatable: the reviewer passes' lenses, taken in turn (config `lenses`). */
  lens?: string[];
  /** --check-cmd CMD, repeatable: check commands every reply must pass (config `checks:`, which it replaces). */
  checkCmd?: string[];
  /** --goal TEXT / --goal-file FILE: what the document is for (config `goal`). */
  goal?: string;
  goalFile?: string;
  /** --context PATH...: read-only reference files, folders or globs (config `context`). */
  context?: string[];
  /** --syntax: how the document is read, instead of by its extension. */
  syntax?: Syntax;
  /** --cache [dir] / --no-cache: the response cache (config `cache`; src/cache/folder.ts). */
  cache?: boolean | string;
  /** --judge <agent>: a third agent compares the original and the final document (docs/judge-and-gate.md). */
  judge?: string;
  /** --require-judge: exit 1 unless both of the judge's calls prefer the final document. */
  requireJudge?: boolean;
  /** --gate: the live gate checks each agent before the first dispatch (config `gate: live`). */
  gate?: boolean;
}

/** An integer flag in [min, max]; `2.5`, `abc`, `-1` and out-of-range values are usage errors. */
export function intFlag(flag: string, value: string | number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const text = String(value).trim();
  const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw usageError(
      `${flag} must be a whole number from ${min} to ${max}, not "${text}"`,
      max === MAX_PASSES_CEILING || flag !== '--passes'
        ? `pass e.g. ${flag} ${fallback}`
        : `pass e.g. ${flag} 2 (raise max_passes in ${configInUse()} for more)`,
      'usage',
    );
  }
  return n;
}

/** A refine's `--passes`: the default too must be within max_passes (a config may lower it below 2). */
function refinePasses(value: string | number | undefined, max: number): number {
  if (value === undefined && DEFAULT_PASSES > max)
    throw usageError(
      `max_passes in ${configInUse()} is ${max}, under the ${DEFAULT_PASSES} passes a refine runs by default`,
      `pass --passes ${max}, or raise max_passes`,
      'usage',
    );
  return intFlag('--passes', value, DEFAULT_PASSES, 1, max);
}

/**
 * `--timeout` (refine and resume) in seconds, within what a timer can hold; `abc`, `0.0001`
 * and `1e300` are usage errors naming the range.
 */
export function secondsFlag(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  const n = text === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(n) || n < TIMEOUT_RANGE_S.min || n > TIMEOUT_RANGE_S.max)
    throw usageError(
      `--timeout must be a positive number of seconds, from ${TIMEOUT_RANGE_S.min} to ${TIMEOUT_RANGE_S.max}, not ${JSON.stringify(text)}`,
      'pass e.g. --timeout 600',
      'usage',
    );
  return n;
}

/** What a refine's flags and config decide for every document alike (one document, or each of a batch). */
export interface RefineSettings {
  config: Config;
  configDir: string | null;
  passes: number;
  maxRepairs: number;
  timeoutS: number | undefined;
  runsDir: string;
  promptsDir: string | null;
  /** The limits the --max-* flags set (config `budget:` fills the others). */
  budget: BudgetLimits;
  lint: LintMode;
  /** --edit-format; absent: config `edit_format`. */
  editFormat?: EditFormatSetting;
  /** --goal, --goal-file or config `goal`; null: none. */
  goal: string | null;
  /** The reference files --context (else config `context`) names, read once for every document. */
  context: ContextSource[];
  /** The reviewer passes' lenses (--lens, else config `lenses`), read once for every document. */
  lenses: Lens[];
  /** The check commands (--check-cmd, else config `checks:`), checked once for every document. */
  checks: CheckSpec[];
}

/**
 * The flags checked, the config read, the goal and the context files read (--context
 * relative to the working directory, else config `context` relative to the config file's folder).
 */
export async function refineSettings(opts: RefineOptions, io: Io): Promise<RefineSettings> {
  const loaded = loadConfig(io.cwd, io.env, opts.config);
  const { config, path: configPath } = loaded;
  const patterns = opts.context ?? config.context ?? [];
  const base = opts.context ? io.cwd : configPath ? dirname(configPath) : io.cwd;
  const settings: RefineSettings = {
    config,
    configDir: configPath ? dirname(configPath) : null,
    passes: refinePasses(opts.passes, config.max_passes),
    maxRepairs: intFlag('--max-repairs', opts.maxRepairs, DEFAULT_MAX_REPAIRS, 0, 5),
    timeoutS: secondsFlag(opts.timeout),
    runsDir: runsDirFor(io.cwd, loaded, opts.runsDir),
    promptsDir: opts.prompts ? resolve(io.cwd, opts.prompts) : null,
    budget: budgetFromFlags(opts),
    lint: lintFlag(opts.lint, config.lint),
    ...(opts.editFormat === undefined ? {} : { editFormat: editFormatFlag(opts.editFormat) }),
    goal: readGoal(opts, config.goal, io.cwd),
    context: [],
    lenses: [],
    checks: readChecks(opts.checkCmd, config.checks, io.cwd, io.env, configPath),
  };
  const promptsDir = settings.promptsDir;
  if (opts.lens?.length) settings.lenses = readLenses(opts.lens, io.cwd, promptsDir, '--lens');
  else if (config.lenses?.length) settings.lenses = readLenses(config.lenses, configPath ? dirname(configPath) : io.cwd, promptsDir, `lenses in ${configPath}`);
  if (patterns.length) settings.context = await readContext(patterns, base, io.cwd, config.context_max_bytes);
  return settings;
}

/** `--edit-format whole|edits|auto`; anything else is a usage error naming the choices. */
export function editFormatFlag(value: string): EditFormatSetting {
  const parsed = EditFormatSettingSchema.safeParse(value.trim());
  if (parsed.success) return parsed.data;
  const choices = EditFormatSettingSchema.options;
  throw usageError(
    `--edit-format must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}, not ${JSON.stringify(value)}`,
    'pass e.g. --edit-format auto',
    'usage',
  );
}

/** The agents for both roles, chosen once (flags, config, else the defaults found on this machine). */
export async function refineAgents(opts: RefineOptions, io: Io, s: RefineSettings, doc: string): Promise<Chosen & { probe: Probe }> {
  const probe = runProbe(io);
  const chosen = await unlessInterrupted(
    chooseAgents({
      flags: { reviewer: opts.reviewer, composer: opts.composer },
      config: s.config,
      configDir: s.configDir,
      cwd: io.cwd,
      env: io.env,
      probe,
      doc,
      launcher: io.launcher,
      composerUnused: s.passes === 1,
    }),
    io.signal,
  );
  return { ...chosen, agents: withHumanFile(chosen.agents, opts.humanFile, io.cwd), probe };
}

/** The request for one document under the shared settings and agents. */
export function refineRequest(
  opts: RefineOptions,
  s: RefineSettings,
  chosen: { agents: Record<Role, ResolvedAgent>; chosenBy: Record<Role, string> },
  input: RunPlan['input'],
  output: OutputTarget,
): PlanRequest {
  const read = opts.syntax ? withSyntax(input, opts.syntax) : input;
  return {
    input: read,
    passes: s.passes,
    allPasses: Boolean(opts.allPasses),
    agents: chosen.agents,
    chosenBy: chosen.chosenBy,
    promptsDir: s.promptsDir,
    maxRepairs: s.maxRepairs,
    timeoutS: perRole(() => s.timeoutS),
    output,
    runsDir: s.runsDir,
    name: opts.name ?? (input.path ? basename(input.path).replace(/\.[^.]+$/, '') : 'stdin'),
    ...(s.editFormat ? { editFormat: s.editFormat } : {}),
    budget: s.budget,
    lint: s.lint,
    goal: s.goal,
    context: contextForDocument(s.context, read, s.config.context_max_bytes),
    lenses: s.lenses,
    alternate: Boolean(opts.alternate),
    checks: s.checks,
  };
}

/** `--lint off|warn|repair`, else the config's `lint`. */
export function lintFlag(value: string | undefined, fallback: LintMode): LintMode {
  if (value === undefined) return fallback;
  const parsed = LintModeSchema.safeParse(value);
  if (!parsed.success) throw usageError(`--lint must be one of ${LINT_MODES.join(', ')}, not ${JSON.stringify(value)}`, 'pass e.g. --lint warn', 'usage');
  return parsed.data;
}

/**
 * Checks everything that can be checked before an agent is called and returns the plan.
 * Any failure here is exit 2 and leaves no run folder behind.
 */
export async function buildPlan(
  opts: RefineOptions,
  io: Io,
  { checkAgents }: { checkAgents: boolean },
): Promise<{ plan: RunPlan; warnings: CheckProblem[]; probe: Probe; skipped: SkippedAgent[]; unverified: SkippedAgent[]; config: Config }> {
  const settings = await refineSettings(opts, io);
  const output = outputTarget({ out: opts.out, inPlace: opts.inPlace, json: opts.json }, opts.doc === '-' ? null : resolve(io.cwd, opts.doc), io.cwd);
  const input = await readInput(opts.doc, io, settings.config.max_bytes);
  if (!opts.dryRun) assertRunsDirWritable(settings.runsDir);
  const chosen = await refineAgents(opts, io, settings, opts.doc);
  const request = refineRequest(opts, settings, chosen, input, output);
  return {
    ...(await completePlan(request, settings.config, io.env, { checkAgents, probe: chosen.probe })),
    probe: chosen.probe,
    skipped: chosen.skipped,
    unverified: chosen.unverified,
    config: settings.config,
  };
}

/** Whether refine runs the live gate first: --gate, else config `gate: live`. */
export function gateOn(opts: Pick<RefineOptions, 'gate'>, config: Config): boolean {
  return Boolean(opts.gate) || config.gate === 'live';
}

/** The distinct agents a run calls: the reviewer, the composer when a second pass runs, and any other (a judge). */
export function agentsCalled(plan: Pick<RunPlan, 'agents' | 'passes'>, others: readonly ResolvedAgent[] = []): ResolvedAgent[] {
  return [plan.agents.reviewer, ...(plan.passes > 1 ? [plan.agents.composer] : []), ...others];
}
