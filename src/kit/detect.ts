/**
 * Finding a CLI and asking it its version. The versions are kept in a probe created per
 * command invocation and passed down, so two runs in one process never share what they saw.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { usageError } from '../errors.js';
import type { CheckProblem } from '../contract/contract.js';
import { endGroup, reapAfterExit, spawnGuarded, terminateGroup } from '../contract/process-group.js';
import type { CliFacts } from './facts.js';

/** The program to run: `$BOUNCE_<CLI>_BIN` (a path or a name), else the CLI's name on PATH; null when not found. */
export interface VersionCache {
  /** The version remembered for this program file as it is now, else undefined. */
  get(program: string): string | undefined;
  set(program: string, version: string): void;
}

export function findProgram(cli: CliFacts, env: NodeJS.ProcessEnv): string | null {
  const wanted = env[cli.binEnv]?.trim() || cli.program;
  if (wanted.includes('/') || isAbsolute(wanted)) return isExecutable(wanted) ? wanted : null;
  return onPath(wanted, env);
}

/** The first executable `name` in the folders of PATH; null when there is none. */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir && isExecutable(join(dir, name))) return join(dir, name);
  return null;
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The problem to report when `findProgram` found nothing, and its fix. */
export function notFound(cli: CliFacts, env: NodeJS.ProcessEnv): { message: string; fix: string } {
  const override = env[cli.binEnv]?.trim();
  if (override) return { message: `${cli.binEnv} (${override}) is not an executable file`, fix: `fix it or unset it to use ${cli.program} from PATH` };
  return { message: `${cli.program} not found on PATH`, fix: `install it with npm i -g ${cli.npmPackage} or set ${cli.binEnv}` };
}

export interface QuickRun {
  exitCode: number | null;
  stdout: string;
  /** It ran out of `timeoutMs` and was killed (not when the command's signal ended it). */
  timedOut: boolean;
}

/** The variable that gives each offline probe of a CLI (`--version`, a login status) longer, in seconds. */
export const PROBE_TIMEOUT_ENV = 'BOUNCE_PROBE_TIMEOUT_S';
/** How long `<cli> --version` may take unless `BOUNCE_PROBE_TIMEOUT_S` says otherwise. */
export const VERSION_TIMEOUT_MS = 20_000;
/** The most `BOUNCE_PROBE_TIMEOUT_S` may be: a day (a timer cannot wait much more than 24 days). */
const MAX_PROBE_TIMEOUT_S = 86_400;

/** A probe's limit: `$BOUNCE_PROBE_TIMEOUT_S` seconds when set, else `defaultMs`; any other value is a usage error. */
export function probeTimeoutMs(env: NodeJS.ProcessEnv, defaultMs: number): number {
  const raw = env[PROBE_TIMEOUT_ENV]?.trim();
  if (!raw) return defaultMs;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_PROBE_TIMEOUT_S)
    throw usageError(
      `${PROBE_TIMEOUT_ENV} is "${raw}", not a number of seconds`,
      `set it to a number above 0 and at most ${MAX_PROBE_TIMEOUT_S} (e.g. 60), or unset it`,
      'config',
    );
  return seconds * 1000;
}

/** After the timeout's SIGTERM to a probe's group, SIGKILL this much later; and what the probe left in its group is killed this long after it exits (as for a dispatch, cli-run.ts). */
const PROBE_KILL_GRACE_MS = 1500;
const PROBE_EXIT_GRACE_MS = 250;

/**
 * Runs a short offline command (`--version`, `login status`) with no stdin, bounded by
 * `timeoutMs`, under the rules of a dispatch (src/contract/process-group.ts): in a process
 * group of its own guarded by the watchdog from its spawn (it dies with bounce, SIGKILL
 * included), its whole group sent SIGTERM at the timeout and SIGKILL 1.5 s later (SIGKILL at
 * once when `signal` aborts), and what it leaves running in its group killed once it exits.
 */
export function runQuick(program: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, cwd?: string, signal?: AbortSignal): Promise<QuickRun> {
  return new Promise((resolve) => {
    let stdout = '';
    let timedOut = false;
    // Throws (the promise rejects, nothing started) when no watchdog can run: NoWatchdogError.
    const child = spawnGuarded(program, args, { env, cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    const timer = setTimeout(() => {
      timedOut = true;
      terminateGroup(child.pid, PROBE_KILL_GRACE_MS);
    }, timeoutMs);
    const onAbort = (): void => endGroup(child.pid);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    reapAfterExit(child, PROBE_EXIT_GRACE_MS);
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < 64 * 1024) stdout += d;
    });
    let done = false;
    const finish = (run: QuickRun): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      endGroup(child.pid); // whatever it left running in its group
      resolve(run);
    };
    // Only the timeout and the signal kill the child: `timedOut` is set by the timeout alone.
    child.on('error', () => finish({ exitCode: null, stdout, timedOut }));
    child.on('close', (code) => finish({ exitCode: code, stdout, timedOut }));
  });
}

/** What `<program> --version` gave: its first line, or null and whether it ran out of time (after `limitMs`). */
interface VersionAnswer {
  version: string | null;
  timedOut: boolean;
  limitMs: number;
}

/** What one command invocation learned about the CLIs: each program asked `--version` at most once. */
export interface Probe {
  /** The first line of `<program> --version`; null when it fails (the CLI is not usable). */
  version(program: string, env: NodeJS.ProcessEnv): Promise<string | null>;
  /** Whether `version()` gave null because the CLI ran out of time (a busy machine, not a broken install). */
  versionTimedOut(program: string): Promise<boolean>;
  /** Why `version()` gave null, for the user: it ran out of time, or it failed (reinstall). */
  versionProblem(program: string, cli: CliFacts): Promise<CheckProblem>;
  /** The version already asked for, without asking; undefined when it was not asked. */
  known(program: string): Promise<string | null> | undefined;
  /** `compute()` once per `key` in this invocation (a CLI's login state, say), shared by all who ask. */
  once<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /** Aborted when the command is interrupted: the probes' own processes are killed. */
  readonly signal?: AbortSignal;
  /** Take a login read offline for the CLI's answer where the reading is certain (refine, resume; not check). */
  readonly offlineLogins: boolean;
}

export interface ProbeOptions {
  /** Versions remembered between invocations (refine and resume; `bounce check` always asks). */
  versions?: VersionCache;
  /** See Probe.offlineLogins (default false). */
  offlineLogins?: boolean;
}

/** `signal` (the command's Ctrl-C) kills what the probe is still running. */
export function createProbe(signal?: AbortSignal, opts: ProbeOptions = {}): Probe {
  const answers = new Map<string, Promise<VersionAnswer>>();
  const versions = new Map<string, Promise<string | null>>();
  const memo = new Map<string, Promise<unknown>>();
  const cache = opts.versions;
  const ask = (program: string, env: NodeJS.ProcessEnv): Promise<VersionAnswer> => {
    const remembered = cache?.get(program);
    if (remembered !== undefined) return Promise.resolve({ version: remembered, timedOut: false, limitMs: 0 });
    let limitMs: number;
    try {
      limitMs = probeTimeoutMs(env, VERSION_TIMEOUT_MS);
    } catch (err) {
      return Promise.reject(err);
    }
    return runQuick(program, ['--version'], env, limitMs, undefined, signal).then((r) => {
      const version = r.exitCode === 0 ? (r.stdout.trim().split('\n')[0] ?? '').trim() || 'unknown' : null;
      // Only an answer is remembered: a failure is asked again next time.
      if (version !== null && version !== 'unknown') cache?.set(program, version);
      return { version, timedOut: r.timedOut, limitMs };
    });
  };
  return {
    signal,
    offlineLogins: opts.offlineLogins ?? false,
    once<T>(key: string, compute: () => Promise<T>): Promise<T> {
      let found = memo.get(key) as Promise<T> | undefined;
      if (!found) {
        found = compute();
        memo.set(key, found);
      }
      return found;
    },
    version(program, env) {
      let found = versions.get(program);
      if (!found) {
        const answer = ask(program, env);
        answers.set(program, answer);
        found = answer.then((a) => a.version);
        versions.set(program, found);
      }
      return found;
    },
    versionTimedOut: async (program) => (await answers.get(program))?.timedOut ?? false,
    async versionProblem(program, cli) {
      const answer = await answers.get(program);
      if (answer?.timedOut)
        return {
          kind: 'version',
          message: `${program} did not answer \`--version\` within ${answer.limitMs / 1000} s`,
          fix: `try again when the machine is less busy, or give it longer with ${PROBE_TIMEOUT_ENV}=<seconds> (default ${VERSION_TIMEOUT_MS / 1000})`,
        };
      return { kind: 'version', message: `${program} --version failed`, fix: `reinstall ${cli.npmPackage} or fix ${cli.binEnv}` };
    },
    known: (program) => versions.get(program),
  };
}

/** Asks a local OpenAI-compatible server for its models; null when none answers within `ms`. */
export async function localModels(baseUrl: string, ms = 1000): Promise<string[] | null> {
  try {
    const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/models`, { signal: AbortSignal.timeout(ms) });
    if (!res.ok) return null;
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    return (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
  } catch {
    return null;
  }
}
