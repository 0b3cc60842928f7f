/**
 * Run a BUILT adapter program (`dist/adapters/<name>/program.js`, from `npm run build`) the way the
 * runner does: one JSON object on stdin, one JSON object back on stdout.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PROBE_TIMEOUT_ENV_FOR_TESTS } from './cli.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface AdapterRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (undefined when it is not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever JSON the program printed
  json: any;
  ms: number;
}

/**
 * `env` is the child's whole environment apart from PATH and the probes' limit for tests
 * (nothing else is inherited, so a developer's real keys never leak into a test).
 */
export async function runAdapterProgram(name: string, input: unknown, env: Record<string, string> = {}, args: string[] = []): Promise<AdapterRun> {
  const script = `${ROOT}dist/adapters/${name}/program.js`;
  if (!existsSync(script)) throw new Error(`${script} is missing: run \`npm run build\` first`);
  const started = Date.now();
  const child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? '', ...PROBE_TIMEOUT_ENV_FOR_TESTS, ...env }, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever JSON the program printed
  let json: any;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json, ms: Date.now() - started };
}

/** A valid AdapterRequest with the given prompt, options and deadline (ms from now). */
export function adapterRequest(
  prompt: string,
  options: Record<string, unknown>,
  deadlineMs = 10_000,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    contract_version: 1,
    dispatch_id: '01JTESTDISPATCH0000000000',
    run_id: 'doc-20261129-120000-ABCDEF',
    pass: 1,
    total_passes: 2,
    role: 'reviewer',
    final: false,
    prompt,
    options,
    deadline: new Date(Date.now() + deadlineMs).toISOString(),
    ...extra,
  };
}
