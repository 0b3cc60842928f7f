import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { cleanEnv } from './cli.js';
import { memIo } from './mem-io.js';
import { waitFor } from './wait-for.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Which CLI runMain imports: the build (the slow project) or the source (the fast one, which builds nothing). */
    bounceCli: 'dist' | 'source';
  }
}

/**
 * The built CLI (`npm run build`) in the slow project: a `cmd:` agent or a spawned adapter
 * runs the built programs in dist/, and those tests check the build. The fast project
 * starts no process and imports src/cli.ts, so `npm run test:fast` needs no build.
 */
const FROM_SOURCE = inject('bounceCli') === 'source';
const CLI = new URL(FROM_SOURCE ? '../../src/cli.ts' : '../../dist/src/cli.js', import.meta.url);

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
  if (!existsSync(CLI)) throw new Error(`${fileURLToPath(CLI)} is missing: run \`npm run build\` first`);
  const { main } = (await import(CLI.href)) as typeof import('../../src/cli.js');
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
