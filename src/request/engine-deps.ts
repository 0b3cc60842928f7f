/**
 * The composition root: the world a command gives the engine in this process (the real
 * dispatcher, warm starts, the recorder's secrets, the Io's signal and env, progress on
 * stderr), and what a refine says before its first dispatch.
 */
import { type Chosen, skippedWarnings } from '../adapters/choose.js';
import { callAgent } from '../adapters/call-agent.js';
import { runSecrets } from '../adapters/secrets.js';
import { WarmStarts } from '../adapters/warm.js';
import type { CheckProblem } from '../contract/contract.js';
import type { EngineDeps } from '../engine/deps.js';
import type { RunPlan } from '../engine/plan.js';
import type { Io } from '../io.js';
import type { Probe } from '../kit/detect.js';
import type { RecorderOptions } from '../store/recorder.js';
import { createProgress, progressEvents } from '../ui/progress.js';

/**
 * Fault injection for the crash tests (test/integration/crash.test.ts): with
 * BOUNCE_TEST_KILL_AT_WRITE=k the process SIGKILLs itself just before the recorder's k-th
 * write of this command, as a crash or `kill -9` would land between two writes.
 */
function killAtWrite(env: NodeJS.ProcessEnv): Pick<RecorderOptions, 'beforeWrite'> {
  const k = Number(env.BOUNCE_TEST_KILL_AT_WRITE);
  if (!Number.isSafeInteger(k) || k < 1) return {};
  let n = 0;
  return { beforeWrite: () => void (++n === k && process.kill(process.pid, 'SIGKILL')) };
}

/** What the engine gets from a command run in this process: the real dispatcher, the Io's signal and env, progress on stderr. */
export function engineDeps(io: Io, quiet: boolean, probe: Probe, plan: RunPlan): EngineDeps {
  // The run's CLIs started ahead of their dispatches (the engine says when, and closes it).
  const warm = new WarmStarts(io.env, probe);
  return {
    // The key values the run's agents may read never reach a file of the run.
    recorder: { secrets: runSecrets(plan.agents, io.env), ...killAtWrite(io.env) },
    // Built-in adapters run in this process; cmd: programs are spawned. The probe holds what preflight found (CLI versions).
    dispatch: (agent, request, opts) => callAgent(agent, request, { ...opts, probe, warm }),
    warm,
    signal: io.signal,
    env: io.env,
    events: progressEvents(createProgress(io, quiet), io, quiet),
    retryBaseMs: Number(io.env.BOUNCE_RETRY_BASE_MS) || 1000,
  };
}

/**
 * What a refine (one document or a batch) says before its first dispatch: the default CLIs left
 * out for want of a login, then the agents' check warnings. A login that cannot be verified
 * offline is for `bounce check`; on every run it would only be noise.
 */
export function printStartWarnings(io: Io, chosen: Pick<Chosen, 'skipped' | 'unverified'>, warnings: readonly CheckProblem[]): void {
  for (const line of skippedWarnings(chosen.skipped, chosen.unverified)) io.stderr.write(`${line}\n`);
  for (const w of warnings.filter((x) => x.kind !== 'login_unverified')) io.stderr.write(`warning: ${w.fix ? `${w.message}: ${w.fix}` : w.message}\n`);
}
