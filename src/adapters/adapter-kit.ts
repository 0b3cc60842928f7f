import {
  AdapterRequestSchema,
  AgentOptionsSchema,
  type AdapterError,
  type AdapterRequest,
  type AdapterResponse,
  type AgentOptions,
  type CheckResult,
} from './contract.js';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { readAll } from '../io.js';

/**
 * The whole life of an adapter program: parse argv (`--check` or a dispatch), read one
 * JSON object from stdin, validate it, call the adapter, print one JSON object.
 * Adapters implement `dispatch` and `check`; expected failures are returned as values.
 */
export interface AdapterProgram {
  dispatch(request: AdapterRequest, env: NodeJS.ProcessEnv): Promise<AdapterResponse>;
  check(options: AgentOptions, env: NodeJS.ProcessEnv): Promise<CheckResult>;
}

export function fail(type: AdapterError['type'], message: string, extra: Partial<AdapterError> = {}): AdapterResponse {
  return { ok: false, error: { type, message, ...extra } };
}

export async function runAdapter(program: AdapterProgram, argv = process.argv.slice(2)): Promise<void> {
  const input = (await readAll(process.stdin)).toString('utf8');
  let parsed: unknown;
  try {
    parsed = input.trim() === '' ? {} : JSON.parse(input);
  } catch {
    emit(fail('config', 'adapter input is not JSON'));
    return;
  }
  if (argv.includes('--check')) {
    const options = AgentOptionsSchema.safeParse(parsed);
    const result: CheckResult = options.success
      ? await program.check(options.data, process.env)
      : { ok: false, version: null, problems: options.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`), warnings: [], resolved: {} };
    emit(result);
    process.exitCode = result.ok ? 0 : 1;
    return;
  }
  const request = AdapterRequestSchema.safeParse(parsed);
  if (!request.success) {
    emit(fail('config', `invalid adapter request: ${request.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`));
    return;
  }
  let response: AdapterResponse;
  try {
    response = await program.dispatch(request.data, process.env);
  } catch (err) {
    // A throw here is a bug in the adapter; report it as a provider error rather than a stack on stdout.
    response = fail('provider', `adapter crashed: ${err instanceof Error ? err.message : String(err)}`);
  }
  emit(response);
}

function emit(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Milliseconds left until the request's deadline (never negative). */
export function msUntil(deadline: string): number {
  return Math.max(0, Date.parse(deadline) - Date.now());
}

/**
 * True when the module at `metaUrl` is the program node was asked to run, so an adapter can
 * end with `if (isMain(import.meta.url)) await runAdapter(...)` and still be imported by tests.
 */
export function isMain(metaUrl: string): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return metaUrl === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}
