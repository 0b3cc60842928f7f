import { plural } from '../plural.js';
import { rmSync } from 'node:fs';
import { nextTurn } from '../engine/backoff.js';
import { basename, dirname, resolve } from 'node:path';
import { ulid } from 'ulid';
import type { Probe } from '../kit/detect.js';
import { checkWarnings, preflight } from '../preflight/preflight.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import { ADAPTER_TABLE } from '../adapters/builtins.js';
import { loadConfig, runsDirFor } from '../config/load.js';
import { type StepPlace, stepPlace } from '../store/run-location.js';
import { MAX_CONCURRENCY } from '../config/schema.js';
import { mapLimited } from '../concurrency.js';
import { systemClock } from '../engine/clock.js';
import { outputTarget } from '../request/output-target.js';
import type { RunPlan } from '../engine/plan.js';
import { createRun, EXIT_FOR_STATUS, type ResumeFrom, type RunResult, runDocument } from '../engine/run-document.js';
import { AgentThrottle } from '../engine/throttle.js';
import { BATCH_SCOPE, BudgetAccount, estimateRun, spentOf } from '../engine/budget.js';
import { combineCostSources, PRICES_AS_OF } from '../prices.js';
import type { BudgetConfig } from '../config/schema.js';
import { BounceError, EXIT, isBounceError, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { cacheHitsOf, type RunManifest } from '../store/manifest.js';
import { acquireLock } from '../store/lock.js';
import { selectRunDirs } from '../store/resolve-run.js';
import { assertRunsDirWritable } from '../store/run-folder.js';
import { type BatchFacts, batchJson, batchSummary, BatchView } from '../ui/batch-view.js';
import type { AdapterKind, CostSource, Role } from '../vocabulary.js';
import { displayPath, selectInputs } from '../documents.js';
import { readInput } from '../request/input.js';
import { completePlan, type PlanRequest, perRole, runProbe, unlessInterrupted } from '../request/plan-request.js';
import { engineDeps, printStartWarnings } from '../request/engine-deps.js';
import { cacheFolderFor } from '../cache/folder.js';
import { agentsCalled, gateOn, intFlag, type RefineOptions, refineAgents, refineRequest, refineSettings } from '../request/refine-request.js';
import { assertGate } from '../request/gate-request.js';
import { isResumable, readForResume, type ResumeOptions, resumePlan } from '../request/resume-request.js';
import { batchBudget, budgetFromFlags, subscriptionWarnings, unpricedWarnings } from '../request/budget-flags.js';
import { parseShard, type Shard, shardOf } from '../request/shard.js';

/** Runs a batch keeps going at once when neither --concurrency nor config `concurrency` says: by the slowest kind of agent it uses. */
export const BATCH_CONCURRENCY: Readonly<Record<AdapterKind, number>> = { cli: 2, http: 4, mock: 4, human: 1 };

export interface BatchRefineOptions extends Omit<RefineOptions, 'doc'> {
  docs: string[];
  concurrency?: string | number;
  shard?: string;
  changed?: string;
}

/** The concurrency of a batch: --concurrency, else config `concurrency`, else by the kind of its agents. */
function concurrencyOf(flag: string | number | undefined, configured: number | undefined, agents: ResolvedAgent[]): number {
  if (flag !== undefined) return intFlag('--concurrency', flag, BATCH_CONCURRENCY.cli, 1, MAX_CONCURRENCY);
  if (configured !== undefined) return configured;
  // A cmd: program may start a CLI of its own: counted as one.
  const kinds = agents.map((a): AdapterKind => (a.adapter === 'cmd' ? 'cli' : (ADAPTER_TABLE[a.adapter as keyof typeof ADAPTER_TABLE]?.kind ?? 'cli')));
  return Math.min(...kinds.map((k) => BATCH_CONCURRENCY[k]));
}

/** Problems found in some documents before any dispatch: each printed on its own line, then one error (exit 2). */
/** A document's problem, led by its name unless the message already names it (`a.md is empty`, not `a.md: a.md is empty`). */
function about(label: string, line: string): string {
  return line.includes(label) ? line : `${label}: ${line}`;
}

function refuseDocuments(problems: string[], total: number, io: Io, what: string): BounceError {
  for (const p of problems) io.stderr.write(`bounce: ${p}\n`);
  const first = problems[0] ?? '';
  return usageError(
    `${problems.length} of ${total} ${what} cannot be run (first: ${first})`,
    'fix them, or leave them out of the batch; nothing was run',
    'input',
  );
}

/**
 * `bounce refine <paths, folders or globs...>` with several documents: every document is read
 * and checked, and its run folder made, before the first dispatch; then the runs go
 * `concurrency` at a time in this process, sharing one rate-limit backoff per agent.
 */
export async function runBatchRefine(opts: BatchRefineOptions, io: Io): Promise<number> {
  if (opts.out !== undefined)
    throw usageError(
      '--out names one output, and a batch refines several documents',
      'drop --out: each converged document goes to its run folder (or use --in-place)',
    );
  if (opts.name !== undefined)
    throw usageError('--name names one run, and a batch makes one run per document', 'drop --name: each run is named after its document');
  if (opts.docs.includes('-')) throw usageError('stdin (-) cannot be one document of a batch', 'refine it on its own: bounce refine - < doc.md');
  if (opts.judge !== undefined || opts.requireJudge)
    throw usageError('--judge judges one run, and a batch makes one run per document', 'refine each document on its own with --judge, or drop --judge');
  const settings = await refineSettings({ ...opts, doc: '' }, io);
  const shard = opts.shard === undefined ? null : parseShard(opts.shard);
  if (opts.concurrency !== undefined) intFlag('--concurrency', opts.concurrency, BATCH_CONCURRENCY.cli, 1, MAX_CONCURRENCY);
  const all = await selectInputs(opts.docs, io.cwd, opts.changed);
  const inputs = shard ? shardOf(all, (i) => i.label, shard) : all;
  const started = Date.now();
  if (inputs.length === 0) return emptyBatch(opts, io, shard, all.length, stepPlace({ runsDir: settings.runsDir, config: opts.config }, io));
  const problems: string[] = [];
  const read: { label: string; input: RunPlan['input'] }[] = [];
  for (const i of inputs) {
    try {
      read.push({ label: i.label, input: await readInput(i.path as string, io, settings.config.max_bytes) });
    } catch (err) {
      if (!isBounceError(err) || err.exitCode !== EXIT.usage) throw err;
      problems.push(about(i.label, err.line));
    }
  }
  if (!opts.dryRun) assertRunsDirWritable(settings.runsDir);
  const chosen = await refineAgents({ ...opts, doc: inputs[0]!.label }, io, settings, inputs[0]!.label);
  const used = [chosen.agents.reviewer, ...(settings.passes > 1 ? [chosen.agents.composer] : [])];
  const concurrency = concurrencyOf(opts.concurrency, settings.config.concurrency, used);
  // The agents are checked once for the whole batch; every plan takes what the check found.
  const roles: Role[] = settings.passes > 1 ? ['reviewer', 'composer'] : ['reviewer'];
  const checks = opts.dryRun ? null : await unlessInterrupted(preflight(chosen.agents, io.env, { roles, probe: chosen.probe }), io.signal);
  const recorded: PlanRequest['recorded'] = checks ? { versions: perRole((r) => checks[r].version), resolved: perRole((r) => checks[r].resolved) } : undefined;
  const batchId = ulid();
  const plans: RunPlan[] = [];
  for (const { label, input } of read) {
    try {
      const output = outputTarget({ inPlace: opts.inPlace, json: opts.json }, input.path, io.cwd);
      // In a batch the --max-* flags limit the whole batch; each run has config `budget:` alone.
      const request: PlanRequest = {
        ...refineRequest({ ...opts, doc: label }, settings, chosen, input, output),
        budget: {},
        batchId,
        ...(recorded ? { recorded } : {}),
      };
      plans.push((await completePlan(request, settings.config, io.env, { checkAgents: false, probe: chosen.probe })).plan);
    } catch (err) {
      if (!isBounceError(err) || err.exitCode !== EXIT.usage) throw err;
      problems.push(about(label, err.line));
    }
  }
  if (problems.length > 0) throw refuseDocuments(problems, inputs.length, io, 'documents');
  const labels = read.map((r) => r.label);
  if (!opts.quiet)
    printStartWarnings(io, chosen, [
      ...checkWarnings(checks),
      ...(plans[0] ? unpricedWarnings(plans[0], [plans[0].budget, { ...batchBudget(settings.config.budget), ...settings.budget }]) : []),
      ...(plans[0] ? subscriptionWarnings(plans[0], [plans[0].budget, { ...batchBudget(settings.config.budget), ...settings.budget }]) : []),
    ]);
  if (opts.dryRun) return dryRunBatch(plans, labels, { shard, concurrency, all: all.length }, opts, io);
  // One turn of the event loop delivers a signal that came while the plans were made.
  await nextTurn();
  if (io.signal.aborted) throw new BounceError('interrupted before the batch started', { exitCode: EXIT.interrupted, code: 'interrupted' });
  if (!opts.quiet) {
    const a = plans[0]!.agents;
    const part = shard ? `, shard ${shard.index}/${shard.count} (${inputs.length} of ${all.length})` : '';
    io.stderr.write(
      `batch ${batchId}: ${plural(plans.length, 'document')}${part}, concurrency ${concurrency}; reviewer: ${a.reviewer.spec}, composer: ${a.composer.spec}\n`,
    );
  }
  // The live gate, once per agent for the whole batch, before any real dispatch and before any run folder is made.
  if (plans[0] && gateOn(opts, settings.config))
    await assertGate(agentsCalled(plans[0]), plans[0].templates, io, { probe: chosen.probe, quiet: Boolean(opts.quiet) });
  const froms = createRuns(plans, io, chosen.probe);
  return runBatch(
    plans.map((plan, i) => ({ plan, from: froms[i]!, label: labels[i]! })),
    [],
    io,
    opts,
    {
      batchId,
      shard,
      concurrency,
      started,
      probe: chosen.probe,
      place: stepPlace({ runsDir: settings.runsDir, config: opts.config }, io),
      budget: batchAccount(settings.budget, settings.config.budget, []),
      cacheFolder: cacheFolderFor(opts.cache, settings.config, { cwd: io.cwd, env: io.env, configDir: settings.configDir }),
    },
  );
}

/**
 * The budget of the whole batch: the --max-* flags, else config `budget.batch`; with what
 * the batch's runs spent already (a resumed batch). Null when the batch has no limit.
 */
function batchAccount(flags: ReturnType<typeof budgetFromFlags>, config: BudgetConfig, spent: RunManifest[]): BudgetAccount | null {
  const limits = { ...batchBudget(config), ...flags };
  if (Object.keys(limits).length === 0) return null;
  const sum = { input_tokens: 0, output_tokens: 0, cost_usd: 0, dispatches: 0 };
  for (const m of spent) {
    sum.input_tokens += m.totals.input_tokens ?? 0;
    sum.output_tokens += m.totals.output_tokens ?? 0;
    sum.cost_usd += m.totals.cost_usd ?? 0;
    sum.dispatches += m.totals.dispatches - cacheHitsOf(m);
  }
  return new BudgetAccount(limits, spentOf(sum), BATCH_SCOPE);
}

/**
 * Every document's run folder, made before the first dispatch: a batch stopped at any moment
 * leaves each document a run to resume. If one cannot be made, none is left behind.
 */
function createRuns(plans: RunPlan[], io: Io, probe: Probe): ResumeFrom[] {
  const made: ResumeFrom[] = [];
  try {
    for (const plan of plans) made.push(createRun(plan, { recorder: engineDeps(io, true, probe, plan).recorder }));
  } catch (err) {
    for (const f of made) {
      rmSync(f.runDir, { recursive: true, force: true });
      f.lock?.();
    }
    throw err;
  }
  return made;
}

interface BatchRun {
  plan: RunPlan;
  from: ResumeFrom;
  label: string;
}

/**
 * Runs the batch's runs `concurrency` at a time with one shared backoff, then prints the
 * batch's object (--json) or the converged outputs' paths on stdout and the summary table on
 * stderr. `done` are runs of the batch that had already ended (resume --batch), reported as they are.
 */
async function runBatch(
  runs: BatchRun[],
  done: { label: string; result: RunResult }[],
  io: Io,
  opts: { json?: boolean; quiet?: boolean },
  facts: {
    batchId: string | null;
    shard: Shard | null;
    concurrency: number;
    /** What a printed `bounce resume` needs to find the batch's runs, and max_passes (src/store/run-location.ts). */
    place: StepPlace;
    started: number;
    probe: Probe;
    budget: BudgetAccount | null;
    /** The response cache's folder (--cache), shared by the batch's runs; null: none. */
    cacheFolder: string | null;
  },
): Promise<number> {
  const view = new BatchView(io, Boolean(opts.quiet), runs.length);
  const throttle = new AgentThrottle(systemClock);
  const summaryFacts = (): BatchFacts => ({
    batchId: facts.batchId,
    shard: facts.shard,
    concurrency: facts.concurrency,
    durationMs: Date.now() - facts.started,
    place: facts.place,
  });
  // Ended by force after a second signal: the batch's object with the runs that ended, and how to go on with the rest.
  const ended: RunResult[] = done.map((d) => d.result);
  io.forcedStopJson = () => {
    const json = batchJson(ended, summaryFacts());
    const left = runs.filter((r) => !ended.some((e) => e.runDir === r.from.runDir)).map((r) => basename(r.from.runDir));
    const next = facts.batchId ? `bounce resume --batch ${facts.batchId}${facts.place.flags}` : `bounce resume ${left.join(' ')}${facts.place.flags}`;
    return { ...json, status: 'interrupted', exit_code: EXIT.interrupted, next };
  };
  let results: RunResult[];
  try {
    results = await mapLimited(
      runs.map((r, i) => ({ ...r, i })),
      facts.concurrency,
      async ({ plan, from, label, i }) => {
        const deps = {
          ...engineDeps(io, true, facts.probe, plan, facts.cacheFolder),
          events: view.sink(i, label),
          throttle,
          ...(facts.budget ? { budgets: [facts.budget] } : {}),
        };
        const result = await runDocument(plan, deps, from);
        ended.push(result);
        view.finished(i, label, result);
        return result;
      },
    );
  } finally {
    view.close();
  }
  const all = [...done.map((d) => d.result), ...results];
  const labels = [...done.map((d) => d.label), ...runs.map((r) => r.label)];
  const json = batchJson(all, summaryFacts());
  if (opts.json) io.stdout.write(`${JSON.stringify(json)}\n`);
  else for (const r of results) if (r.outputPath && r.exitCode === EXIT.ok) io.stdout.write(`${displayPath(r.outputPath, io.cwd, 'absolute')}\n`);
  if (!opts.quiet) io.stderr.write(batchSummary(all, labels, json, io));
  else if (json.exit_code !== EXIT.ok)
    io.stderr.write(
      `bounce: batch ${json.status}: ${json.totals.failed} failed, ${json.totals.not_converged} not converged, ${json.totals.interrupted} interrupted${json.next ? `\nnext: ${json.next}` : ''}\n`,
    );
  return json.exit_code;
}

function emptyBatch(opts: BatchRefineOptions, io: Io, shard: Shard | null, all: number, place: StepPlace): number {
  const why =
    opts.changed !== undefined && all === 0
      ? `no document changed since ${opts.changed}`
      : shard
        ? `shard ${shard.index}/${shard.count} of ${all} documents is empty`
        : 'no documents';
  if (opts.dryRun && opts.json) io.stdout.write(`${JSON.stringify({ dry_run: true, batch: true, shard, documents: [] })}\n`);
  else if (opts.json) io.stdout.write(`${JSON.stringify(batchJson([], { batchId: null, shard, concurrency: 0, durationMs: 0, place }))}\n`);
  if (!opts.quiet) io.stderr.write(`nothing to refine: ${why}\n`);
  return EXIT.ok;
}

function dryRunBatch(
  plans: RunPlan[],
  labels: string[],
  facts: { shard: Shard | null; concurrency: number; all: number },
  opts: BatchRefineOptions,
  io: Io,
): number {
  const first = plans[0]!;
  const estimates = plans.map(estimateRun);
  const documents = plans.map((p, i) => ({
    path: labels[i]!,
    bytes: p.input.bytes,
    syntax: p.input.syntax,
    output: p.output.kind,
    estimate: { tokens: estimates[i]!.tokens, cost_usd: estimates[i]!.cost_usd, cost_source: estimates[i]!.cost_source },
  }));
  const costs = estimates.map((e) => e.cost_usd);
  const estimate = {
    tokens: estimates.reduce((n, e) => n + e.tokens, 0),
    // A total over documents with any unpriced one is a lower bound, as for a run (docs/configuration.md).
    cost_usd: costs.every((c) => c === null) ? null : costs.reduce<number>((n, c) => n + (c ?? 0), 0),
    cost_source: estimates.reduce<CostSource | null>((s, e) => combineCostSources(s, e.cost_source), null),
    prices_as_of: PRICES_AS_OF,
  };
  if (opts.json) {
    const agents = perRole((r) => ({ spec: first.agents[r].spec, adapter: first.agents[r].adapter, chosen_by: first.chosenBy[r] }));
    io.stdout.write(
      `${JSON.stringify({ dry_run: true, batch: true, shard: facts.shard, of: facts.all, concurrency: facts.concurrency, passes: first.passes, agents, runs_dir: first.runsDir, estimate, documents })}\n`,
    );
    return EXIT.ok;
  }
  const part = facts.shard ? ` (shard ${facts.shard.index}/${facts.shard.count} of ${facts.all})` : '';
  const lines = [
    `batch plan: ${plural(plans.length, 'document')}${part}, ${plural(first.passes, 'pass', 'passes')}, concurrency ${facts.concurrency}`,
    `reviewer: ${first.agents.reviewer.spec}, composer: ${first.agents.composer.spec}; runs dir: ${first.runsDir}`,
    `estimate (at most, one dispatch a pass; prices as of ${PRICES_AS_OF}): ${estimate.tokens} tokens, ${estimate.cost_usd === null ? 'cost unknown' : `$${estimate.cost_usd.toFixed(4)}`} (${estimate.cost_source})`,
    ...documents.map((d) => `  ${d.path} (${d.bytes} bytes, ${d.syntax}; about ${d.estimate.tokens} tokens)`),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

export interface BatchResumeOptions extends Omit<ResumeOptions, 'run'> {
  runs: string[];
  batch?: string;
  concurrency?: string | number;
}

/** The result a finished run left, for the batch's report: nothing is run again. */
function recordedResult(m: RunManifest, runDir: string): RunResult {
  const outputPath = m.output.written ? (m.output.path ?? (m.output.target === 'run' ? resolve(runDir, `final.${m.input.ext}`) : null)) : null;
  return {
    runId: m.run_id,
    runDir,
    status: m.status === 'running' ? 'interrupted' : m.status,
    exitCode: m.exit_code ?? EXIT_FOR_STATUS[m.status === 'running' ? 'interrupted' : m.status],
    document: null,
    outputPath,
    notesLeft: m.notes_left,
    error: m.error,
    manifest: m,
  };
}

/** `err`, once the locks of `runs`, which will not be run, are released. */
function unlocking(runs: readonly BatchRun[], err: unknown): unknown {
  for (const r of runs) r.from.lock?.();
  return err;
}

/**
 * `bounce resume <run...>` with several runs, or `--batch <id>`: every resumable run is
 * checked before the first dispatch, then they go on as a batch. With --batch, runs of it
 * that had already ended are reported as they ended; a run named on its own must be resumable.
 */
export async function runBatchResume(opts: BatchResumeOptions, io: Io): Promise<number> {
  if (opts.out !== undefined) throw usageError('--out names one output, and several runs are being resumed', 'drop --out, or resume one run at a time');
  const extending = (['passes', 'reviewer', 'composer'] as const).find((k) => opts[k] !== undefined);
  if (extending)
    throw usageError(`--${extending} changes one run's plan, and several runs are being resumed`, `drop --${extending}, or resume one run at a time`);
  const flagBudget = budgetFromFlags(opts);
  const loaded = loadConfig(io.cwd, io.env, opts.config);
  const runsDir = runsDirFor(io.cwd, loaded, opts.runsDir);
  const started = Date.now();
  const dirs = selectRunDirs(opts, runsDir, io.cwd, 'resumes');
  const probe = runProbe(io);
  const concurrencyFlag = opts.concurrency;
  // Checked before any run is locked for the batch: nothing after that may refuse it.
  if (concurrencyFlag !== undefined) intFlag('--concurrency', concurrencyFlag, BATCH_CONCURRENCY.cli, 1, MAX_CONCURRENCY);
  const problems: string[] = [];
  const runs: BatchRun[] = [];
  const done: { label: string; result: RunResult }[] = [];
  let recorded: PlanRequest['recorded'];
  const manifests: RunManifest[] = [];
  for (const dir of dirs) {
    let m: RunManifest;
    try {
      m = readForResume(dir);
    } catch (err) {
      if (!isBounceError(err)) throw err;
      problems.push(err.line);
      continue;
    }
    if (opts.batch !== undefined && !isResumable(m)) {
      done.push({ label: m.input.display, result: recordedResult(m, dir) });
      continue;
    }
    manifests.push(m);
    let lock: (() => void) | undefined;
    try {
      // A run another process is driving is refused now, not after the batch has begun; the
      // lock is kept until the run's turn, so a run waiting for it is never unlocked.
      lock = acquireLock(dir);
      // As in refine: the --max-* flags limit the batch as a whole, not each run.
      const plan = await unlessInterrupted(
        resumePlan(m, dir, { ...opts, maxCostUsd: undefined, maxTokens: undefined, maxDispatches: undefined }, io, probe, recorded),
        io.signal,
      );
      recorded ??= { versions: plan.agentVersions, resolved: plan.resolved };
      runs.push({ plan, from: { runDir: dir, lock }, label: m.input.display });
    } catch (err) {
      lock?.();
      if (!isBounceError(err) || err.exitCode !== EXIT.usage) throw unlocking(runs, err);
      problems.push(about(m.run_id, err.line));
    }
  }
  if (problems.length > 0) throw unlocking(runs, refuseDocuments(problems, dirs.length, io, 'runs'));
  const agents = runs.flatMap((r) => [r.plan.agents.reviewer, ...(r.plan.passes > 1 ? [r.plan.agents.composer] : [])]);
  const concurrency = agents.length ? concurrencyOf(concurrencyFlag, loaded.config.concurrency, agents) : 1;
  if (!opts.quiet)
    io.stderr.write(`resuming ${plural(runs.length, 'run')}${done.length ? ` (${done.length} of the batch already ended)` : ''}, concurrency ${concurrency}\n`);
  const budget = batchAccount(flagBudget, loaded.config.budget, manifests);
  const cacheFolder = cacheFolderFor(opts.cache, loaded.config, { cwd: io.cwd, env: io.env, configDir: loaded.path ? dirname(loaded.path) : null });
  const place = stepPlace({ runsDir, config: opts.config }, io);
  return runBatch(runs, done, io, opts, { batchId: opts.batch ?? null, shard: null, concurrency, started, probe, budget, cacheFolder, place });
}
