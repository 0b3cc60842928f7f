import { loadConfig, runsDirFor } from '../config/load.js';
import { type RunResult, runDocument } from '../engine/run-document.js';
import type { RunPlan } from '../engine/plan.js';
import { agentsCalled } from '../request/refine-request.js';
import type { Io } from '../io.js';
import { budgetFromFlags } from '../request/budget-flags.js';
import { engineDeps, type RunHooks, withHooks } from '../request/engine-deps.js';
import { cacheFolderFor } from '../cache/folder.js';
import { dirname } from 'node:path';
import { runProbe } from '../request/plan-request.js';
import { isExtension, readForResume, type ResumeOptions, resumePlan } from '../request/resume-request.js';
import { resolveRunDir } from '../store/resolve-run.js';
import { printRunResult } from '../ui/run-summary.js';

export type { ResumeOptions } from '../request/resume-request.js';

/**
 * `bounce resume <run>`: finishes an interrupted, crashed or failed run from its last completed
 * pass, to the result and output a whole run would have reached. Refused (exit 2) when
 * the policy changed or an in-place input changed meanwhile. A run whose breaker opened
 * is resumed with the breaker closed again (run.json counts it in breaker.reopened).
 * With `--passes N` (and `--reviewer`, `--composer`) the run's plan changes: a not-converged
 * or converged run goes on to N passes from its last completed pass, recorded in `extensions`.
 */
export async function runResume(opts: ResumeOptions, io: Io): Promise<number> {
  const { result, plan } = await resumeRun(opts, io);
  printRunResult(result, io, { json: opts.json, quiet: opts.quiet, stdoutDocument: plan.output.kind === 'stdout', config: opts.config });
  return result.exitCode;
}

/** A resume to its end, printing nothing on stdout: what `bounce_resume` (src/mcp/) calls. */
export async function resumeRun(opts: ResumeOptions, io: Io, hooks: RunHooks = {}): Promise<{ result: RunResult; plan: RunPlan }> {
  // The flags are checked before the run is looked for: a bad --max-* is the error to report.
  budgetFromFlags(opts);
  const loaded = loadConfig(io.cwd, io.env, opts.config);
  const runsDir = runsDirFor(io.cwd, loaded, opts.runsDir);
  const cache = cacheFolderFor(opts.cache, loaded.config, { cwd: io.cwd, env: io.env, configDir: loaded.path ? dirname(loaded.path) : null });
  const runDir = resolveRunDir(opts.run, runsDir, io.cwd);
  const manifest = readForResume(runDir);
  const probe = runProbe(io);
  const plan = await resumePlan(manifest, runDir, opts, io, probe);
  hooks.vetAgents?.(agentsCalled(plan));
  const from = { runDir, ...(isExtension(manifest, plan) ? { extend: true } : {}) };
  const result = await runDocument(plan, withHooks(engineDeps(io, Boolean(opts.quiet), probe, plan, cache), hooks), from);
  return { result, plan };
}
