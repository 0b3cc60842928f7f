/**
 * One dispatch to any agent. A built-in adapter runs inside the runner behind the same
 * contract as a program: the request and the response are validated as the host validates
 * a program's stdout, the deadline and the abort signal reach the adapter as an
 * AbortSignal (any CLI it starts has its process group killed), and what the adapter
 * would have written to stderr is kept. `cmd:` agents stay subprocesses (host.ts).
 */
import { type AdapterContext, answer, type PreparedCli } from '../kit/adapter-kit.js';
import { loadBuiltin } from './builtins.js';
import { dropWarm, removeTempDir } from '../kit/cli-run.js';
import type { AdapterRequest, AdapterResponse } from '../contract/contract.js';
import { createProbe, type Probe } from '../kit/detect.js';
import { callAdapter, type CallOptions, fromResponse, type HostResult, stopped, terminalLine } from '../contract/host.js';
import type { ResolvedAgent } from './registry.js';

/** How long a stopped adapter gets to kill its CLI (whose group gets SIGKILL after 1.5 s) and return. */
const STOP_GRACE_MS = 2500;
const MAX_STDERR_CHARS = 64 * 1024 * 1024;

export interface AgentCallOptions extends CallOptions {
  /** The CLI versions this command invocation already asked for (preflight's): saves a `--version`. */
  probe?: Probe;
  /** The run's CLIs started ahead of their dispatch (src/adapters/warm.ts): this dispatch's, if one was, is used. */
  warm?: { take(agent: ResolvedAgent): Promise<PreparedCli | null> };
}

type Outcome = { value: AdapterResponse } | { crash: string };

export async function callAgent(agent: ResolvedAgent, request: AdapterRequest, opts: AgentCallOptions): Promise<HostResult> {
  const started = Date.now();
  const notSent = (): HostResult => stopped(agent, 'interrupted', opts, { stdout: '', stderr: '', exitCode: null, durationMs: Date.now() - started });
  if (agent.adapter === 'cmd') return (await mayGo(opts.ready)) ? callAdapter(agent, request, opts) : notSent();
  const program = await loadBuiltin(agent.adapter);
  // Only an adapter that holds its prompt back itself may start before the dispatch is on disk.
  const early = program.startsEarly === true && opts.ready !== undefined;
  if (!early && !(await mayGo(opts.ready))) return notSent();
  const warmed = program.prepare && opts.warm ? await opts.warm.take(agent) : null;
  const controller = new AbortController();
  let reason: 'timeout' | 'interrupted' | null = null;
  const stop = (why: 'timeout' | 'interrupted'): void => {
    reason ??= why;
    controller.abort();
  };
  const timer = setTimeout(() => stop('timeout'), opts.timeoutMs);
  const onAbort = (): void => stop('interrupted');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  let stderr = '';
  const ctx: AdapterContext = {
    env: opts.env ?? process.env,
    signal: controller.signal,
    stderr: (chunk) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr += chunk;
    },
    probe: opts.probe ?? createProbe(),
    ...(opts.release ? { release: opts.release } : {}),
    ...(early ? { ready: opts.ready } : {}),
    ...(warmed ? { warm: warmed } : {}),
  };
  const settled: Promise<Outcome> = answer(program, request, ctx).then(
    (value) => ({ value }),
    // Only an AdapterCrash escapes answer(): the adapter dies without answering, as a program would.
    (err: unknown) => ({ crash: err instanceof Error ? err.message : String(err) }),
  );
  let outcome: Outcome | null;
  try {
    outcome = await Promise.race([settled, until(controller.signal)]);
    // Stopped: give the adapter the time to kill its CLI's group, but no more.
    if (outcome === null) outcome = await Promise.race([settled, sleep(STOP_GRACE_MS)]);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
    // A start made ahead that the adapter never got to use (it failed before starting its CLI) is killed.
    if (warmed?.warm && !warmed.warm.used) removeTempDir(warmed.tmp, dropWarm(warmed.warm));
  }
  const stdout = outcome && 'value' in outcome ? `${JSON.stringify(outcome.value)}\n` : '';
  const base = { stdout, stderr, exitCode: null, durationMs: Date.now() - started };
  if (reason) return stopped(agent, reason, opts, base);
  // Called off before the prompt could go (an early start): whatever the adapter made of that, nothing was sent.
  if (early && !(await mayGo(opts.ready))) return notSent();
  if (outcome === null || 'crash' in outcome) {
    const why = outcome?.crash ?? 'no answer';
    // What runAdapter prints to stderr when the same adapter dies as a program.
    return { ...base, stderr: `${stderr}${why}\n`, ok: false, error: { type: 'crash', message: `${agent.spec} crashed: ${terminalLine(why)}` } };
  }
  if (stdout.length > opts.maxOutputBytes)
    return { ...base, ok: false, error: { type: 'invalid_response', message: `${agent.spec} printed more than ${opts.maxOutputBytes} characters` } };
  return fromResponse(agent, outcome.value, base);
}

/** Whether the request may go: true once `ready` resolves (or when there is none), false if it rejects. */
async function mayGo(ready: Promise<void> | undefined): Promise<boolean> {
  if (!ready) return true;
  return ready.then(
    () => true,
    () => false,
  );
}

/** Resolves to null when the signal aborts. */
function until(signal: AbortSignal): Promise<null> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(null);
    else signal.addEventListener('abort', () => resolve(null), { once: true });
  });
}

function sleep(ms: number): Promise<null> {
  return new Promise((resolve) => setTimeout(() => resolve(null), ms).unref());
}
