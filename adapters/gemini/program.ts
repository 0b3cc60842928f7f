#!/usr/bin/env node
/**
 * The gemini adapter: one `gemini -p` (Gemini CLI) call per dispatch, prompt on stdin, in a
 * fresh empty directory whose workspace settings turn off tools, the directory tree, hooks,
 * skills, telemetry and the CLI's own retries; extensions and MCP servers are left out by
 * flag. The user's own settings (auth method, model aliases) and login stay in force.
 * docs/adapters.md#gemini
 */
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AdapterContext, type AdapterProgram, type CheckContext, fail, isMain, runAdapter } from '../../src/kit/adapter-kit.js';
import { geminiAuthType, geminiDir } from './config.js';
import { isObject, type Json, makeTempDir, packageVersion, programOrFailure, removeTempDir, runCli, runFailure } from '../../src/kit/cli-run.js';
import type { AdapterError, AdapterRequest, AdapterResponse, AgentOptions, CheckProblem, CheckResult, Usage } from '../../src/contract/contract.js';
import { findProgram, notFound } from '../../src/kit/detect.js';
import { displayUrl } from '../../src/kit/endpoint.js';
import { classifyCliError } from '../../src/kit/error-type.js';
import { loginReport } from '../../src/kit/login.js';
import { geminiLogin } from './login.js';
import { secretsOf, withoutParentSession } from '../../src/kit/facts.js';
import { GEMINI, GEMINI_CLI } from './facts.js';
import { pushAll } from '../../src/arrays.js';
import { writeFileAtomic } from '../../src/atomic.js';

const FACTS = GEMINI;
const CLI = GEMINI_CLI;
const USAGE_ERROR_RE = /Unknown argument|Not enough arguments|Invalid values:|Missing required argument|is not a valid/i;

/** An MCP server name nobody has: `--allowed-mcp-server-names` then lets none of the user's servers start. */
export const NO_MCP_SERVER = 'bounce-text-pass-none';

/**
 * Workspace settings written into the temporary working directory (`.gemini/settings.json`):
 * they override the user's settings for this run only, and hold no credential. No tool
 * (`tools.core: []` registers none), no directory tree in the prompt, one request per call
 * (`general.maxAttempts: 1`: only the runner retries), no hooks, skills, checkpoints,
 * usage statistics, telemetry or update check.
 */
export const TEXT_PASS_SETTINGS = {
  tools: { core: [] as string[] },
  context: { includeDirectoryTree: false },
  general: { maxAttempts: 1, retryFetchErrors: false, enableAutoUpdate: false, enableAutoUpdateNotification: false, checkpointing: { enabled: false } },
  hooksConfig: { enabled: false },
  skills: { enabled: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

/** The model the CLI is asked for: the option, else the table's default (never the CLI's router). */
export const geminiModel = (options: AgentOptions): string => options.model ?? (FACTS.defaultModel as string);

/**
 * The argv after `gemini`. `-p ''` is headless mode with the prompt taken from stdin; `-e
 * none` loads no extension; the approval mode is pinned to `default` so a user's
 * `defaultApprovalMode: yolo` does not apply (no tool is offered anyway).
 */
export function buildGeminiArgs(options: AgentOptions): string[] {
  const args = ['-p', '', '--output-format', 'json', '-m', geminiModel(options), '--approval-mode', 'default'];
  args.push('-e', 'none', '--allowed-mcp-server-names', NO_MCP_SERVER);
  return [...args, ...(options.args ?? [])];
}

/**
 * The child's environment: ours, minus a parent Gemini CLI session's markers, with the
 * working directory trusted (headless runs refuse an untrusted folder), no relaunch, and TMPDIR inside the
 * adapter's temporary directory, so the error reports Gemini CLI writes there (which
 * hold the prompt) are removed with it.
 */
export function buildGeminiEnv(env: NodeJS.ProcessEnv, tmp: string): NodeJS.ProcessEnv {
  // GEMINI_CLI_NO_RELAUNCH: Gemini CLI otherwise starts itself a second time (a larger heap), a second Node process per call.
  return { ...withoutParentSession(CLI, env), GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_CLI_NO_RELAUNCH: 'true', TMPDIR: tmp };
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);

/** The JSON object Gemini CLI printed: on stdout, or (an error with `--output-format json`) at the end of stderr. */
export function geminiJson(stdout: string, stderr: string): Json | null {
  const parse = (text: string): Json | null => {
    try {
      const value: unknown = JSON.parse(text);
      return isObject(value) ? value : null;
    } catch {
      return null;
    }
  };
  const out = parse(stdout.trim());
  if (out) return out;
  // The error object is pretty-printed last, after any stack trace: its first line is a bare `{`.
  const lines = stderr.trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i] === '{') return parse(lines.slice(i).join('\n'));
  return null;
}

interface GeminiStats {
  usage: Usage;
  /** Models that answered, the one with most output first. */
  models: string[];
  /** `api.errorsByType` over all models: failures the CLI counted, even when it exits 0. */
  errors: string[];
}

/**
 * `stats.models`: per model, `tokens.prompt` (every prompt token, cached ones included),
 * `cached`, `candidates` and `thoughts` (output the model spent thinking).
 */
export function readGeminiStats(stats: unknown): GeminiStats {
  const models = isObject(stats) && isObject(stats.models) ? Object.entries(stats.models) : [];
  if (models.length === 0) return { usage: { input_tokens: null, output_tokens: null, cost_usd: null, provider_reported: false }, models: [], errors: [] };
  const errors: string[] = [];
  let input = 0;
  let output = 0;
  let cached = 0;
  const byOutput: Array<[string, number]> = [];
  for (const [name, m] of models) {
    const t = isObject(m) && isObject(m.tokens) ? m.tokens : {};
    const api = isObject(m) && isObject(m.api) && isObject(m.api.errorsByType) ? m.api.errorsByType : {};
    pushAll(
      errors,
      Object.keys(api).filter((k) => num(api[k]) > 0),
    );
    input += num(t.prompt);
    cached += num(t.cached);
    const out = num(t.candidates) + num(t.thoughts);
    output += out;
    byOutput.push([name, out]);
  }
  byOutput.sort((a, b) => b[1] - a[1]);
  return {
    usage: { input_tokens: input, output_tokens: output, cache_read_tokens: cached, cache_write_tokens: null, cost_usd: null, provider_reported: true },
    models: byOutput.map(([name]) => name),
    errors,
  };
}

/** Gemini CLI's own exit codes for failures that are not an API status. */
const EXIT_TYPES: Record<number, AdapterError['type']> = { 41: 'auth', 42: 'config', 44: 'config', 52: 'config', 53: 'provider', 54: 'provider' };

/**
 * The error of a failed run. With `--output-format json` Gemini CLI prints `{error: {type,
 * message, code}}` and exits with `code`: the HTTP status of an API error (so 429 exits
 * with 173, its status modulo 256), or one of its own codes (41 auth, 42 input, 52 config,
 * 53 turn limit).
 */
function geminiError(error: Json, exitCode: number | null, timeZone: string | undefined): AdapterError {
  const message = typeof error.message === 'string' && error.message.trim() ? error.message : `gemini failed (${String(error.type ?? 'error')})`;
  const code = typeof error.code === 'number' ? error.code : exitCode;
  if (code !== null && code >= 400 && code <= 599) return classifyCliError(message, code, { timeZone });
  const typed = code !== null ? EXIT_TYPES[code] : undefined;
  if (typed && !/quota|exhausted/i.test(message)) return { type: typed, message: message.replace(/\s+/g, ' ').trim().slice(0, 600) };
  return classifyCliError(message, undefined, { timeZone });
}

/**
 * One `gemini -p --output-format json` run as an adapter response. The reply is `response`;
 * the model actually used is the one in `stats` (Gemini CLI may fall back to another model
 * on its own: reported as `fellBackTo`).
 */
export function parseGeminiOutput(
  stdout: string,
  stderr: string,
  exitCode: number | null,
  requested: string,
  opts: { agent_version?: string | null; timeZone?: string } = {},
): AdapterResponse & { fellBackTo?: string } {
  const value = geminiJson(stdout, stderr);
  const stats = readGeminiStats(value?.stats);
  const model = stats.models[0] ?? requested;
  const meta = { model, agent_version: opts.agent_version ?? null };
  if (value && isObject(value.error)) return { ok: false, error: geminiError(value.error, exitCode, opts.timeZone), usage: stats.usage, ...meta };
  if (!value || typeof value.response !== 'string') {
    const text = [stdout.trim(), stderr.trim()].filter(Boolean).join('\n');
    if (USAGE_ERROR_RE.test(text)) return { ...fail('config', `gemini rejected its arguments: ${text.slice(0, 400)}`), ...meta };
    const typed = exitCode !== null ? EXIT_TYPES[exitCode] : undefined;
    const why = text.slice(-600) || (exitCode === 0 ? 'gemini printed no result' : `gemini exited with code ${exitCode} and printed no result`);
    return { ok: false, error: typed ? { type: typed, message: why } : classifyCliError(why, undefined, { timeZone: opts.timeZone }), ...meta };
  }
  // Exit 0 proves nothing: a stream that broke off (NO_FINISH_REASON, say) ends with an empty or partial
  // `response` and the failure only in `stats`. No text at all (NO_RESPONSE_TEXT) is an empty reply.
  const failures = stats.errors.filter((e) => e !== 'NO_RESPONSE_TEXT');
  if (failures.length > 0)
    return {
      ok: false,
      error: { type: 'provider', message: `gemini reported ${failures.join(', ')} from the model API and no complete answer` },
      usage: stats.usage,
      ...meta,
    };
  const response: AdapterResponse & { fellBackTo?: string } = { ok: true, reply: value.response, stop: 'complete', usage: stats.usage, ...meta };
  if (stats.models.length > 0 && !stats.models.includes(requested)) response.fellBackTo = model;
  return response;
}

/**
 * Gemini CLI records every session (the prompt included) under `~/.gemini/tmp/<project>` and
 * `~/.gemini/history/<project>`, where the project is the working directory registered in
 * `~/.gemini/projects.json`; it has no switch to keep none. The adapter removes what the CLI
 * recorded for its own temporary directory, and that directory's registration.
 */
export function forgetGeminiProject(env: NodeJS.ProcessEnv, cwd: string): void {
  const dir = geminiDir(env);
  const file = join(dir, 'projects.json');
  let real = cwd;
  try {
    real = realpathSync(cwd);
  } catch {
    // already gone
  }
  let registry: { projects?: Record<string, unknown> };
  try {
    registry = JSON.parse(readFileSync(file, 'utf8')) as { projects?: Record<string, unknown> };
  } catch {
    return;
  }
  const projects = isObject(registry.projects) ? registry.projects : {};
  let changed = false;
  for (const path of [cwd, real]) {
    const id = projects[path];
    if (typeof id !== 'string' || !/^[A-Za-z0-9._-]+$/.test(id)) continue;
    for (const sub of ['tmp', 'history']) rmSync(join(dir, sub, id), { recursive: true, force: true });
    delete projects[path];
    changed = true;
  }
  if (changed) {
    // Staged under a fresh name (never through a symlink planted there) and renamed: a
    // concurrent gemini reads the old registry or the new one, never half of one.
    writeFileAtomic(file, `${JSON.stringify({ ...registry, projects }, null, 2)}\n`, { sync: false });
  }
}

async function dispatch(request: AdapterRequest, ctx: AdapterContext): Promise<AdapterResponse> {
  const { env } = ctx;
  const found = programOrFailure(CLI, env);
  if ('failure' in found) return found.failure;
  const { program } = found;
  // The working directory's name is unique: Gemini CLI names the project it records after it.
  const tmp = makeTempDir('bounce-gemini-');
  const cwd = tmp;
  const childTmp = join(tmp, '.tmp');
  mkdirSync(join(cwd, '.gemini'));
  mkdirSync(childTmp);
  writeFileSync(join(cwd, '.gemini', 'settings.json'), `${JSON.stringify(TEXT_PASS_SETTINGS)}\n`);
  const childEnv = buildGeminiEnv(env, childTmp);
  let exited: Promise<void> = Promise.resolve();
  try {
    const run = await runCli({
      program,
      args: buildGeminiArgs(request.options),
      input: request.prompt,
      env: childEnv,
      cwd,
      deadline: request.deadline,
      signal: ctx.signal,
      stderr: ctx.stderr,
      secrets: secretsOf(FACTS, env),
    });
    exited = run.exited;
    const version = (await ctx.probe.known(program)) ?? packageVersion(program, CLI.npmPackage);
    const meta = { model: geminiModel(request.options), agent_version: version };
    const failed = runFailure(run, 'gemini', program, request.deadline, meta);
    if (failed) return failed;
    const { fellBackTo, ...response } = parseGeminiOutput(run.stdout, run.stderr, run.exitCode, meta.model, { agent_version: version, timeZone: env.TZ });
    if (!fellBackTo || !response.ok) return response;
    const warning = `${meta.model} was asked for, but ${fellBackTo} answered (Gemini CLI fell back to another model)`;
    ctx.stderr(`gemini warning: ${warning}\n`);
    return { ...response, warnings: [...(response.warnings ?? []), warning] };
  } finally {
    forgetGeminiProject(childEnv, cwd);
    removeTempDir(tmp, exited);
  }
}

/**
 * No API call: the CLI must start, and the auth method it will use must have what it
 * needs (a key variable, a Google Cloud project, a stored Google login).
 */
async function check(options: AgentOptions, { env, probe }: CheckContext): Promise<CheckResult> {
  const program = findProgram(CLI, env);
  const auth = geminiAuthType(env);
  const resolved: CheckResult['resolved'] = { program, model: geminiModel(options), auth_type: auth.type, gemini_home: geminiDir(env) };
  const failed = (problem: CheckProblem): CheckResult => ({ ok: false, version: null, problems: [problem], warnings: [], resolved });
  if (!program) return failed({ kind: 'not_found', ...notFound(CLI, env) });
  const version = await probe.version(program, withoutParentSession(CLI, env));
  if (!version) return failed(await probe.versionProblem(program, CLI));
  const report = loginReport(await geminiLogin(env));
  Object.assign(resolved, report.resolved);
  const base = FACTS.baseUrlEnv ? env[FACTS.baseUrlEnv]?.trim() : undefined;
  if (base) resolved.base_url = displayUrl(base);
  return { ok: report.problems.length === 0, version, problems: report.problems, warnings: report.warnings, resolved };
}

export const adapter: AdapterProgram = { dispatch, check };

if (isMain(import.meta.url)) void runAdapter(adapter);
