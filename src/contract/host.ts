import type { ChildProcess } from 'node:child_process';
import type { HostErrorType } from '../vocabulary.js';
import { isBounceError } from '../errors.js';
import {
  AdapterResponseSchema,
  type AdapterRequest,
  type AdapterSuccess,
  type CheckResult,
  CheckResultSchema,
  type ResolvedAgent,
  type Usage,
} from './contract.js';
import { endGroup, reapAfterExit, spawnGuarded, terminateGroup } from './process-group.js';

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

/**
 * Terminal escape sequences: CSI (colour, cursor, erase), the strings OSC, DCS, SOS, PM and
 * APC ended by BEL or ST (titles, hyperlinks), and every other ESC sequence. Only the 7-bit
 * forms: a raw ESC cannot stand in JSON text, so stripping them never changes a response.
 */
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[\]PX^_][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[ -/]*[0-~]/g;
/** C0 and C1 control characters but the whitespace ones (tab, line breaks), which become a space. */
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;

/** Strips ANSI escape sequences a CLI may print even when asked not to. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/**
 * `text` as one line that is safe to print: escape sequences and control characters removed,
 * line breaks and runs of whitespace made one space, trimmed. What bounce makes of an
 * adapter's `error.message` and `warnings` (docs/adapter-contract.md).
 */
export function terminalLine(text: string): string {
  return stripAnsi(text).replace(CONTROL, '').replace(/\s+/g, ' ').trim();
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
  let child: ChildProcess;
  try {
    // Guarded by the watchdog from its spawn (a plain spawn: the line naming its group is in the watchdog's pipe before the
    // program can do anything), or refused with nothing started when no watchdog can run.
    child = spawnGuarded(agent.command, [...agent.args, ...extraArgs], { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    const error: HostError = isBounceError(err)
      ? { type: 'config', message: err.line }
      : { type: 'crash', message: `${agent.spec} could not be started: ${err instanceof Error ? err.message : String(err)}` };
    return { stdout: '', stderr: '', exitCode: null, durationMs: Date.now() - started, ok: false, error };
  }
  let reason: 'timeout' | 'interrupted' | null = null;
  let over: 'stdout' | 'stderr' | null = null;
  const killGroup = (why: 'timeout' | 'interrupted' | null): void => {
    if (why) reason ??= why;
    terminateGroup(child.pid, KILL_GRACE_MS);
  };
  // Each stream kept up to its bound (stdout: the reply, in characters; stderr: an artifact, bounded generously); past it the program is stopped.
  const collect = (stream: NodeJS.ReadableStream | null, name: 'stdout' | 'stderr', max: number): (() => string) => {
    let text = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      if (text.length + chunk.length <= max) text += chunk;
      else if (over === null) {
        text += chunk.slice(0, max - text.length);
        over = name;
        killGroup(null);
      }
    });
    return () => text;
  };
  const stdout = collect(child.stdout, 'stdout', opts.maxOutputBytes);
  const stderr = collect(child.stderr, 'stderr', MAX_STDERR_BYTES);
  // A program that exits before reading its request (EPIPE) still has its output read.
  child.stdin?.on('error', () => {});
  child.stdin?.end(JSON.stringify(request));
  const timer = setTimeout(() => killGroup('timeout'), opts.timeoutMs);
  reapAfterExit(child, EXIT_GRACE_MS);
  const onAbort = (): void => killGroup('interrupted');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  const ended = await new Promise<{ exitCode: number | null; killedBy: NodeJS.Signals | null; spawnError: NodeJS.ErrnoException | null }>((resolve) => {
    child.on('error', (err: NodeJS.ErrnoException) => {
      // Not started at all (ENOENT, EACCES): there is no process to wait for.
      if (child.pid === undefined) resolve({ exitCode: null, killedBy: null, spawnError: err });
    });
    child.on('close', (code, killedBy) => resolve({ exitCode: code, killedBy, spawnError: null }));
  });
  clearTimeout(timer);
  opts.signal?.removeEventListener('abort', onAbort);
  // Whatever the adapter left behind in its group goes too.
  endGroup(child.pid);
  const base = { stdout: stdout(), stderr: stderr(), exitCode: ended.exitCode, durationMs: Date.now() - started };
  const failed = (type: HostErrorType, message: string): HostResult => ({ ...base, ok: false, error: { type, message } });
  if (reason) return stopped(agent, reason, opts, base);
  if (ended.spawnError?.code === 'ENOENT') return failed('not_found', `adapter program not found: ${agent.command}`);
  if (ended.spawnError) return failed('crash', `${agent.spec} could not be started: ${ended.spawnError.message}`);
  if (over === 'stderr') return failed('invalid_response', `${agent.spec} printed more than 64 MiB on stderr and was stopped`);
  if (over === 'stdout') return failed('invalid_response', `${agent.spec} printed more than ${opts.maxOutputBytes} characters on stdout`);
  return interpret(agent, base, ended.killedBy);
}

/** The result of a call the runner stopped: its deadline passed, or the run was interrupted. */
export function stopped(agent: ResolvedAgent, reason: 'timeout' | 'interrupted', opts: CallOptions, base: HostBase): HostResult {
  if (reason === 'interrupted') return { ...base, ok: false, error: { type: 'interrupted', message: 'interrupted' } };
  const message = `${agent.spec} did not answer within ${Math.round(opts.timeoutMs / 1000)} s; its process tree was killed`;
  return { ...base, ok: false, error: { type: 'timeout', message } };
}

/** The adapter's answer; `killedBy`, the signal that ended it when it did not exit by itself. */
function interpret(agent: ResolvedAgent, base: HostBase, killedBy: NodeJS.Signals | null = null): HostResult {
  const text = stripAnsi(base.stdout).trim();
  let json: unknown;
  try {
    json = parseLoose(text);
  } catch {
    const what =
      base.exitCode === 0
        ? 'printed no JSON response'
        : base.exitCode === null && killedBy
          ? `was ended by ${killedBy} without a JSON response`
          : `exited with code ${base.exitCode} without a JSON response`;
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
        // The issue may quote a key the adapter printed.
        message: terminalLine(`${agent.spec} response breaks the adapter contract at ${issue?.path.join('.') || 'top level'}: ${issue?.message}`),
      },
    };
  }
  const response = parsed.data;
  // What reaches the records and the terminal: one line each, no escape sequence or control character.
  if (!response.ok) return { ...base, ok: false, error: { ...response.error, message: terminalLine(response.error.message) }, usage: response.usage };
  if (response.warnings) response.warnings = response.warnings.map(terminalLine).filter((w) => w !== '');
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
  const line = terminalLine(stripAnsi(stderr).trim().split('\n').pop() ?? '');
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
