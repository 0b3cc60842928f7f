#!/usr/bin/env node
/**
 * The codex adapter: one `codex exec` (Codex CLI) call per dispatch, prompt on stdin, a
 * read-only sandbox in a fresh empty directory, no session saved. The user's
 * $CODEX_HOME/config.toml (login, model providers) stays in force; the retries of the
 * providers it defines are turned off with -c overrides: only the runner retries.
 * docs/adapters.md#codex
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AdapterContext, type AdapterProgram, type CheckContext, isMain, type PreparedCli, runAdapter } from '../../src/kit/adapter-kit.js';
import {
  isEventLine,
  isObject,
  makeTempDir,
  modelFromArgs,
  packageVersion,
  parseJsonLines,
  programOrFailure,
  removeTempDir,
  runCli,
  runFailure,
} from '../../src/kit/cli-run.js';
import {
  type AdapterError,
  type AdapterRequest,
  type AdapterResponse,
  type AgentOptions,
  type CheckProblem,
  type CheckResult,
  emptyUsage,
  type Usage,
} from '../../src/contract/contract.js';
import { findProgram, notFound } from '../../src/kit/detect.js';
import { classifyCliError } from '../../src/kit/error-type.js';
import { nativeCodex } from './native.js';
import { codexHome, customProviderIds, keyVariables, mcpServerIds, readCodexConfig, topLevelSetting } from './config.js';
import { loginReport } from '../../src/kit/login.js';
import { codexLogin } from './login.js';
import { secretsOf } from '../../src/kit/facts.js';
import { CODEX, CODEX_CLI } from './facts.js';
import { pushAll } from '../../src/arrays.js';

export { codexHome, customProviderIds, keyVariables, mcpServerIds, readCodexConfig, topLevelSetting } from './config.js';

const FACTS = CODEX;
const CLI = CODEX_CLI;
const TOOLS_OFF = ['features.shell_tool=false', 'features.multi_agent=false', 'features.goals=false', 'web_search="disabled"'];
const USAGE_ERROR_RE = /Error loading config|config\.toml|unexpected argument|invalid value for|unknown feature flag|Usage: codex/i;

export interface CodexPaths {
  /** A fresh empty directory: the agent's working root. */
  workdir: string;
  /** Where codex writes its final message. */
  lastMessage: string;
}

/**
 * The argv after `codex`. `customProviders` are the provider ids the user's config.toml
 * defines: their request/stream retries are set to 0 (built-in providers cannot be changed).
 * `mcpServers` are its MCP servers: each is disabled (`-c mcp_servers={}` would not remove
 * them: codex merges an override into the table).
 */
export function buildCodexArgs(options: AgentOptions, paths: CodexPaths, customProviders: string[] = [], mcpServers: string[] = []): string[] {
  const args = ['exec', '--json', '--color', 'never', '--sandbox', 'read-only', '--skip-git-repo-check', '--ephemeral'];
  args.push('-C', paths.workdir, '--output-last-message', paths.lastMessage);
  // Without this codex 0.171 waits for the network forever when the endpoint refuses connections.
  args.push('-c', 'features.unbounded_connection_retries=false');
  // A text pass needs no tools: no shell (the read-only sandbox still reads the whole disk), no web, no sub-agents.
  args.push(...TOOLS_OFF.flatMap((setting) => ['-c', setting]));
  for (const id of customProviders) args.push('-c', `model_providers.${id}.request_max_retries=0`, '-c', `model_providers.${id}.stream_max_retries=0`);
  for (const id of mcpServers) args.push('-c', `mcp_servers.${id}.enabled=false`);
  if (options.model) args.push('-m', options.model);
  return [...args, ...(options.args ?? []), '-'];
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface CodexEvents {
  messages: string[];
  /** `item.completed` error items and "Reconnecting..." notices: warnings unless nothing else explains a failure. */
  warnings: string[];
  errors: string[];
  failed: string | null;
  completed: boolean;
  usage: Usage;
  noise: string[];
}

export function readCodexEvents(stdout: string): CodexEvents {
  const e: CodexEvents = { messages: [], warnings: [], errors: [], failed: null, completed: false, usage: emptyUsage(), noise: [] };
  let input = 0;
  let output = 0;
  let cached = 0;
  const { objects, noise } = parseJsonLines(stdout);
  pushAll(e.noise, noise);
  for (const ev of objects) {
    const item = isObject(ev.item) ? ev.item : null;
    if (ev.type === 'item.completed' && item?.type === 'agent_message') e.messages.push(str(item.text));
    else if (ev.type === 'item.completed' && item?.type === 'error') e.warnings.push(str(item.message));
    else if (ev.type === 'error') (/^Reconnecting\b/.test(str(ev.message)) ? e.warnings : e.errors).push(str(ev.message));
    else if (ev.type === 'turn.failed') e.failed = str(isObject(ev.error) ? ev.error.message : ev.error) || 'turn failed';
    else if (ev.type === 'turn.completed') {
      e.completed = true;
      const u = isObject(ev.usage) ? ev.usage : {};
      input += num(u.input_tokens); // includes cached_input_tokens, as in the Responses API
      output += num(u.output_tokens); // includes reasoning_output_tokens
      cached += num(u.cached_input_tokens);
    }
  }
  // Codex reports cache reads only; what it wrote to the cache is unknown.
  if (e.completed)
    e.usage = { input_tokens: input, output_tokens: output, cache_read_tokens: cached, cache_write_tokens: null, cost_usd: null, provider_reported: true };
  return e;
}

/**
 * The `turn.completed` event, codex's last word in `exec --json`: the turn's messages and
 * usage are in. codex writes the --output-last-message file only after it, so a dispatch
 * that ends here reads the reply from the events (parseCodexOutput takes either).
 */
export const isTurnCompletedLine = (line: string): boolean => isEventLine(line, 'turn.completed');

/** codex's own wording for some provider failures, which name no status. */
function codexError(message: string, timeZone: string | undefined): AdapterError {
  if (/experiencing high demand/i.test(message)) return classifyCliError(message, 500);
  // "You’ve hit your usage limit. ... try again at 2:26 PM.": a time in codex's own zone.
  return classifyCliError(message, undefined, { timeZone });
}

/**
 * One `codex exec --json` run as an adapter response. Exit 0 proves nothing: a
 * `turn.failed` or `error` event is a failure; `Incomplete response returned` (the
 * Responses API's `response.incomplete`, e.g. `max_output_tokens`) is a truncated reply.
 */
export function parseCodexOutput(
  stdout: string,
  stderr: string,
  exitCode: number | null,
  lastMessage: string | null,
  meta: { model: string | null; agent_version: string | null } = { model: null, agent_version: null },
  timeZone?: string,
): AdapterResponse {
  const e = readCodexEvents(stdout);
  const base = { usage: e.usage, ...meta };
  const partial = lastMessage || e.messages[e.messages.length - 1] || '';
  const failure = e.failed ?? e.errors[e.errors.length - 1] ?? null;
  if (failure !== null) {
    const incomplete = /Incomplete response returned(?:, reason: (\w+))?/i.exec(failure);
    if (incomplete && incomplete[1] !== 'content_filter') return { ok: true, reply: partial, stop: 'truncated', ...base };
    return { ok: false, error: codexError(failure, timeZone), ...base };
  }
  if (!e.completed) {
    const errLines = stderr.split('\n').filter((l) => l.trim() && !/^WARNING:/.test(l.trim()));
    const text = [...e.noise, ...errLines, ...e.warnings].join('\n').trim();
    if (USAGE_ERROR_RE.test(text))
      return { ok: false, error: { type: 'config', message: `codex rejected its configuration or arguments: ${text.slice(0, 400)}` }, ...base };
    return { ok: false, error: codexError(text || `codex exited with code ${exitCode} without finishing a turn`, timeZone), ...base };
  }
  return { ok: true, reply: partial, stop: 'complete', ...base };
}

/** The model named by the options, the extra args (-m / --model) or config.toml; null when unknown. */
export function codexModel(options: AgentOptions, toml: string): string | null {
  return options.model ?? modelFromArgs(options.args ?? []) ?? topLevelSetting(toml, 'model');
}

const versionOf = (line: string | null): string | null => (line ? line.replace(/^codex(-cli)?\s+/i, '') : null);

/** The version of the `@openai/codex` package the program belongs to (`codex exec --json` does not say). */
export const codexPackageVersion = (program: string): string | null => packageVersion(program, CLI.npmPackage);

/** Where codex works and writes its final message, inside a dispatch's temporary folder. */
const pathsIn = (tmp: string): CodexPaths => ({ workdir: join(tmp, 'work'), lastMessage: join(tmp, 'last-message.txt') });

/** The CLI a dispatch with these options starts, in a fresh empty temporary directory. */
async function prepare(options: AgentOptions, { env }: { env: NodeJS.ProcessEnv }): Promise<PreparedCli | AdapterResponse> {
  const found = programOrFailure(CLI, env);
  if ('failure' in found) return found.failure;
  const { program } = found;
  const toml = readCodexConfig(env);
  const tmp = makeTempDir('bounce-codex-');
  const paths = pathsIn(tmp);
  mkdirSync(paths.workdir);
  // The npm launcher's binary, started directly: the launcher is a Node start of its own.
  const native = nativeCodex(program, env);
  const args = buildCodexArgs(options, paths, customProviderIds(toml), mcpServerIds(toml));
  return { start: { program: native?.program ?? program, args, env: native?.env ?? env, cwd: paths.workdir }, tmp, program };
}

async function dispatch(request: AdapterRequest, ctx: AdapterContext): Promise<AdapterResponse> {
  const { env } = ctx;
  const prepared = ctx.warm ?? (await prepare(request.options, ctx));
  if (!('start' in prepared)) return prepared;
  const { program, tmp } = prepared;
  const toml = readCodexConfig(env);
  const paths = pathsIn(tmp);
  let exited: Promise<void> = Promise.resolve();
  try {
    const run = await runCli({
      ...prepared.start,
      input: request.prompt,
      deadline: request.deadline,
      signal: ctx.signal,
      stderr: ctx.stderr,
      secrets: secretsOf(FACTS, env, keyVariables(toml)),
      // codex takes a while to exit after the turn; the next pass need not wait for that.
      answered: isTurnCompletedLine,
      release: ctx.release,
      ready: ctx.ready,
      ...(prepared.warm ? { warm: prepared.warm } : {}),
    });
    exited = run.exited;
    // The check of this invocation asked `--version` already; else the package says.
    const version = versionOf((await ctx.probe.known(program)) ?? null) ?? codexPackageVersion(program);
    const meta = { model: codexModel(request.options, toml), agent_version: version };
    const failed = runFailure(run, 'codex', program, request.deadline, meta);
    if (failed) return failed;
    let lastMessage: string | null = null;
    try {
      lastMessage = readFileSync(paths.lastMessage, 'utf8');
    } catch {
      // codex writes it only when a turn ends; the events still carry the messages.
    }
    const warnings = readCodexEvents(run.stdout).warnings;
    if (warnings.length) ctx.stderr(warnings.map((w) => `codex warning: ${w}\n`).join(''));
    return parseCodexOutput(run.stdout, run.stderr, run.exitCode, lastMessage, meta, env.TZ);
  } finally {
    removeTempDir(tmp, exited);
  }
}

/**
 * No API call: the CLI must start, and it must have a credential: the custom provider's
 * `env_key` variable, CODEX_API_KEY, or a stored login (`codex login status`, offline).
 */
async function check(options: AgentOptions, { env, probe }: CheckContext): Promise<CheckResult> {
  const program = findProgram(CLI, env);
  const toml = readCodexConfig(env);
  const provider = topLevelSetting(toml, 'model_provider') ?? 'openai';
  const resolved: CheckResult['resolved'] = { program, model: codexModel(options, toml), model_provider: provider, codex_home: codexHome(env) };
  const failed = (problem: CheckProblem): CheckResult => ({ ok: false, version: null, problems: [problem], warnings: [], resolved });
  if (!program) return failed({ kind: 'not_found', ...notFound(CLI, env) });
  const version = versionOf(await probe.version(program, env));
  if (!version) return failed(await probe.versionProblem(program, CLI));
  const report = loginReport(await codexLogin(program, env, probe));
  Object.assign(resolved, report.resolved);
  return { ok: report.problems.length === 0, version, problems: report.problems, warnings: report.warnings, resolved };
}

// The CLI is started before its prompt may go (CallOptions.ready): it loads while the runner records the dispatch.
export const adapter: AdapterProgram = { dispatch, check, startsEarly: true, prepare };

if (isMain(import.meta.url)) void runAdapter(adapter);
