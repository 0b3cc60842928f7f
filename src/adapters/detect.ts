/**
 * Finding a CLI and asking it its version. The versions are kept in a probe created per
 * command invocation and passed down, so two runs in one process never share what they saw.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { CliFacts } from './table.js';
import type { VersionCache } from './version-cache.js';

/** The program to run: `$BOUNCE_<CLI>_BIN` (a path or a name), else the CLI's name on PATH; null when not found. */
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
}

/** Runs a short offline command (`--version`, `login status`) with no stdin, bounded by `timeoutMs`. */
export function runQuick(program: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, cwd?: string, signal?: AbortSignal): Promise<QuickRun> {
  return new Promise((resolve) => {
    let stdout = '';
    const child = spawn(program, args, {
      env,
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: timeoutMs,
      ...(signal ? { signal, killSignal: 'SIGKILL' as const } : {}),
    });
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < 64 * 1024) stdout += d;
    });
    child.on('error', () => resolve({ exitCode: null, stdout }));
    child.on('close', (code) => resolve({ exitCode: code, stdout }));
  });
}

/** What one command invocation learned about the CLIs: each program asked `--version` at most once. */
export interface Probe {
  /** The first line of `<program> --version`; null when it fails (the CLI is not usable). */
  version(program: string, env: NodeJS.ProcessEnv): Promise<string | null>;
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
  const versions = new Map<string, Promise<string | null>>();
  const memo = new Map<string, Promise<unknown>>();
  const cache = opts.versions;
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
        const remembered = cache?.get(program);
        found =
          remembered !== undefined
            ? Promise.resolve(remembered)
            : runQuick(program, ['--version'], env, 20_000, undefined, signal).then((r) => {
                const version = r.exitCode === 0 ? (r.stdout.trim().split('\n')[0] ?? '').trim() || 'unknown' : null;
                // Only an answer is remembered: a failure is asked again next time.
                if (version !== null && version !== 'unknown') cache?.set(program, version);
                return version;
              });
        versions.set(program, found);
      }
      return found;
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
