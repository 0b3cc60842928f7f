import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { isBounceError } from '../errors.js';
import { readAll } from '../io.js';
import {
  AdapterRequestSchema,
  AgentOptionsSchema,
  type AdapterResponse,
  type AdapterRequest,
  type AgentOptions,
  type CheckResult,
} from '../contract/contract.js';
import type { CliStart, WarmCli } from './cli-run.js';
import { fail } from './outcome.js';

export { fail, msUntil } from './outcome.js';
import { createProbe, type Probe } from './detect.js';

/**
 * How a CLI adapter would start its CLI for a dispatch with given options: the start, the
 * temporary folder it runs in (removed after the dispatch), the program as found (for
 * messages and the version) and, once started ahead (src/adapters/warm.ts), that process.
 */
export interface PreparedCli {
  start: CliStart;
  tmp: string;
  program: string;
  warm?: WarmCli;
}

/** What a built-in adapter is given for one dispatch, in the runner or as a program of its own. */
export interface AdapterContext {
  /** The adapter's whole environment (it passes it on to any CLI it starts). */
  env: NodeJS.ProcessEnv;
  /** Aborted at the runner's deadline or on Ctrl-C: stop, and kill whatever was started. */
  signal: AbortSignal;
  /** Diagnostics (a CLI's stderr, secrets blanked); kept as the dispatch's stderr artifact. */
  stderr(chunk: string): void;
  /** The CLI versions this invocation already asked for. */
  probe: Probe;
  /** Aborted when the run is over: a CLI that answered and is still exiting may be killed (CallOptions.release). */
  release?: AbortSignal;
  /** Given to a `startsEarly` adapter: its prompt may go only once this settles (CallOptions.ready). */
  ready?: Promise<void>;
  /** The adapter's own `prepare`, made and started ahead of this dispatch for its options: used instead of a new one. */
  warm?: PreparedCli;
}

export interface CheckContext {
  env: NodeJS.ProcessEnv;
  probe: Probe;
}

/**
 * One adapter: `dispatch` answers a validated request, `check` validates options offline.
 * Expected failures are returned as values. The runner calls these in its own process
 * (src/adapters/call-agent.ts); `runAdapter` makes the same module a program of its own.
 */
export interface AdapterProgram {
  dispatch(request: AdapterRequest, ctx: AdapterContext): Promise<AdapterResponse>;
  check(options: AgentOptions, ctx: CheckContext): Promise<CheckResult>;
  /**
   * What `bounce check` asks the agent's endpoint beyond the offline check, sending no task
   * and spending nothing (an A2A agent's card): its problems, warnings and what it resolved,
   * added to the check's. Without it, an HTTP agent's server is only asked whether it answers.
   */
  reach?(options: AgentOptions, ctx: CheckContext): Promise<CheckResult>;
  /**
   * True when `dispatch` honours `ctx.ready`: it may start its CLI before that settles and
   * sends the prompt only after. Other adapters are dispatched once it has settled.
   */
  startsEarly?: boolean;
  /**
   * What `dispatch` would start for these options, without starting it (a failure when it
   * cannot, such as a missing program). Lets the runner start the CLI ahead of a dispatch
   * it knows is coming; `dispatch` then gets it as `ctx.warm`.
   */
  prepare?(options: AgentOptions, ctx: { env: NodeJS.ProcessEnv; probe: Probe }): Promise<PreparedCli | AdapterResponse>;
}

/** Thrown by an adapter that means to die without answering (the mock's `crash`): the runner sees a crash. */
export class AdapterCrash extends Error {}

const issuesOf = (issues: { path: (string | number)[]; message: string }[], top: string): string =>
  issues.map((i) => `${i.path.join('.') || top}: ${i.message}`).join('; ');

/**
 * The adapter's answer to one input: the request is validated first (a bad one is a
 * `config` failure), and a throw, a bug in the adapter, becomes a `provider` failure. Only
 * an `AdapterCrash` escapes. The same for the runner and for the program.
 */
export async function answer(program: AdapterProgram, input: unknown, ctx: AdapterContext): Promise<AdapterResponse> {
  const request = AdapterRequestSchema.safeParse(input);
  if (!request.success) return fail('config', `invalid adapter request: ${issuesOf(request.error.issues, 'request')}`);
  try {
    return await program.dispatch(request.data, ctx);
  } catch (err) {
    if (err instanceof AdapterCrash) throw err;
    return fail('provider', `adapter crashed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The adapter's check of some options: invalid options, or a throw, are `config` problems. */
export async function checkOptions(program: AdapterProgram, input: unknown, ctx: CheckContext): Promise<CheckResult> {
  const options = AgentOptionsSchema.safeParse(input);
  const failed = (message: string): CheckResult => ({ ok: false, version: null, problems: [{ kind: 'config', message }], warnings: [], resolved: {} });
  if (!options.success) return failed(issuesOf(options.error.issues, 'options'));
  try {
    return await program.check(options.data, ctx);
  } catch (err) {
    // A problem meant for the user (a bad BOUNCE_PROBE_TIMEOUT_S, say) keeps its words and its fix.
    if (isBounceError(err)) return { ...failed(err.message), problems: [{ kind: 'config', message: err.message, ...(err.hint ? { fix: err.hint } : {}) }] };
    return failed(`the check crashed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
/** How long a signalled adapter may take to kill its CLI before it exits anyway. */
const EXIT_GRACE_MS = 3000;

/**
 * The adapter as a program: `--check` or a dispatch, one JSON object read from stdin and
 * one printed on stdout. SIGTERM, SIGINT and SIGHUP abort the dispatch (its CLI's process
 * group is killed) and end the program with 143 or 130, printing nothing.
 */
export async function runAdapter(program: AdapterProgram, argv = process.argv.slice(2)): Promise<void> {
  const input = (await readAll(process.stdin)).toString('utf8');
  let parsed: unknown;
  try {
    parsed = input.trim() === '' ? {} : JSON.parse(input);
  } catch {
    emit(fail('config', 'adapter input is not JSON'));
    return;
  }
  const probe = createProbe();
  if (argv.includes('--check')) {
    const result = await checkOptions(program, parsed, { env: process.env, probe });
    emit(result);
    process.exitCode = result.ok ? 0 : 1;
    return;
  }
  const controller = new AbortController();
  let received: NodeJS.Signals | null = null;
  const code = (): number => (received === 'SIGINT' ? 130 : 143);
  const onSignal = (signal: NodeJS.Signals): void => {
    received ??= signal;
    controller.abort();
    setTimeout(() => process.exit(code()), EXIT_GRACE_MS).unref();
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  const ctx: AdapterContext = { env: process.env, signal: controller.signal, stderr: (chunk) => process.stderr.write(chunk), probe };
  let response: AdapterResponse;
  try {
    response = await answer(program, parsed, ctx);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  if (received) process.exit(code());
  for (const s of SIGNALS) process.off(s, onSignal);
  emit(response);
}

function emit(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/**
 * True when the module at `metaUrl` is the program node was asked to run, so an adapter can
 * end with `if (isMain(import.meta.url)) await runAdapter(...)` and still be imported.
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
