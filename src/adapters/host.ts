import { execa } from 'execa';
import type { HostErrorType } from '../vocabulary.js';
import { AdapterResponseSchema, CheckResultSchema, type AdapterRequest, type AdapterSuccess, type CheckResult, type Usage } from './contract.js';
import type { ResolvedAgent } from './registry.js';

/** Failures the runner sees: the adapter's own typed errors plus what the host observed. */
export type { HostErrorType } from '../vocabulary.js';

export interface HostError {
  type: HostErrorType;
  message: string;
  retry_after_ms?: number;
  status?: number;
}

export type HostResult = {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  durationMs: number;
} & ({ ok: true; response: AdapterSuccess } | { ok: false; error: HostError; usage?: Usage });

export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bound on what the adapter may print; beyond it the reply is rejected. */
  maxOutputBytes: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

const KILL_GRACE_MS = 2000;
const EXIT_GRACE_MS = 250;

/** Strips ANSI escape sequences a CLI may print even when asked not to. */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(\u0007|\u001b\\)/g, '');
}

/**
 * Spawns the adapter in its own process group, writes the request to stdin and closes
 * it, and waits for one JSON object on stdout. On the deadline or an abort the whole
 * group is killed (SIGTERM, then SIGKILL), so CLIs the adapter started die with it.
 */
export async function callAdapter(
  agent: ResolvedAgent,
  request: AdapterRequest | Record<string, unknown>,
  opts: CallOptions,
  extraArgs: string[] = [],
): Promise<HostResult> {
  const started = Date.now();
  const child = execa(agent.command, [...agent.args, ...extraArgs], {
    input: JSON.stringify(request),
    detached: true,
    reject: false,
    stripFinalNewline: false,
    // stderr is an artifact, not a reply: bound it separately and generously.
    maxBuffer: { stdout: opts.maxOutputBytes, stderr: 64 * 1024 * 1024 },
    env: opts.env,
    extendEnv: opts.env === undefined,
    cwd: opts.cwd,
    encoding: 'utf8',
  });
  let reason: 'timeout' | 'interrupted' | null = null;
  const killGroup = (why: 'timeout' | 'interrupted'): void => {
    reason ??= why;
    signalGroup(child.pid, 'SIGTERM');
    setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS).unref();
  };
  const timer = setTimeout(() => killGroup('timeout'), opts.timeoutMs);
  // A child the adapter left behind can hold stdout open after the adapter exited; reap it.
  child.once('exit', () => setTimeout(() => signalGroup(child.pid, 'SIGKILL'), EXIT_GRACE_MS).unref());
  const onAbort = (): void => killGroup('interrupted');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  const result = await child;
  clearTimeout(timer);
  opts.signal?.removeEventListener('abort', onAbort);
  // Whatever the adapter left behind in its group goes too.
  signalGroup(child.pid, 'SIGKILL');
  const base = {
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
    exitCode: result.exitCode ?? null,
    durationMs: Date.now() - started,
  };
  const failed = (type: HostErrorType, message: string): HostResult => ({ ...base, ok: false, error: { type, message } });
  if (reason === 'timeout') return failed('timeout', `${agent.spec} did not answer within ${Math.round(opts.timeoutMs / 1000)} s; its process tree was killed`);
  if (reason === 'interrupted') return failed('interrupted', 'interrupted');
  if (result.code === 'ENOENT' || (result.failed && /ENOENT/.test(String(result.message)) && result.exitCode === undefined)) {
    return failed('not_found', `adapter program not found: ${agent.command}`);
  }
  if (result.isMaxBuffer) return failed('invalid_response', `${agent.spec} printed more than ${opts.maxOutputBytes} characters`);
  return interpret(agent, base);
}

function interpret(agent: ResolvedAgent, base: Omit<HostResult, 'ok' | 'error' | 'response'>): HostResult {
  const text = stripAnsi(base.stdout).trim();
  let json: unknown;
  try {
    json = parseLoose(text);
  } catch {
    {
      const what = base.exitCode === 0 ? 'printed no JSON response' : `exited with code ${base.exitCode} without a JSON response`;
      const tail = lastStderrLine(base.stderr);
      return {
        ...base,
        ok: false,
        error: { type: base.exitCode === 0 ? 'invalid_response' : 'crash', message: `${agent.spec} ${what}${tail ? `: ${tail}` : ''}` },
      };
    }
  }
  const parsed = AdapterResponseSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ...base,
      ok: false,
      error: {
        type: 'invalid_response',
        message: `${agent.spec} response breaks the adapter contract at ${issue?.path.join('.') || 'top level'}: ${issue?.message}`,
      },
    };
  }
  const response = parsed.data;
  if (!response.ok) return { ...base, ok: false, error: response.error, usage: response.usage };
  return { ...base, ok: true, response };
}

/** The whole output as JSON, else its last non-blank line: log lines before the response are tolerated. */
function parseLoose(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return JSON.parse(
      text
        .split('\n')
        .filter((l) => l.trim())
        .pop() ?? '',
    );
  }
}

function lastStderrLine(stderr: string): string {
  const line = stripAnsi(stderr).trim().split('\n').pop() ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}...` : line;
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Runs `<adapter> --check` with the agent's options on stdin. */
export async function checkAdapter(agent: ResolvedAgent, timeoutMs = 15_000, env?: NodeJS.ProcessEnv): Promise<CheckResult> {
  const result = await callAdapter(agent, agent.options as Record<string, unknown>, { timeoutMs, maxOutputBytes: 1_000_000, env }, ['--check']);
  const text = stripAnsi(result.stdout).trim();
  try {
    return CheckResultSchema.parse(parseLoose(text));
  } catch {
    const why = result.ok ? 'printed no check result' : result.error.message;
    return { ok: false, version: null, problems: [`${agent.spec} --check failed: ${why}`], warnings: [], resolved: {} };
  }
}
