/**
 * What the CLI adapters (claude, codex) share: run the CLI once in its own process group
 * with the prompt on stdin and a deadline, and read its JSON-lines output. Never retries.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rm } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fail, msUntil } from './outcome.js';
import type { AdapterResponse } from '../contract/contract.js';
import { findProgram, notFound } from './detect.js';
import { redact } from './endpoint.js';
import { stripAnsi } from '../contract/host.js';
import { endGroup, reapAfterExit, signalGroup, spawnGuarded, terminateGroup } from '../contract/process-group.js';
import type { CliFacts } from './facts.js';

export const MAX_CLI_OUTPUT_BYTES = 64 * 1024 * 1024;
/** Kill the CLI this long before the request's deadline, so the adapter can still answer. */
const DEADLINE_MARGIN_MS = 1000;
const KILL_GRACE_MS = 1500;
const EXIT_GRACE_MS = 250;
/** How long a CLI that has given its final result may take to exit before its group is killed. */
export const ANSWERED_GRACE_MS = 2000;

/** The CLI to run, or the `config` failure that says how to install it or point bounce at it. */
export function programOrFailure(cli: CliFacts, env: NodeJS.ProcessEnv): { program: string } | { failure: AdapterResponse } {
  const program = findProgram(cli, env);
  if (program) return { program };
  const nf = notFound(cli, env);
  return { failure: fail('config', `${nf.message}: ${nf.fix}`) };
}

export interface CliRun {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  /** The stream that went over MAX_CLI_OUTPUT_BYTES (the CLI was then killed), else null. */
  tooLarge: 'stdout' | 'stderr' | null;
  /** Set when the program could not be started at all. */
  spawnError: string | null;
  /** Settles when the CLI's process has exited (at once when it never started): a run that ends at the CLI's final result can come before. */
  exited: Promise<void>;
}

/** Where and how a CLI is started. */
export interface CliStart {
  program: string;
  args: string[];
  /** The child's whole environment (nothing else is inherited). */
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** A CLI started ahead of its dispatch (src/adapters/warm.ts): stdin open, nothing written. */
export interface WarmCli {
  start: CliStart;
  child: ChildProcess;
  startedAt: number;
  /** Settles when the process has exited. */
  exited: Promise<void>;
  /** Set by the run that used (or dropped) it: whoever holds it after that owns nothing. */
  used?: boolean;
}

/** Starts a CLI ahead of its dispatch, in its own process group; null when it cannot start. */
export function startWarm(start: CliStart): WarmCli | null {
  let child: ChildProcess;
  try {
    child = spawnGuarded(start.program, start.args, { env: start.env, cwd: start.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch {
    return null;
  }
  // A start that fails (ENOENT) is seen when the dispatch comes: it then starts the CLI itself.
  child.on('error', () => {});
  child.stdin?.on('error', () => {});
  if (child.pid === undefined) return null;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { start, child, startedAt: Date.now(), exited };
}

/** Kills a warm start that no dispatch took, with its group; settles when it has exited. */
export function dropWarm(warm: WarmCli): Promise<void> {
  endGroup(warm.child.pid);
  for (const stream of [warm.child.stdin, warm.child.stdout, warm.child.stderr]) stream?.destroy();
  return warm.exited;
}

/** A warm start a dispatch may use: this very start, alive, and young enough to wait for its prompt. */
function usable(warm: WarmCli, call: CliStart): boolean {
  const { start, child } = warm;
  return (
    start.program === call.program &&
    start.cwd === call.cwd &&
    start.env === call.env &&
    start.args.length === call.args.length &&
    start.args.every((a, i) => a === call.args[i]) &&
    child.exitCode === null &&
    child.signalCode === null &&
    Date.now() - warm.startedAt < EARLY_START_LIMIT_MS
  );
}

export interface CliCall extends CliStart {
  input: string;
  deadline: string;
  /** Aborted when the dispatch must stop: the CLI's whole group is killed. */
  signal: AbortSignal;
  /** Where the CLI's stderr goes (secrets blanked), as the dispatch's artifact. */
  stderr(chunk: string): void;
  /** Values to blank out of the stderr this adapter passes on. */
  secrets?: Array<string | undefined>;
  /**
   * Whether a line of stdout is the CLI's last word: its final result, after which nothing
   * it prints can change the answer. The run then resolves at that line (exit code null)
   * instead of waiting for the CLI to wind down and exit, and the CLI gets ANSWERED_GRACE_MS
   * to exit by itself before its group is killed. Without it the run resolves at exit.
   */
  answered?: (line: string) => boolean;
  /** Aborted when the run is over: a CLI that answered (see `answered`) and has not exited yet is killed at once (SIGKILL to its group). */
  release?: AbortSignal;
  /**
   * When given, the CLI is started at once but its prompt is written only once this
   * settles (AdapterContext.ready): the CLI loads while the runner records the dispatch. If
   * it rejects, nothing is sent and the CLI's group is killed. If it takes longer than
   * EARLY_START_LIMIT_MS, that start is dropped the same way and the CLI started again once
   * it settles: a CLI may stop waiting for its stdin (Claude Code gives up after 3 s).
   */
  ready?: Promise<void>;
  /** A start of this CLI made ahead of the dispatch (same program, args, env and cwd): used when still alive and young, else killed. */
  warm?: WarmCli;
}

/** How long a CLI started early waits for its prompt before that start is dropped and redone. */
export const EARLY_START_LIMIT_MS = 1000;

/**
 * Runs the CLI in its own process group (detached), writes the prompt to stdin and closes
 * it. At the deadline, or when the signal aborts, the whole group is killed (SIGTERM, then
 * SIGKILL); after the CLI exits, whatever it left in its group is killed too. Plain
 * `child_process.spawn`: a subprocess library would cost a tenth of a second to load
 * before the first dispatch.
 */
export async function runCli(call: CliCall): Promise<CliRun> {
  const { ready } = call;
  if (!ready) return runOnce(call, call.input);
  // A warm start has waited part of the time already.
  const waited = call.warm ? Date.now() - call.warm.startedAt : 0;
  let cancelled = false;
  let open: (text: string | null) => void = () => {};
  const gate = new Promise<string | null>((resolve) => {
    open = resolve;
  });
  const limit = setTimeout(() => open(null), Math.max(0, EARLY_START_LIMIT_MS - waited));
  void ready.then(
    () => open(call.input),
    () => {
      cancelled = true;
      open(null);
    },
  );
  const early = await runOnce(call, gate);
  clearTimeout(limit);
  if (!early.dropped) return early;
  // Dropped before anything was sent: start afresh once the prompt may go, unless it may not.
  const mayGo = await ready.then(
    () => !cancelled,
    () => false,
  );
  if (!mayGo || call.signal.aborted) return { ...early, spawnError: early.spawnError ?? 'not started: the dispatch was called off before its prompt was sent' };
  const { warm: _spent, ...fresh } = call;
  return runOnce(fresh, call.input);
}

/**
 * One start of the CLI. `input` is the prompt, or a promise of it (an early start): null
 * there drops the start (its group is killed, nothing having been written) and the run
 * resolves with `dropped`.
 */
function runOnce(call: CliCall, input: string | Promise<string | null>): Promise<CliRun & { dropped?: boolean }> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    const warm = call.warm && usable(call.warm, call) ? call.warm : null;
    if (call.warm && !warm) void dropWarm(call.warm);
    if (call.warm) call.warm.used = true;
    try {
      // A warm start's group is guarded already; a fresh one is guarded from its spawn, or not started (no watchdog).
      child = warm ? warm.child : spawnGuarded(call.program, call.args, { env: call.env, cwd: call.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      const spawnError = err instanceof Error ? err.message : String(err);
      resolve({ stdout: '', stderr: '', exitCode: null, timedOut: false, tooLarge: null, spawnError, exited: Promise.resolve() });
      return;
    }
    let markExited = (): void => {};
    const exited = new Promise<void>((r) => {
      markExited = r;
    });
    child.once('exit', () => markExited());
    let timedOut = false;
    let tooLarge: CliRun['tooLarge'] = null;
    let spawnError: string | null = null;
    const kill = (): void => terminateGroup(child.pid, KILL_GRACE_MS);
    const collect = (stream: NodeJS.ReadableStream | null, name: 'stdout' | 'stderr'): Buffer[] => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream?.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= MAX_CLI_OUTPUT_BYTES) chunks.push(chunk);
        else if (!tooLarge) {
          tooLarge = name;
          kill();
        }
      });
      return chunks;
    };
    const out = collect(child.stdout, 'stdout');
    const err = collect(child.stderr, 'stderr');
    if (call.answered) {
      // Complete lines only: the final result is looked for as each one arrives.
      let partial = '';
      const answered = call.answered;
      child.stdout?.on('data', (chunk: Buffer) => {
        if (done) return;
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        if (lines.some(answered)) finish(null, true);
      });
    }
    // A CLI that exits before reading all of its stdin (EPIPE) still gets its output read.
    child.stdin?.on('error', () => {});
    let dropped = false;
    if (typeof input === 'string') child.stdin?.end(input);
    else
      void input.then((text) => {
        if (done) return;
        if (text !== null) child.stdin?.end(text);
        else {
          dropped = true;
          signalGroup(child.pid, 'SIGKILL');
        }
      });
    // An unreadable deadline leaves the limit to the runner, which aborts the signal.
    const timer = Number.isNaN(Date.parse(call.deadline))
      ? undefined
      : setTimeout(
          () => {
            timedOut = true;
            kill();
          },
          Math.max(0, msUntil(call.deadline) - DEADLINE_MARGIN_MS),
        );
    reapAfterExit(child, EXIT_GRACE_MS);
    call.signal.addEventListener('abort', kill, { once: true });
    if (call.signal.aborted) kill();
    let done = false;
    const finish = (exitCode: number | null, answeredEarly = false): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (answeredEarly) {
        // The CLI winds down on its own; an abort, or the grace running out, still takes its group down.
        const grace = setTimeout(kill, ANSWERED_GRACE_MS);
        grace.unref();
        // Once the run is over nothing waits for what is left of it: its answer is in.
        const release = (): void => signalGroup(child.pid, 'SIGKILL');
        call.release?.addEventListener('abort', release, { once: true });
        if (call.release?.aborted) release();
        child.once('exit', () => {
          clearTimeout(grace);
          call.signal.removeEventListener('abort', kill);
          call.release?.removeEventListener('abort', release);
        });
      } else {
        call.signal.removeEventListener('abort', kill);
        endGroup(child.pid); // whatever the CLI left running in its group
      }
      const stderr = redact(stripAnsi(Buffer.concat(err).toString('utf8')), call.secrets ?? []);
      // A dropped start was never sent anything: what it printed belongs to no dispatch.
      if (stderr.trim() && !dropped) call.stderr(stderr.endsWith('\n') ? stderr : `${stderr}\n`);
      resolve({
        stdout: stripAnsi(Buffer.concat(out).toString('utf8')),
        stderr,
        exitCode,
        timedOut,
        tooLarge,
        spawnError,
        exited,
        ...(dropped ? { dropped } : {}),
      });
    };
    child.on('error', (e) => {
      // Not started at all (ENOENT, EACCES): there is no process to wait for.
      if (child.pid === undefined) {
        spawnError = e.message;
        markExited();
        finish(null);
      }
    });
    child.on('close', (code) => finish(code));
  });
}

/**
 * The failure of a CLI run that never got to answer: not started, killed at the deadline,
 * or too much output; null when the run's output is to be read. `meta` (model, version) is kept.
 */
export function runFailure(run: CliRun, name: string, program: string, deadline: string, meta: Partial<AdapterResponse> = {}): AdapterResponse | null {
  if (run.spawnError) return fail('config', `could not start ${program}: ${run.spawnError}`);
  if (run.timedOut)
    return { ...fail('timeout', `${name} did not finish before the deadline (${deadline}); its process group was killed`), ...meta } as AdapterResponse;
  if (run.tooLarge) return { ...fail('config', tooLargeMessage(name, run.tooLarge)), ...meta } as AdapterResponse;
  return null;
}

/**
 * What a CLI stopped for too much output printed: the stream, the bound it went over, and the
 * likely cause. Typed `config` (the pass fails at once, as an adapter program's flood is
 * `invalid_response`): a retry would print as much again, 64 MiB each time.
 */
export function tooLargeMessage(name: string, stream: 'stdout' | 'stderr'): string {
  return `${name} printed more than ${MAX_CLI_OUTPUT_BYTES / (1024 * 1024)} MiB on ${stream} and was stopped: turn off its debug or verbose output (in its settings or environment)`;
}

/** The model named in a CLI's extra argv (`-m X`, `--model X`, `--model=X`); null when none is. */
export function modelFromArgs(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if ((a === '-m' || a === '--model') && args[i + 1]) return args[i + 1] ?? null;
    if (a.startsWith('--model=')) return a.slice(8);
  }
  return null;
}

/** A fresh private temp dir; the caller removes it with `removeTempDir` in a `finally`. */
export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Removes the dir in the background once `after` settles (the CLI's exit, `CliRun.exited`):
 * its files (a session log, a settings copy) need not hold up the reply, and a CLI still
 * winding down keeps its folder until it is gone. Node does not exit before the removal is done.
 */
export function removeTempDir(dir: string, after: Promise<unknown> = Promise.resolve()): void {
  void after.then(() => rm(dir, { recursive: true, force: true }, () => {}));
}

/**
 * The version of the npm package a CLI's program belongs to (`<package>/<dir>/<bin>.js`,
 * read from `<package>/package.json`): the CLI's JSON output does not say, and asking
 * `--version` beside every dispatch would start a second process. Null when it is not that package.
 */
export function packageVersion(program: string, npmPackage: string): string | null {
  try {
    const pkg = JSON.parse(readFileSync(join(dirname(realpathSync(program)), '..', 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
    return pkg.name === npmPackage && typeof pkg.version === 'string' ? pkg.version : null;
  } catch {
    return null;
  }
}

/** Whether a line of JSON-lines output is the event of this `type` (a quick text test first: most lines are not). */
export function isEventLine(line: string, type: string): boolean {
  if (!line.includes(`"${type}"`)) return false;
  try {
    const value: unknown = JSON.parse(line);
    return isObject(value) && value.type === type;
  } catch {
    return false;
  }
}

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A CLI's JSON-lines stdout: the objects in order, and every other non-blank line as
 * noise (CLIs sometimes print plain errors on stdout).
 */
export function parseJsonLines(stdout: string): { objects: Json[]; noise: string[] } {
  const objects: Json[] = [];
  const noise: string[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.trim()) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isObject(value)) objects.push(value);
    } catch {
      noise.push(line.trim());
    }
  }
  return { objects, noise };
}
