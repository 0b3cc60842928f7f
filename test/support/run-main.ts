import { cleanEnv } from './cli.js';
import { memIo } from './mem-io.js';
import { waitFor } from './wait-for.js';

export interface MainResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface MainOptions {
  cwd: string;
  /** The command's whole environment (default `cleanEnv()`); nothing of this process leaks in. */
  env?: NodeJS.ProcessEnv;
  /** What stdin holds; it is closed after that (default: empty). */
  input?: string;
  /** Aborting it is what Ctrl-C does to the CLI. */
  controller?: AbortController;
}

/**
 * Runs `bounce <args>` in this process, through the same `main` the launcher calls, with
 * buffers for stdout and stderr. The CLI is imported on each call, so a test file that
 * calls `vi.resetModules()` gets a fresh copy of every module (and of their caches).
 */
export async function runMain(args: string[], opts: MainOptions): Promise<MainResult> {
  // The source, not the last build: what these tests run is the code as it stands.
  const { main } = await import('../../src/cli.js');
  const io = memIo(opts.cwd, { env: opts.env ?? cleanEnv(), input: opts.input, signal: (opts.controller ?? new AbortController()).signal });
  const code = await main(['node', 'bounce', ...args], io);
  return { code, stdout: io.out(), stderr: io.err() };
}

/**
 * Runs `bounce <args>` in-process and aborts it (as Ctrl-C would) once `ready()` holds, e.g.
 * once run.json lists a dispatch as pending. It is aborted in any case, so a failed wait
 * leaves no run (and no hanging agent) behind.
 */
export async function runMainInterrupted(args: string[], opts: Omit<MainOptions, 'controller'>, ready: () => boolean, what: string): Promise<MainResult> {
  const controller = new AbortController();
  const run = runMain(args, { ...opts, controller });
  await waitFor(ready, 10_000, what).finally(() => controller.abort());
  return run;
}
