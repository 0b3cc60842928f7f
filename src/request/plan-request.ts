import { charsPerTokenByModel } from '../store/token-ratios.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CheckProblem } from '../contract/contract.js';
import { createProbe, type Probe } from '../kit/detect.js';
import { runSecrets } from '../adapters/secrets.js';
import { diskVersionCache, versionCachePath } from '../preflight/version-cache.js';
import { resolveAgent, type ResolvedAgent } from '../adapters/registry.js';
import type { Config } from '../config/schema.js';
import type { CheckSpec } from '../checks/command.js';
import { BounceError, EXIT, usageError } from '../errors.js';
import { crossFamilyCheck } from '../adapters/family.js';
import { loadConfig } from '../config/load.js';
import type { Lens, OutputTarget, RunPlan } from '../engine/plan.js';
import { assertFrameTakes, loadTemplates } from '../engine/prompt.js';
import { makeContextNonce } from '../engine/context-frames.js';
import { assertParses } from './input.js';
import { blankContextSecrets, type ContextSource, contextFiles, recordedContext } from './context.js';
import type { Io } from '../io.js';
import { DEFAULT_MARKERS } from '../protocol/scanner.js';
import { assertFitsBudget, checkWarnings, outputBudget, preflight } from '../preflight/preflight.js';
import type { RunManifest } from '../store/manifest.js';
import { type Dismissals, type LintMode, ROLES, type Role } from '../vocabulary.js';
import { outputTarget } from './output-target.js';
import type { BudgetLimits } from '../engine/plan.js';
import { runBudget, subscriptionWarnings, unpricedWarnings } from './budget-flags.js';
import { editFormatFor } from '../text/edit-blocks.js';
import { replyModeFor } from '../engine/reply.js';
import type { EditFormatSetting } from '../vocabulary.js';

import { DEFAULT_TIMEOUT_S } from '../config/defaults.js';

/** The markers a run looks for: the protocol's two plus any configured extra names. */
export function markersFor(config: Config): string[] {
  return [...DEFAULT_MARKERS, ...config.markers.map((m) => m.toUpperCase()).filter((m) => !DEFAULT_MARKERS.includes(m))];
}

export const perRole = <T>(f: (role: Role) => T): Record<Role, T> => ({ reviewer: f('reviewer'), composer: f('composer') });

/**
 * What a run is asked to do, before the settings that come from config, templates and the
 * agents' checks are added: refine builds it from flags, resume from run.json.
 */
export interface PlanRequest {
  input: RunPlan['input'];
  passes: number;
  allPasses: boolean;
  agents: Record<Role, ResolvedAgent>;
  chosenBy: Record<Role, string>;
  promptsDir: string | null;
  maxRepairs: number;
  /** Per-dispatch deadline per role in seconds; undefined: the agent's timeout_s, else the default. */
  timeoutS: Record<Role, number | undefined>;
  output: OutputTarget;
  runsDir: string;
  name: string;
  /** The reply mode a run was made with (resume); absent: from `editFormat`, else config `edit_format`. */
  replyMode?: string;
  /** --edit-format (refine); `auto` is decided by the input's size. */
  editFormat?: EditFormatSetting;
  batchId?: string;
  /** The limits the --max-* flags set; config `budget:` fills the others. */
  budget?: BudgetLimits;
  /** Lint of the notes a pass adds: refine's --lint, else config; resume's recorded value. */
  lint: LintMode;
  /** A resumed run's recorded `dismissals`; absent: config `dismissals`. */
  dismissals?: Dismissals;
  /** What an earlier session of the run found, used where today's checks find nothing. */
  recorded?: { versions: Record<Role, string | null>; resolved: RunPlan['resolved'] };
  /** What the document is for (--goal); null: none. Resume takes the recorded one. */
  goal: string | null;
  /** The reference files, read (refine) or read back from the run folder's copies (resume). */
  context: ContextSource[];
  /** The reviewer passes' lenses (--lens, config `lenses`); resume takes the recorded ones. Absent: none. */
  lenses?: Lens[];
  /** --alternate: the agents swap roles every two passes; resume takes the recorded choice. */
  alternate?: boolean;
  /** The check commands (--check-cmd, config `checks:`); resume takes the recorded ones. Absent: none. */
  checks?: CheckSpec[];
}

/**
 * The one function that turns a request into a plan, for refine and resume alike, so a
 * plan field cannot be set one way for new runs and another for resumed ones.
 */
export async function completePlan(
  req: PlanRequest,
  config: Config,
  env: NodeJS.ProcessEnv,
  opts: { checkAgents: boolean; probe: Probe; replay?: boolean },
): Promise<{ plan: RunPlan; warnings: CheckProblem[] }> {
  const templates = await loadTemplates(req.promptsDir ?? undefined);
  assertParses(req.input);
  assertFrameTakes(templates, { goal: req.goal !== null, context: req.context.length > 0 }, req.promptsDir);
  // Key values the agents read never reach a prompt or the run folder through a context file.
  const blanked = req.context.length ? blankContextSecrets(req.context, runSecrets(req.agents, env)) : { sources: [], warnings: [] };
  const context = blanked.sources;
  const contextTexts = [req.input.text, ...context.flatMap((c) => [c.text, c.source])];
  const used = ROLES.filter((role) => role === 'reviewer' || req.passes > 1);
  for (const role of used) assertFitsBudget(req.input.text, role, req.agents[role]);
  // A replay calls no agent: the family rule is for runs that dispatch.
  const families = req.passes > 1 && !opts.replay ? crossFamilyCheck(req.agents, config.require_cross_family) : {};
  if (families.refusal) throw usageError(families.refusal, undefined, 'config');
  const checks = opts.checkAgents ? await unlessInterrupted(preflight(req.agents, env, { roles: used, probe: opts.probe }), opts.probe.signal) : null;
  const plan: RunPlan = {
    input: req.input,
    passes: req.passes,
    allPasses: req.allPasses,
    agents: req.agents,
    agentVersions: perRole((r) => checks?.[r].version ?? req.recorded?.versions[r] ?? null),
    resolved: perRole((r) => checks?.[r].resolved ?? req.recorded?.resolved[r] ?? {}),
    chosenBy: req.chosenBy,
    templates,
    promptsDir: req.promptsDir,
    markers: markersFor(config),
    maxRepairs: req.maxRepairs,
    maxBytes: config.max_bytes,
    timeoutMs: perRole((r) => Math.round((req.timeoutS[r] ?? req.agents[r].timeoutS ?? DEFAULT_TIMEOUT_S) * 1000)),
    maxOutputTokens: perRole((r) => outputBudget(req.agents[r])),
    summaryRatio: config.summary_ratio,
    summaryMinWords: config.summary_min_words,
    output: req.output,
    runsDir: req.runsDir,
    name: req.name,
    replyMode: req.replyMode ?? replyModeFor(editFormatFor(req.editFormat ?? config.edit_format, req.input.text)),
    ...(req.batchId ? { batchId: req.batchId } : {}),
    budget: runBudget(req.budget, config.budget),
    prices: config.prices,
    charsPerToken: charsPerTokenByModel(req.runsDir),
    lint: req.lint,
    dismissals: req.dismissals ?? config.dismissals,
    goal: req.goal,
    context: { nonce: makeContextNonce(contextTexts), budget: config.context_max_bytes, files: contextFiles(context) },
    lenses: req.lenses ?? [],
    ...(req.alternate ? { alternate: true } : {}),
    ...(req.checks?.length ? { checks: req.checks } : {}),
  };
  const familyWarning: CheckProblem[] = families.warning ? [{ kind: 'config', message: families.warning }] : [];
  return {
    plan,
    warnings: [
      ...blanked.warnings,
      ...checkWarnings(checks),
      ...unpricedWarnings(plan, [plan.budget]),
      ...subscriptionWarnings(plan, [plan.budget]),
      ...familyWarning,
    ],
  };
}

/**
 * The probe of a run (refine, resume): CLI versions remembered on disk between runs, and
 * logins read offline where that is certain, so the first dispatch need not wait for
 * `--version` or `claude auth status`. `bounce check` keeps asking the CLIs.
 */
export function runProbe(io: Pick<Io, 'env' | 'signal'>): Probe {
  return createProbe(io.signal, { versions: diskVersionCache(versionCachePath(io.env)), offlineLogins: true });
}

/** Exit 130 while agents are being checked: nothing was started, so nothing is left behind. */
export function interruptedError(): BounceError {
  return new BounceError('interrupted before the run started', { exitCode: EXIT.interrupted, code: 'interrupted' });
}

/**
 * `work`, unless the command is interrupted first: then it ends at once with exit 130 (the
 * probe's processes die with the same signal), whatever `work` would have said.
 */
export async function unlessInterrupted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) throw interruptedError();
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(interruptedError());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, stopped]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

export interface ResumeFlags {
  out?: string;
  inPlace?: boolean;
  json?: boolean;
  config?: string;
  /** --timeout in seconds, already checked. */
  timeoutS?: number;
  /** The --max-* flags, already checked: this session's budget. */
  budget?: BudgetLimits;
  /** `--reviewer`, `--composer` of resume: agents that replace the recorded ones. */
  agents?: Partial<Record<Role, string>>;
}

/** The request a run was made with, from its run.json, its folder and today's config (agents are resolved again). */
export function requestFromManifest(
  m: RunManifest,
  runDir: string,
  io: Io,
  flags: ResumeFlags,
): { request: PlanRequest; config: Config; recordedAgents: Record<Role, ResolvedAgent> } {
  const { config, path } = loadConfig(io.cwd, io.env, flags.config);
  const configDir = path ? dirname(path) : null;
  const text = readFileSync(join(runDir, m.original), 'utf8');
  const recordedOutput: OutputTarget =
    m.output.target === 'file' || m.output.target === 'in-place' ? { kind: m.output.target, path: m.output.path as string } : { kind: m.output.target };
  const overridden = flags.out !== undefined || flags.inPlace;
  const recordedAgents = perRole((role) => resolveAgent(m.agents[role].spec, config, io.cwd, configDir));
  const replaced = perRole((role) => flags.agents?.[role] !== undefined && flags.agents[role] !== m.agents[role].spec);
  const agents = perRole((role) => (replaced[role] ? resolveAgent(flags.agents?.[role] as string, config, io.cwd, configDir) : recordedAgents[role]));
  const request: PlanRequest = {
    input: { path: m.input.path, display: m.input.display, text, bytes: m.input.bytes, sha256: m.input.sha256, ext: m.input.ext, syntax: m.input.syntax },
    passes: m.passes.requested,
    allPasses: m.passes.all_passes,
    agents,
    chosenBy: perRole((r) => (replaced[r] ? 'flag' : m.agents[r].chosen_by)),
    promptsDir: m.policy.prompts_dir,
    maxRepairs: m.policy.max_repairs,
    // --timeout, else the agent's timeout_s in today's config, else what the run was made with.
    timeoutS: perRole((r) => flags.timeoutS ?? agents[r].timeoutS ?? (replaced[r] ? undefined : m.agents[r].timeout_s)),
    output: overridden ? outputTarget({ out: flags.out, inPlace: flags.inPlace, json: flags.json }, m.input.path, io.cwd) : recordedOutput,
    runsDir: dirname(runDir),
    name: m.run_id,
    replyMode: m.policy.reply_mode,
    ...(m.batch_id ? { batchId: m.batch_id } : {}),
    budget: flags.budget,
    // A run recorded before lint existed ran without it.
    lint: m.policy.lint ?? 'off',
    dismissals: m.policy.dismissals ?? 'allow',
    recorded: { versions: perRole((r) => (replaced[r] ? null : m.agents[r].version)), resolved: perRole((r) => (replaced[r] ? {} : m.agents[r].resolved)) },
    // The run's goal and its copies of the context files: what it was asked to do, whatever became of the sources since.
    goal: m.goal,
    context: recordedContext(m.context, runDir, m.run_id),
    lenses: m.policy.lenses ?? [],
    alternate: m.policy.alternate === true,
    // The checks as recorded: the same replies pass or fail them, whatever config says now.
    ...(m.policy.checks ? { checks: m.policy.checks.map((c) => ({ ...c })) } : {}),
  };
  return { request, config, recordedAgents };
}
