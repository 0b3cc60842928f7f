import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PROBE_TIMEOUT_ENV } from '../../src/kit/detect.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/bounce.js');
export const FIXTURES = join(ROOT, 'test/fixtures');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function tempDir(prefix = 'bounce-test-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/**
 * The user bounce runs as where a file mode must stop it: `nobody` when the tests run as
 * root (whom no mode stops), else the tests' own user (undefined).
 */
export const AS_USER = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

/** A temporary folder AS_USER may write in, and an environment whose HOME and cache are in it. */
export function userTempDir(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir();
  chmodSync(dir, 0o777);
  return { dir, env: cleanEnv({ HOME: dir, XDG_CACHE_HOME: join(dir, '.cache') }) };
}

let cacheHome: string | undefined;

/**
 * What the tests give each offline probe of a CLI (`--version`, a login status) instead of
 * its 20 s: a pinned CLI's `--version` took over 20 s on a loaded 2-core machine, and a test
 * must not fail for the machine's load. A test that wants a short limit sets its own.
 */
export const PROBE_TIMEOUT_ENV_FOR_TESTS = { [PROBE_TIMEOUT_ENV]: '60' } as const;

/**
 * Environment for the built CLI: no inherited agent settings, no colour, fast retries, probes
 * with time for a loaded machine, and a cache folder of this test process's own (refine
 * remembers CLI versions there), never the user's.
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'SystemRoot']) if (process.env[key]) env[key] = process.env[key];
  cacheHome ??= tempDir('bounce-test-cache-');
  return { ...env, NO_COLOR: '1', BOUNCE_RETRY_BASE_MS: '50', ...PROBE_TIMEOUT_ENV_FOR_TESTS, XDG_CACHE_HOME: cacheHome, ...extra };
}

export interface RunOptions {
  /** Leave stdin open (onSpawn writes or ends it): bounce waits on it as on a slow pipe. */
  stdinOpen?: boolean;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** Called with the child once it has started (e.g. to send SIGINT). */
  onSpawn?: (child: ReturnType<typeof spawn>) => void;
  timeoutMs?: number;
  /** Another launcher to run instead of this checkout's bin/bounce.js. */
  bin?: string;
  /** Run as this user and group (a test running as root checks what a user without root meets). */
  user?: { uid: number; gid: number };
}

/** How Node prints a warning: `(node:1234) [DEP0040] DeprecationWarning: ...`. */
export const NODE_WARNING = /^\(node:\d+\) (?:\[[A-Z0-9_]+\] )?\w*Warning\b.*$/m;

/**
 * Runs the built `bounce` binary as a subprocess, as a user or a CI script would. A Node
 * warning on its stderr rejects, so it fails the test as one in this process does.
 */
export function runCli(args: string[], opts: RunOptions): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [opts.bin ?? BIN, ...args], {
      cwd: opts.cwd,
      env: opts.env ?? cleanEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
      ...opts.user,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const warning = NODE_WARNING.exec(stderr);
      if (warning) reject(new Error(`bounce ${args.join(' ')} printed a Node warning: ${warning[0]}`));
      else resolvePromise({ code, signal, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else if (!opts.stdinOpen) child.stdin.end();
    opts.onSpawn?.(child);
  });
}
