import { cleanEnv } from './cli.js';
import { memIo } from './mem-io.js';

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
 * buffers for stdout and stderr. `src/cli.ts` is imported on each call, so a test file that
 * calls `vi.resetModules()` gets a fresh copy of every module (and of their caches).
 */
export async function runMain(args: string[], opts: MainOptions): Promise<MainResult> {
  const { main } = await import('../../src/cli.js');
  const io = memIo(opts.cwd, { env: opts.env ?? cleanEnv(), input: opts.input, signal: (opts.controller ?? new AbortController()).signal });
  const code = await main(['node', 'bounce', ...args], io);
  return { code, stdout: io.out(), stderr: io.err() };
}
