/**
 * What the CLI adapters (claude, codex) share: find the program, run it once in its own
 * process group with the prompt on stdin and a deadline, and turn the CLI's error text
 * into a typed adapter error. Never retries.
 */
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { execa } from 'execa';
import type { AdapterError } from './contract.js';
import { msUntil } from './adapter-kit.js';
import { redact } from './endpoint.js';
import { stripAnsi } from './host.js';

export const MAX_CLI_OUTPUT_BYTES = 64 * 1024 * 1024;
/** Kill the CLI this long before the request's deadline, so the adapter can still answer. */
const DEADLINE_MARGIN_MS = 1000;
const KILL_GRACE_MS = 1500;

/** The program to run: `$BOUNCE_<CLI>_BIN` (a path or a name), else `<cli>` on PATH; null when not found. */
export function findProgram(cli: string, env: NodeJS.ProcessEnv): string | null {
  const wanted = env[`BOUNCE_${cli.toUpperCase()}_BIN`]?.trim() || cli;
  const executable = (p: string): boolean => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (wanted.includes('/') || isAbsolute(wanted)) return executable(wanted) ? wanted : null;
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir && executable(join(dir, wanted))) return join(dir, wanted);
  return null;
}

export function notFoundMessage(cli: string, npmPackage: string, env: NodeJS.ProcessEnv): string {
  const name = `BOUNCE_${cli.toUpperCase()}_BIN`;
  if (env[name]?.trim()) return `${name} (${env[name]}) is not an executable file: fix it or unset it to use ${cli} from PATH`;
  return `${cli} not found on PATH: install it with npm i -g ${npmPackage} or set ${name}`;
}

export interface CliRun {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  tooLarge: boolean;
  /** Set when the program could not be started at all. */
  spawnError: string | null;
}

export interface CliCall {
  program: string;
  args: string[];
  input: string;
  /** The child's whole environment (nothing else is inherited). */
  env: NodeJS.ProcessEnv;
  cwd: string;
  deadline: string;
  /** Values to blank out of the stderr this adapter passes on. */
  secrets?: Array<string | undefined>;
}

/**
 * Runs the CLI in its own process group (detached), writes the prompt to stdin and closes
 * it. At the deadline, or when this adapter is told to stop, the whole group is killed.
 * The CLI's stderr is copied to this process's stderr (secrets blanked) as an artifact.
 */
export async function runCli(call: CliCall): Promise<CliRun> {
  const child = execa(call.program, call.args, {
    input: call.input,
    detached: true,
    cleanup: false,
    reject: false,
    env: call.env,
    extendEnv: false,
    cwd: call.cwd,
    maxBuffer: MAX_CLI_OUTPUT_BYTES,
    stripFinalNewline: false,
    encoding: 'utf8',
  });
  let timedOut = false;
  const killGroup = (): void => {
    signalGroup(child.pid, 'SIGTERM');
    setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS).unref();
  };
  // An unreadable deadline leaves the limit to the runner, which kills this adapter's group.
  const timer = Number.isNaN(Date.parse(call.deadline))
    ? undefined
    : setTimeout(
        () => {
          timedOut = true;
          killGroup();
        },
        Math.max(0, msUntil(call.deadline) - DEADLINE_MARGIN_MS),
      );
  // The runner stops this adapter by signalling its group; the CLI's own group must follow.
  const onSignal = (signal: NodeJS.Signals): void => {
    signalGroup(child.pid, 'SIGKILL');
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  const onExit = (): void => signalGroup(child.pid, 'SIGKILL');
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  process.on('exit', onExit);
  const result = await child;
  clearTimeout(timer);
  for (const s of signals) process.off(s, onSignal);
  process.off('exit', onExit);
  signalGroup(child.pid, 'SIGKILL'); // whatever the CLI left running in its group
  const stderr = redact(stripAnsi(String(result.stderr ?? '')), call.secrets ?? []);
  if (stderr.trim()) process.stderr.write(stderr.endsWith('\n') ? stderr : `${stderr}\n`);
  const started = result.exitCode !== undefined || result.signal !== undefined;
  return {
    stdout: stripAnsi(String(result.stdout ?? '')),
    stderr,
    exitCode: result.exitCode ?? null,
    timedOut,
    tooLarge: result.isMaxBuffer === true,
    spawnError: started ? null : result.shortMessage || result.message || 'could not start',
  };
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** A fresh private temp dir, removed on `removeTempDir` or, failing that, when this process exits. */
const tempDirs = new Set<string>();
let sweepOnExit = false;
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (!sweepOnExit)
    process.on('exit', () => {
      for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
    });
  sweepOnExit = true;
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** `try again in 7s` / `retry after 250ms` in a provider's message, as milliseconds. */
export function retryAfterFromText(text: string): number | undefined {
  const m = /(?:try again|retry) (?:in|after)\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?)\b/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return Math.ceil(/^m/i.test(m[2] ?? '') ? n : n * 1000);
}

/** An HTTP status named in a CLI's error text: `API Error: 500`, `status 401`, `last status: 429`. */
export function statusFromText(text: string): number | undefined {
  const m = /\b(?:status(?: code)?:?|API Error:?|HTTP)\s*\(?(\d{3})\b/i.exec(text) ?? /\((\d{3})\)/.exec(text);
  const n = m ? Number(m[1]) : NaN;
  return n >= 400 && n <= 599 ? n : undefined;
}

const AUTH_RE = /\b(401|403)\b|unauthori[sz]ed|forbidden|invalid (x-)?api[ -]?key|api key|authenticat|not logged in|\/login|log ?in again|oauth|credential/i;
const RATE_RE = /\b(429|529)\b|rate[ _-]?limit|too many requests|overloaded|at capacity/i;
const NETWORK_RE =
  /ECONNREFUSED|ConnectionRefused|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|fetch failed|socket hang up|unable to connect|connection (failed|refused|reset)|error sending request|network/i;

/**
 * A typed error from a CLI's failure text and, when known, the HTTP status behind it.
 * The status decides first; then the text: auth, rate limit, network; otherwise provider.
 */
export function classifyCliError(message: string, status?: number | null): AdapterError {
  const code = status ?? statusFromText(message);
  const retry = retryAfterFromText(message);
  const extra = { ...(code ? { status: code } : {}), ...(retry !== undefined ? { retry_after_ms: retry } : {}) };
  const text = message.trim().replace(/\s+/g, ' ').slice(0, 600) || 'the CLI failed without a message';
  if (code === 401 || code === 403) return { type: 'auth', message: text, ...extra };
  if (code === 429 || code === 529) return { type: 'rate_limit', message: text, ...extra };
  if (code !== undefined && code >= 500) return { type: 'provider', message: text, ...extra };
  if (code === undefined && AUTH_RE.test(text)) return { type: 'auth', message: text, ...extra };
  if (code === undefined && RATE_RE.test(text)) return { type: 'rate_limit', message: text, ...extra };
  if (code === undefined && NETWORK_RE.test(text)) return { type: 'network', message: text, ...extra };
  return { type: 'provider', message: text, ...extra };
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
