/** What `bounce replay` decides before it runs: whether a run can be replayed, the plan it is replayed with, and the recorded answers. */
import { resolve } from 'node:path';
import { loadConfig, runsDirFor } from '../config/load.js';
import { BUDGET_ERROR } from '../engine/budget.js';
import type { RunPlan } from '../engine/plan.js';
import { isBounceError, usageError } from '../errors.js';
import type { Io } from '../io.js';
import type { Probe } from '../kit/detect.js';
import { assertOriginal, NotReplayable, type RecordedCall, recordedCalls } from '../replay/recorded.js';
import type { RunManifest } from '../store/manifest.js';
import { assertRunsDirWritable } from '../store/run-folder.js';
import { runHintFlags } from '../store/run-location.js';
import { runName } from './fork-request.js';
import { completePlan, requestFromManifest } from './plan-request.js';
import { readForResume } from './resume-request.js';

export interface ReplayOptions {
  runs: string[];
  /** `--batch <id>`: every run of that batch in the runs folder. */
  batch?: string;
  runsDir?: string;
  config?: string;
  /** Prompt templates to replay with instead of the recorded ones: the prompt change under test. */
  prompts?: string;
  /** Use the recorded reply of a dispatch whose prompt changed, and mark it `replay.drift`. */
  acceptDrift?: boolean;
  /** Print the whole diff of a drifted prompt, not its first lines. */
  diffPrompts?: boolean;
  json?: boolean;
  quiet?: boolean;
}

const refuse = (m: Pick<RunManifest, 'run_id'>, why: string, fix: string): never => {
  throw usageError(`run ${m.run_id} cannot be replayed: ${why}`, fix, 'replay');
};

/** A replay needs a finished run (that its records are what run.json says is checked as they are read: recorded.ts). */
function assertReplayable(m: RunManifest, where: () => string): void {
  if (m.status === 'running' || m.status === 'interrupted')
    refuse(
      m,
      `it is ${m.status === 'running' ? 'still running (or crashed)' : 'interrupted'}, so its recording ends before the run did`,
      `finish it with bounce resume ${m.run_id}${where()}, then replay it`,
    );
  if (m.error?.type === BUDGET_ERROR)
    refuse(m, 'it was stopped by its budget, which a replay (at no cost) would not stop at', 'replay a run that ended on its own');
}

/** The plan of a replay of the run in `runDir` and the answers recorded there. Every refusal is exit 2, before anything is written. */
export async function replayPlan(
  runDir: string,
  opts: ReplayOptions,
  io: Io,
  probe: Probe,
): Promise<{ plan: RunPlan; original: RunManifest; calls: Map<string, RecordedCall> }> {
  const m = readForResume(runDir);
  assertReplayable(m, () => runHintFlags(runDir, io, opts.config));
  let calls: Map<string, RecordedCall>;
  try {
    assertOriginal(runDir, m);
    calls = recordedCalls(runDir, m);
  } catch (err) {
    if (err instanceof NotReplayable) return refuse(m, err.message, err.fix);
    throw err;
  }
  let built: ReturnType<typeof requestFromManifest>;
  try {
    // Agents are resolved again only to shape the prompts as the run did; none is called.
    built = requestFromManifest(m, runDir, io, { ...opts, budget: {} });
  } catch (err) {
    if (isBounceError(err)) return refuse(m, err.message, err.hint ?? 'check the config the run was made with');
    throw err;
  }
  const { request, config } = built;
  // A replay is a run of its own, in the runs folder as usual, writing nothing but its folder.
  request.output = { kind: 'run' };
  request.runsDir = runsDirFor(io.cwd, loadConfig(io.cwd, io.env, opts.config), opts.runsDir);
  request.name = runName(m.run_id);
  delete request.batchId;
  if (opts.prompts !== undefined) request.promptsDir = resolve(io.cwd, opts.prompts);
  assertRunsDirWritable(request.runsDir);
  const { plan } = await completePlan(request, config, io.env, { checkAgents: false, probe, replay: true });
  // It costs nothing, so no budget of today's config may stop it where the recording did not stop.
  return { plan: { ...plan, budget: {}, replayOf: m.run_id }, original: m, calls };
}
