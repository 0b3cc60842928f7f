/**
 * The composition root: the world a command gives the engine in this process (the real
 * dispatcher, warm starts, the recorder's secrets, the Io's signal and env, progress on
 * stderr), and what a refine says before its first dispatch.
 */
import { type Chosen, skippedWarnings } from '../adapters/choose.js';
import { callAgent } from '../adapters/call-agent.js';
import { runSecrets, withoutSecrets } from '../adapters/secrets.js';
import { runCheck } from '../checks/run-check.js';
import { WarmStarts } from '../adapters/warm.js';
import type { CheckProblem } from '../contract/contract.js';
import type { EngineDeps, EventSink } from '../engine/deps.js';
import type { RunPlan } from '../engine/plan.js';
import type { Io } from '../io.js';
import type { Probe } from '../kit/detect.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import type { RecorderOptions } from '../store/recorder.js';
import { createProgress, progressEvents } from '../ui/progress.js';
import { cachingDispatcher } from '../cache/dispatcher.js';
import { ResponseCache } from '../cache/entries.js';

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

/** The run's agents that are a person (the human agent), by spec: progress leaves their terminal to them. */
const people = (plan: RunPlan): Set<string> =>
  new Set(
    Object.values(plan.agents)
      .filter((a) => a.adapter === 'human')
      .map((a) => a.spec),
  );

/**
 * What the engine gets from a command run in this process: the real dispatcher, the Io's
 * signal and env, progress on stderr. `cacheFolder`: the response cache's folder (--cache), or none.
 */
export function engineDeps(
  io: Io,
  quiet: boolean,
  probe: Probe,
  plan: RunPlan,
  cacheFolder: string | null = null,
  /** Agents the run calls besides its reviewer and composer (a judge): their keys are blanked too. */
  others: readonly ResolvedAgent[] = [],
): EngineDeps {
  // The run's CLIs started ahead of their dispatches (the engine says when, and closes it).
  const warm = new WarmStarts(io.env, probe);
  const secrets = runSecrets(plan.agents, io.env, others);
  // Built-in adapters run in this process; cmd: programs are spawned. The probe holds what preflight found (CLI versions).
  const dispatch: EngineDeps['dispatch'] = (agent, request, opts) => callAgent(agent, request, { ...opts, probe, warm });
  return {
    // The key values the run's agents may read never reach a file of the run.
    recorder: { secrets, ...killAtWrite(io.env) },
    dispatch,
    warm,
    ...(cacheFolder ? withCache(io, dispatch, cacheFolder, secrets) : {}),
    signal: io.signal,
    env: io.env,
    events: progressEvents(createProgress(io, quiet, people(plan)), io, quiet),
    retryBaseMs: Number(io.env.BOUNCE_RETRY_BASE_MS) || 1000,
    ...(plan.checks?.length ? { check: checkRunner(io, plan) } : {}),
  };
}

/**
 * The check commands' runner (docs/checks.md): in the command's working directory, where the
 * checks' own config files are found as when you run them yourself; with bounce's environment
 * less the agents' keys and anything named like a credential; stopped by the command's Ctrl-C.
 */
function checkRunner(io: Io, plan: RunPlan): NonNullable<EngineDeps['check']> {
  const env = withoutSecrets(io.env, [plan.agents.reviewer, plan.agents.composer]);
  return (check, file) => runCheck(check, file, { cwd: io.cwd, env, signal: io.signal });
}

/**
 * The response cache around the dispatcher (src/cache/). Without starts ahead: a CLI started
 * for a dispatch the cache then answers would be started for nothing, on every pass of an
 * unchanged document.
 */
function withCache(io: Io, dispatch: EngineDeps['dispatch'], folder: string, secrets: readonly string[]): Partial<EngineDeps> {
  const said = new Set<string>();
  const warn = (message: string): void => {
    if (said.has(message)) return;
    said.add(message);
    io.stderr.write(`warning: ${message}\n`);
  };
  const cached = cachingDispatcher(dispatch, new ResponseCache(folder), secrets, warn);
  return { dispatch: cached.dispatch, accepted: cached.accepted, cached: cached.cached, warm: undefined };
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

/**
 * What a caller other than the terminal (the MCP server, src/mcp/) adds to a run: an observer
 * of the engine's events beside the progress lines, and a check of the agents the run would
 * call, made before the first dispatch (it throws to refuse them).
 */
export interface RunHooks {
  events?: EventSink;
  vetAgents?: (agents: readonly ResolvedAgent[]) => void;
}

/** `deps` with the hooks' observer told every event after the progress lines are. */
export function withHooks(deps: EngineDeps, hooks: RunHooks): EngineDeps {
  const { events: observe } = hooks;
  if (!observe) return deps;
  const shown = deps.events;
  return {
    ...deps,
    events: (e) => {
      shown?.(e);
      observe(e);
    },
  };
}
