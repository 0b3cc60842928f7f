import { plural } from '../plural.js';
import { nextTurn } from '../engine/backoff.js';
import { framingOf, type RunPlan } from '../engine/plan.js';
import { buildPassPrompt } from '../engine/prompt.js';
import { replyMode } from '../engine/reply.js';
import { PRICES_AS_OF } from '../prices.js';
import { estimateRun } from '../engine/budget.js';
import { type RunResult, runDocument } from '../engine/run-document.js';
import { EXIT } from '../errors.js';
import type { Io } from '../io.js';
import { errorJson, printRunResult } from '../ui/run-summary.js';
import { agentsCalled, buildPlan, gateOn, type RefineOptions, secondsFlag } from '../request/refine-request.js';
import { assertGate } from '../request/gate-request.js';
import { planJudge } from '../request/judge-request.js';
import { judgeAfterRun, type PlannedJudge } from '../judge/after-run.js';
import { judgePassed, ORDERS } from '../judge/judge.js';
import { judgeLines } from '../ui/run-summary.js';
import { engineDeps, printStartWarnings, type RunHooks, withHooks } from '../request/engine-deps.js';
import { cacheFolderOf } from '../cache/folder.js';
import { findConfig, loadConfigKeys } from '../config/load.js';
import { precisionWarnings } from '../grade/grades-file.js';

export type { RefineOptions } from '../request/refine-request.js';
export type { RunHooks } from '../request/engine-deps.js';
export { errorJson } from '../ui/run-summary.js';

/** `bounce refine <doc|->`: validate, plan, run the engine, print the result. */
export async function runRefine(opts: RefineOptions, io: Io): Promise<number> {
  // A problem found here throws: src/cli.ts prints it (and the --json error object).
  const planned = await planRefine(opts, io);
  if (opts.dryRun) return dryRun(planned.plan, opts, io, planned.judge);
  const result = await runPlanned(planned, opts, io);
  if (result === null) {
    if (opts.json) io.stdout.write(`${JSON.stringify(errorJson(EXIT.interrupted, 'interrupted', INTERRUPTED_BEFORE))}\n`);
    return EXIT.interrupted;
  }
  printRunResult(result, io, { json: opts.json, quiet: opts.quiet, stdoutDocument: planned.plan.output.kind === 'stdout', config: opts.config });
  return result.exitCode;
}

const INTERRUPTED_BEFORE = 'interrupted before the run started';

/**
 * A refine run to its end, printing nothing on stdout: what `bounce_refine` (src/mcp/) calls.
 * Null when it was interrupted before the run started (nothing was written).
 */
export async function refineDocument(opts: RefineOptions, io: Io, hooks: RunHooks = {}): Promise<RunResult | null> {
  const planned = await planRefine(opts, io);
  hooks.vetAgents?.(agentsCalled(planned.plan, planned.judge ? [planned.judge.agent] : []));
  return runPlanned(planned, opts, io, hooks);
}

type Planned = Awaited<ReturnType<typeof buildPlan>> & { judge: PlannedJudge | null };

/** The plan and the judge, checked, with the warnings a start prints. */
async function planRefine(opts: RefineOptions, io: Io): Promise<Planned> {
  const built = await buildPlan(opts, io, { checkAgents: !opts.dryRun });
  const { plan, probe } = built;
  const judged = await planJudge(
    { ...opts, timeoutS: secondsFlag(opts.timeout), promptsDir: plan.promptsDir },
    { cwd: io.cwd, env: io.env, probe, ...(opts.config ? { configFile: opts.config } : {}) },
  );
  const judge = judged?.judge ?? null;
  const warnings = [...built.warnings, ...(judged?.warnings ?? [])];
  if (!opts.quiet) printStartWarnings(io, built, warnings);
  if (!opts.quiet) for (const line of lowPrecisionAgents(plan, opts, io)) io.stderr.write(`warning: ${line}\n`);
  return { ...built, judge };
}

async function runPlanned(planned: Planned, opts: RefineOptions, io: Io, hooks: RunHooks = {}): Promise<RunResult | null> {
  const { plan, probe, judge } = planned;
  // Ctrl-C while the plan was made (its reads may all have been synchronous): one turn of the
  // event loop delivers a signal that came meanwhile. Nothing was started, so nothing is left behind.
  await nextTurn();
  if (io.signal.aborted) return null;
  if (!opts.quiet) {
    const a = plan.agents;
    io.stderr.write(`reviewer: ${a.reviewer.spec} (${plan.chosenBy.reviewer}), composer: ${a.composer.spec} (${plan.chosenBy.composer})\n`);
  }
  // The live gate, before any real dispatch: a failing agent is refused and nothing is written.
  if (gateOn(opts, planned.config)) await assertGate(agentsCalled(plan, judge ? [judge.agent] : []), plan.templates, io, { probe, quiet: Boolean(opts.quiet) });
  const cache = cacheFolderOf(opts.cache, io, opts.config);
  const deps = withHooks(engineDeps(io, Boolean(opts.quiet), probe, plan, cache, judge ? [judge.agent] : []), hooks);
  if (judge) deps.afterRun = judgeAfterRun(judge, deps);
  const ran = await runDocument(plan, deps);
  const result = opts.requireJudge ? requireJudge(ran) : ran;
  if (!opts.quiet && result.manifest.judge) io.stderr.write(judgeLines(result.manifest.judge));
  return result;
}

/** The plan's agents below `min_precision` in the grades file, in words (docs/grading.md): warned of before the first dispatch. */
function lowPrecisionAgents(plan: RunPlan, opts: RefineOptions, io: Io): string[] {
  const { config } = loadConfigKeys(io.cwd, io.env, opts.config, ['min_precision']);
  const roles = plan.passes === 1 ? (['reviewer'] as const) : (['reviewer', 'composer'] as const);
  const agents = roles.map((role) => {
    const a = plan.agents[role];
    return { name: `${role} ${a.spec}`, role, adapter: a.adapter, model: typeof a.options.model === 'string' ? a.options.model : null };
  });
  return precisionWarnings(agents, { cwd: io.cwd, configPath: findConfig(io.cwd, io.env, opts.config), minPrecision: config.min_precision });
}

/**
 * `--require-judge`: a converged run whose judge did not prefer the final document in both
 * calls ends with exit 1 and error type `judge` (run.json keeps the run's own exit code and the verdict).
 */
function requireJudge(r: RunResult): RunResult {
  if (r.status !== 'converged' || r.exitCode !== EXIT.ok || judgePassed(r.manifest.judge)) return r;
  const v = r.manifest.judge;
  const said = !v
    ? 'the run was not judged'
    : v.prefers === null
      ? `the judge gave no verdict (${v.error?.message ?? 'no reply'})`
      : `the judge preferred ${v.prefers === 'tie' ? 'neither document' : `the ${v.prefers} document`}${v.agreed ? '' : ' (its two calls disagreed)'}`;
  return { ...r, exitCode: EXIT.notConverged, error: { type: 'judge', message: `--require-judge: ${said}; both calls must prefer the final document` } };
}

function dryRun(plan: RunPlan, opts: RefineOptions, io: Io, judge: PlannedJudge | null): number {
  const { prompt } = buildPassPrompt(plan.templates, {
    document: plan.input.text,
    pass: 1,
    totalPasses: plan.passes,
    role: 'reviewer',
    final: plan.passes === 1,
    ...framingOf(plan, 1),
    editFormat: replyMode(plan.replyMode).editFormat,
  });
  const contextBytes = plan.context.files.reduce((n, f) => n + f.bytes, 0);
  const summary = {
    dry_run: true,
    input: { path: plan.input.path, display: plan.input.display, bytes: plan.input.bytes, syntax: plan.input.syntax },
    passes: plan.passes,
    all_passes: plan.allPasses,
    schedule: Array.from({ length: plan.passes }, (_, i) => ({
      pass: i + 1,
      role: i % 2 === 0 ? 'reviewer' : 'composer',
      agent: (i % 2 === 0 ? plan.agents.reviewer : plan.agents.composer).spec,
      final: i + 1 === plan.passes,
    })),
    agents: Object.fromEntries(
      Object.entries(plan.agents).map(([role, a]) => [
        role,
        {
          spec: a.spec,
          adapter: a.adapter,
          options: a.options,
          timeout_s: plan.timeoutMs[role as 'reviewer'] / 1000,
          chosen_by: plan.chosenBy[role as 'reviewer'],
        },
      ]),
    ),
    markers: plan.markers,
    max_repairs: plan.maxRepairs,
    lint: plan.lint,
    edit_format: replyMode(plan.replyMode).editFormat,
    output: plan.output,
    runs_dir: plan.runsDir,
    prompts_dir: plan.promptsDir,
    goal: plan.goal,
    // The check commands every reply is run through (docs/checks.md); absent when there are none.
    ...(plan.checks?.length ? { checks: plan.checks } : {}),
    context: {
      files: plan.context.files.map((f) => ({ source: f.source, bytes: f.bytes, lines: f.lines, sha256: f.sha256 })),
      bytes: contextBytes,
      budget_bytes: plan.context.budget,
    },
    budget: { max_cost_usd: plan.budget?.costUsd ?? null, max_tokens: plan.budget?.tokens ?? null, max_dispatches: plan.budget?.dispatches ?? null },
    estimate: { ...estimateRun(plan), prices_as_of: PRICES_AS_OF },
    // The judge's calls come after a run that converges, and are not in the estimate.
    judge: judge
      ? {
          agent: judge.agent.spec,
          adapter: judge.agent.adapter,
          calls: ORDERS.length,
          orders: ORDERS,
          require: Boolean(opts.requireJudge),
          timeout_s: judge.timeoutMs / 1000,
        }
      : null,
  };
  if (opts.json) {
    io.stdout.write(`${JSON.stringify({ ...summary, first_prompt: prompt })}\n`);
    return EXIT.ok;
  }
  const lines = [
    `plan: ${plan.input.display} (${plan.input.bytes} bytes, ${plan.input.syntax}), ${plan.passes} pass${plan.passes === 1 ? '' : 'es'}${plan.allPasses ? ', all passes' : ''}`,
    ...summary.schedule.map((s) => `  pass ${s.pass}: ${s.role} ${s.agent}${s.final ? ' (final)' : ''}`),
    `markers: ${plan.markers.join(', ')}; max repairs per pass: ${plan.maxRepairs}; lint: ${plan.lint}; edit format: ${summary.edit_format}`,
    `output: ${plan.output.kind}${'path' in plan.output ? ` ${plan.output.path}` : ''}; runs dir: ${plan.runsDir}`,
    `goal: ${plan.goal === null ? 'none' : oneLine(plan.goal)}`,
    `context: ${plural(plan.context.files.length, 'file')}, ${contextBytes} of ${plan.context.budget} bytes (context_max_bytes), sent with every prompt`,
    ...plan.context.files.map((f) => `  ${f.source} (${plural(f.bytes, 'byte')}, ${plural(f.lines, 'line')})`),
    ...estimateLines(summary.estimate, summary.budget),
    ...(judge
      ? [
          `judge: ${judge.agent.spec}, ${ORDERS.length} calls after the run converges (${ORDERS.join(', then ')}), not in the estimate${opts.requireJudge ? '; --require-judge: exit 1 unless both prefer the final document' : ''}`,
        ]
      : []),
    `--- first prompt (pass 1, ${plan.agents.reviewer.spec}) ---`,
    prompt,
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

/** A goal on one line of the dry run, cut at 100 characters. */
const oneLine = (text: string): string => {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
};

const money = (usd: number | null): string => (usd === null ? 'cost unknown' : `$${usd.toFixed(4)}`);

/** The dry run's estimate in words: per pass, the total, the budget and the first pass it would stop. */
function estimateLines(
  e: ReturnType<typeof estimateRun> & { prices_as_of: string },
  b: { max_cost_usd: number | null; max_tokens: number | null; max_dispatches: number | null },
): string[] {
  const source = (s: string, model: string | null): string =>
    s === 'table' ? `list price of ${model}` : model ? `no price for ${model}` : 'no model to price';
  const limits = [
    b.max_cost_usd === null ? null : `$${b.max_cost_usd}`,
    b.max_tokens === null ? null : `${b.max_tokens} tokens`,
    b.max_dispatches === null ? null : `${b.max_dispatches} dispatch${b.max_dispatches === 1 ? '' : 'es'}`,
  ].filter((x) => x !== null);
  const stop = e.passes.find((p) => p.refused);
  return [
    `estimate (at most, one dispatch a pass; retries and repairs add to it; prices as of ${e.prices_as_of}):`,
    ...e.passes.map(
      (p) => `  pass ${p.pass}: ${p.prompt_tokens} prompt + ${p.output_tokens} output tokens, ${money(p.cost_usd)} (${source(p.cost_source, p.model)})`,
    ),
    `  total: ${e.tokens} tokens, ${money(e.cost_usd)}${e.cost_source === 'unknown' && e.cost_usd !== null ? ' and the cost of the passes without a price' : ''} (cost source: ${e.cost_source})`,
    `budget: ${limits.length ? limits.join(', ') : 'none'}${stop ? `; it would stop the run before pass ${stop.pass}: ${stop.refused}` : ''}`,
  ];
}
