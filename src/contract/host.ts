import type { HostErrorType } from '../vocabulary.js';
import {
  AdapterResponseSchema,
  type AdapterRequest,
  type AdapterSuccess,
  type CheckResult,
  CheckResultSchema,
  type ResolvedAgent,
  type Usage,
} from './contract.js';
import { endGroup, guardGroup, reapAfterExit, terminateGroup } from './process-group.js';

/** Failures the runner sees: the adapter's own typed errors plus what the host observed. */
export type { HostErrorType } from '../vocabulary.js';

export interface HostError {
  type: HostErrorType;
  message: string;
  retry_after_ms?: number;
  /** `quota`: when the limit resets (ISO 8601), when the provider said. */
  resets_at?: string;
  status?: number;
}

export type HostResult = {
  /** What the adapter printed (for a built-in run in-process: its response as one JSON line). */
  stdout: string;
  /** The adapter's diagnostics: a program's stderr, or the stderr of the CLI a built-in ran (secrets blanked). */
  stderr: string;
  /** The adapter program's exit code; null when it was killed or ran in-process. */
  exitCode: number | null;
  durationMs: number;
} & ({ ok: true; response: AdapterSuccess } | { ok: false; error: HostError; usage?: Usage });

export type HostBase = Pick<HostResult, 'stdout' | 'stderr' | 'exitCode' | 'durationMs'>;

export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bound on what the adapter may print; beyond it the reply is rejected. */
  maxOutputBytes: number;
  /** The adapter's whole environment; the runner's own when not given. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * Aborted when the run is over: a CLI that has given its answer and is still winding down
   * is then killed at once rather than waited for (built-in CLI adapters; a program's
   * dispatch ends with its process anyway).
   */
  release?: AbortSignal;
  /**
   * The request may go only once this settles: the runner has its dispatch on disk by then.
   * A built-in CLI adapter that says so (AdapterProgram.startsEarly) starts its CLI at once
   * and writes the prompt then; every other adapter is called only then. If it rejects,
   * nothing is sent and the call ends `interrupted`.
   */
  ready?: Promise<void>;
}

const KILL_GRACE_MS = 2000;
/** Bound on an adapter program's stderr, which is an artifact rather than a reply. */
export const MAX_STDERR_BYTES = 64 * 1024 * 1024;
const EXIT_GRACE_MS = 250;

/** Strips ANSI escape sequences a CLI may print even when asked not to. */
export function stripAnsi(text: string): string {
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
  const { execa } = await import('execa');
  const child = execa(agent.command, [...agent.args, ...extraArgs], {
    input: JSON.stringify(request),
    detached: true,
    reject: false,
    stripFinalNewline: false,
    // stderr is an artifact, not a reply: bound it separately and generously.
    maxBuffer: { stdout: opts.maxOutputBytes, stderr: MAX_STDERR_BYTES },
    env: opts.env,
    extendEnv: opts.env === undefined,
    cwd: opts.cwd,
    encoding: 'utf8',
  });
  guardGroup(child.pid);
  let reason: 'timeout' | 'interrupted' | null = null;
  const killGroup = (why: 'timeout' | 'interrupted'): void => {
    reason ??= why;
    terminateGroup(child.pid, KILL_GRACE_MS);
  };
  const timer = setTimeout(() => killGroup('timeout'), opts.timeoutMs);
  reapAfterExit(child, EXIT_GRACE_MS);
  const onAbort = (): void => killGroup('interrupted');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  const result = await child;
  clearTimeout(timer);
  opts.signal?.removeEventListener('abort', onAbort);
  // Whatever the adapter left behind in its group goes too.
  endGroup(child.pid);
  const base = {
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
    exitCode: result.exitCode ?? null,
    durationMs: Date.now() - started,
  };
  const failed = (type: HostErrorType, message: string): HostResult => ({ ...base, ok: false, error: { type, message } });
  if (reason) return stopped(agent, reason, opts, base);
  if (result.code === 'ENOENT' || (result.failed && /ENOENT/.test(String(result.message)) && result.exitCode === undefined)) {
    return failed('not_found', `adapter program not found: ${agent.command}`);
  }
  if (result.isMaxBuffer) {
    // execa cuts the stream that hit its bound at that bound: the one at its bound is the one.
    if (base.stderr.length >= MAX_STDERR_BYTES) return failed('invalid_response', `${agent.spec} printed more than 64 MiB on stderr and was stopped`);
    return failed('invalid_response', `${agent.spec} printed more than ${opts.maxOutputBytes} characters on stdout`);
  }
  return interpret(agent, base);
}

/** The result of a call the runner stopped: its deadline passed, or the run was interrupted. */
export function stopped(agent: ResolvedAgent, reason: 'timeout' | 'interrupted', opts: CallOptions, base: HostBase): HostResult {
  if (reason === 'interrupted') return { ...base, ok: false, error: { type: 'interrupted', message: 'interrupted' } };
  const message = `${agent.spec} did not answer within ${Math.round(opts.timeoutMs / 1000)} s; its process tree was killed`;
  return { ...base, ok: false, error: { type: 'timeout', message } };
}

function interpret(agent: ResolvedAgent, base: HostBase): HostResult {
  const text = stripAnsi(base.stdout).trim();
  let json: unknown;
  try {
    json = parseLoose(text);
  } catch {
    const what = base.exitCode === 0 ? 'printed no JSON response' : `exited with code ${base.exitCode} without a JSON response`;
    const tail = lastStderrLine(base.stderr);
    return {
      ...base,
      ok: false,
      error: { type: base.exitCode === 0 ? 'invalid_response' : 'crash', message: `${agent.spec} ${what}${tail ? `: ${tail}` : ''}` },
    };
  }
  return fromResponse(agent, json, base);
}

/** An adapter's answer checked against the contract: a bad shape is `invalid_response`. */
export function fromResponse(agent: ResolvedAgent, json: unknown, base: HostBase): HostResult {
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

/** The whole output as JSON, else its last non-blank line: log lines before a JSON answer are tolerated. */
export function lastJson(text: string): unknown {
  return parseLoose(stripAnsi(text).trim());
}

/**
 * Runs a program's `<program> --check` with the agent's options on stdin. A program that
 * is not found is a `not_found` problem; one that prints no check result, a `no_check` one.
 */
export async function checkAdapter(agent: ResolvedAgent, timeoutMs = 15_000, env?: NodeJS.ProcessEnv): Promise<CheckResult> {
  const result = await callAdapter(agent, agent.options as Record<string, unknown>, { timeoutMs, maxOutputBytes: 1_000_000, env }, ['--check']);
  const failed = (kind: 'not_found' | 'no_check', message: string, fix: string): CheckResult => ({
    ok: false,
    version: null,
    problems: [{ kind, message, fix }],
    warnings: [],
    resolved: {},
  });
  if (!result.ok && result.error.type === 'not_found')
    return failed('not_found', result.error.message, 'check the program after cmd: (a path, or a name on PATH)');
  try {
    return CheckResultSchema.parse(lastJson(result.stdout));
  } catch {
    const why = result.ok ? 'printed no check result' : result.error.message;
    return failed('no_check', `${agent.spec} --check failed: ${why}`, 'answer --check as docs/adapter-contract.md describes');
  }
}
