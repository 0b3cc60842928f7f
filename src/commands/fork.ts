import { loadConfig, runsDirFor } from '../config/load.js';
import { createRun, runDocument } from '../engine/run-document.js';
import type { Io } from '../io.js';
import { engineDeps } from '../request/engine-deps.js';
import { type ForkOptions, forkPlan } from '../request/fork-request.js';
import { runProbe } from '../request/plan-request.js';
import { resolveRunDir } from '../store/resolve-run.js';
import { printRunResult } from '../ui/run-summary.js';

export type { ForkOptions } from '../request/fork-request.js';

/**
 * `bounce fork <run> --from-pass K`: a new run whose passes 1..K-1 are the original's (their
 * documents copied, their records linked by id and sha256, nothing sent again) and which goes
 * on live from pass K, with other agents, passes, goal, context, prompts or edit format if asked.
 */
export async function runFork(opts: ForkOptions, io: Io): Promise<number> {
  const runsDir = runsDirFor(io.cwd, loadConfig(io.cwd, io.env, opts.config), opts.runsDir);
  const runDir = resolveRunDir(opts.run, runsDir, io.cwd);
  const probe = runProbe(io);
  const { plan, base } = await forkPlan(runDir, opts, io, probe);
  const deps = engineDeps(io, Boolean(opts.quiet), probe, plan);
  const made = createRun(plan, deps, base);
  const result = await runDocument(plan, deps, made);
  printRunResult(result, io, { json: opts.json, quiet: opts.quiet, stdoutDocument: plan.output.kind === 'stdout', config: opts.config });
  return result.exitCode;
}
