#!/usr/bin/env node
/**
 * The opencode adapter: one `opencode run --format json` call per dispatch, prompt on stdin,
 * in a fresh empty directory, every tool denied and every MCP server of the user's config
 * disabled (an inline config above the user's), the session title given (no extra model
 * call to make one up) and the session kept in a throwaway database. The user's config,
 * providers and logins stay in force. docs/adapters.md#opencode
 */
import { join } from 'node:path';
import { type AdapterContext, type AdapterProgram, type CheckContext, isMain, runAdapter } from '../../src/kit/adapter-kit.js';
import { type OpencodeConfig, opencodeConfigDir, readOpencodeConfig } from './config.js';
import {
  isObject,
  type Json,
  makeTempDir,
  modelFromArgs,
  packageVersion,
  parseJsonLines,
  programOrFailure,
  removeTempDir,
  runCli,
  runFailure,
} from '../../src/kit/cli-run.js';
import type { AdapterError, AdapterRequest, AdapterResponse, AgentOptions, CheckProblem, CheckResult, Usage } from '../../src/contract/contract.js';
import { emptyUsage } from '../../src/contract/contract.js';
import { findProgram, notFound } from '../../src/kit/detect.js';
import { classifyCliError } from '../../src/kit/error-type.js';
import { loginReport } from '../../src/kit/login.js';
import { opencodeLogin } from './login.js';
import { secretsOf, withoutParentSession } from '../../src/kit/facts.js';
import { OPENCODE, OPENCODE_CLI } from './facts.js';

const FACTS = OPENCODE;
const CLI = OPENCODE_CLI;
const USAGE_ERROR_RE =
  /Unknown argument|Not enough arguments|Invalid values:|ConfigInvalidError|Config file at .* is not valid|ProviderModelNotFoundError|Model not found/i;

/** The session title passed on the command line: without one opencode asks the model to write it (a second call with the prompt). */
export const SESSION_TITLE = 'bounce';

/** The argv after `opencode`. `--auto` is never passed: nothing is auto-approved. */
export function buildOpencodeArgs(options: AgentOptions): string[] {
  const args = ['run', '--format', 'json', '--title', SESSION_TITLE];
  if (options.model) args.push('-m', options.model);
  return [...args, ...(options.args ?? [])];
}

/** What of the user's config the inline config must override: its MCP servers, permission rules and tool switches. */
export type UserRules = Pick<OpencodeConfig, 'mcpServers' | 'permissions' | 'agentPermissions' | 'tools'>;

const NO_RULES: UserRules = { mcpServers: [], permissions: [], agentPermissions: {}, tools: [] };

/**
 * The inline config (`OPENCODE_CONFIG_CONTENT`, merged above the user's files): every tool
 * denied (a denied tool is not offered to the model at all). opencode merges the rules
 * key by key and the last matching rule wins, so each rule of the user's (`bash: allow`,
 * an agent's own rules, an old `tools` switch) is turned into a denial too, and every MCP
 * server the user's config or inline config names is disabled. A user's own inline config
 * is kept under it.
 */
export function textPassConfig(rules: UserRules, userInline?: string): Json {
  let inline: Json = {};
  try {
    const value: unknown = userInline ? JSON.parse(userInline) : {};
    if (isObject(value)) inline = value;
  } catch {
    // not JSON: opencode would reject it too; ours replaces it
  }
  const keysOf = (v: unknown): string[] => Object.keys(isObject(v) ? v : {});
  const deny = (keys: readonly string[]): Json => Object.fromEntries([...new Set([...keys, '*'])].map((k) => [k, 'deny']));
  const mcp = [...new Set([...rules.mcpServers, ...keysOf(inline.mcp)])];
  const tools = [...new Set([...rules.tools, ...keysOf(inline.tools)])];
  const agents = { ...rules.agentPermissions };
  for (const [agent, settings] of Object.entries(isObject(inline.agent) ? inline.agent : {}))
    agents[agent] = [...(agents[agent] ?? []), ...keysOf(isObject(settings) ? settings.permission : undefined)];
  const config: Json = {
    ...inline,
    permission: deny([...rules.permissions, ...keysOf(inline.permission)]),
    mcp: Object.fromEntries(mcp.map((id) => [id, { enabled: false }])),
  };
  if (tools.length) config.tools = Object.fromEntries(tools.map((t) => [t, false]));
  const agentRules = Object.entries(agents).filter(([, keys]) => keys.length > 0);
  if (agentRules.length)
    config.agent = { ...(isObject(inline.agent) ? inline.agent : {}), ...Object.fromEntries(agentRules.map(([a, keys]) => [a, { permission: deny(keys) }])) };
  return config;
}

/**
 * The child's environment: ours, minus a parent opencode session's markers, plus the inline
 * config, a throwaway session database (`OPENCODE_DB`, in the adapter's temp dir), and no
 * auto-update, auto-compaction (which would resend the document after a context error),
 * project config, Claude Code files (`~/.claude/CLAUDE.md`, skills) or session sharing.
 */
export function buildOpencodeEnv(env: NodeJS.ProcessEnv, tmp: string, rules: UserRules = NO_RULES): NodeJS.ProcessEnv {
  return {
    ...withoutParentSession(CLI, env),
    OPENCODE_CONFIG_CONTENT: JSON.stringify(textPassConfig(rules, env.OPENCODE_CONFIG_CONTENT)),
    OPENCODE_DB: join(tmp, 'opencode.db'),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_AUTOCOMPACT: '1',
    OPENCODE_DISABLE_PROJECT_CONFIG: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
    OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
    OPENCODE_DISABLE_SHARE: '1',
  };
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface OpencodeEvents {
  /** Text of each text part, by part id, in order. */
  texts: Map<string, string>;
  steps: number;
  /** The last step's finish reason (`stop`, `length`, `tool-calls`, ...). */
  reason: string | null;
  usage: Usage;
  errors: Json[];
  noise: string[];
}

/**
 * `opencode run --format json` events: `text` (the reply in `part.text`), `step_finish`
 * (`part.tokens`: input without cached tokens, output, reasoning, cache read/write; `part.cost`),
 * `error` (`error.name`, `error.data.message`, `statusCode`).
 */
export function readOpencodeEvents(stdout: string): OpencodeEvents {
  const { objects, noise } = parseJsonLines(stdout);
  const e: OpencodeEvents = { texts: new Map(), steps: 0, reason: null, usage: emptyUsage(), errors: [], noise };
  let input = 0;
  let output = 0;
  let read = 0;
  let write = 0;
  let cost = 0;
  for (const ev of objects) {
    const part = isObject(ev.part) ? ev.part : {};
    if (ev.type === 'text' && typeof part.text === 'string') e.texts.set(str(part.id) || `#${e.texts.size}`, part.text);
    else if (ev.type === 'error') e.errors.push(isObject(ev.error) ? ev.error : { name: 'error', data: { message: str(ev.error) } });
    else if (ev.type === 'step_finish') {
      e.steps++;
      e.reason = str(part.reason) || null;
      const t = isObject(part.tokens) ? part.tokens : {};
      const cache = isObject(t.cache) ? t.cache : {};
      input += num(t.input);
      output += num(t.output) + num(t.reasoning);
      read += num(cache.read);
      write += num(cache.write);
      cost += typeof part.cost === 'number' && part.cost >= 0 ? part.cost : 0;
    }
  }
  if (e.steps > 0) {
    // opencode's `input` leaves the cached tokens out; bounce counts every prompt token. A cost of 0 is an unpriced model, not a free one.
    e.usage = {
      input_tokens: input + read + write,
      output_tokens: output,
      cache_read_tokens: read,
      cache_write_tokens: write,
      cost_usd: cost > 0 ? cost : null,
      provider_reported: true,
    };
  }
  return e;
}

/** An `error` event as an adapter error: the HTTP status when opencode gives one, else its error name and wording. */
function opencodeError(error: Json, timeZone: string | undefined): AdapterError {
  const data = isObject(error.data) ? error.data : {};
  const name = str(error.name);
  const message = str(data.message) || name || 'opencode failed';
  const status = typeof data.statusCode === 'number' ? data.statusCode : undefined;
  if (name === 'ContextOverflowError') return { type: 'config', message: `the prompt does not fit the model's context: ${message}`.slice(0, 600) };
  if (name === 'ProviderAuthError') return { type: 'auth', message: message.slice(0, 600) };
  if (status === undefined && USAGE_ERROR_RE.test(`${name} ${message}`)) return { type: 'config', message: `${name}: ${message}`.slice(0, 600) };
  return classifyCliError(message, status, { timeZone });
}

/**
 * One `opencode run --format json` run as an adapter response. Exit 0 proves nothing (users
 * report errors with exit 0): an `error` event is a failure whatever the exit code.
 */
export function parseOpencodeOutput(
  stdout: string,
  stderr: string,
  exitCode: number | null,
  meta: { model: string | null; agent_version: string | null } = { model: null, agent_version: null },
  timeZone?: string,
): AdapterResponse {
  const e = readOpencodeEvents(stdout);
  const base = { usage: e.usage, ...meta };
  const error = e.errors[0];
  if (error) return { ok: false, error: opencodeError(error, timeZone), ...base };
  if (e.steps === 0) {
    const text = [...e.noise, stderr.trim()].filter(Boolean).join('\n').trim();
    if (USAGE_ERROR_RE.test(text))
      return { ok: false, error: { type: 'config', message: `opencode rejected its configuration or arguments: ${text.slice(0, 400)}` }, ...base };
    const why = text.slice(-600) || (exitCode === 0 ? 'opencode printed no result' : `opencode exited with code ${exitCode} and printed no result`);
    return { ok: false, error: classifyCliError(why, undefined, { timeZone }), ...base };
  }
  const reply = [...e.texts.values()].join('');
  return { ok: true, reply, stop: e.reason === 'length' ? 'truncated' : 'complete', ...base };
}

/** The model named by the options, the extra args (`-m` / `--model`) or the user's config; null when opencode decides. */
export function opencodeModel(options: AgentOptions, configModel: string | null): string | null {
  return options.model ?? modelFromArgs(options.args ?? []) ?? configModel;
}

async function dispatch(request: AdapterRequest, ctx: AdapterContext): Promise<AdapterResponse> {
  const { env } = ctx;
  const found = programOrFailure(CLI, env);
  if ('failure' in found) return found.failure;
  const { program } = found;
  const config = readOpencodeConfig(env);
  const tmp = makeTempDir('bounce-opencode-');
  let exited: Promise<void> = Promise.resolve();
  try {
    const run = await runCli({
      program,
      args: buildOpencodeArgs(request.options),
      input: request.prompt,
      env: buildOpencodeEnv(env, tmp, config),
      cwd: tmp,
      deadline: request.deadline,
      signal: ctx.signal,
      stderr: ctx.stderr,
      secrets: secretsOf(FACTS, env, config.envRefs),
    });
    exited = run.exited;
    const version = (await ctx.probe.known(program)) ?? packageVersion(program, CLI.npmPackage);
    const meta = { model: opencodeModel(request.options, config.model), agent_version: version };
    const failed = runFailure(run, 'opencode', program, request.deadline, meta);
    if (failed) return failed;
    const events = readOpencodeEvents(run.stdout);
    if (events.steps > 1) ctx.stderr(`opencode warning: the answer took ${events.steps} model steps (tool-less, one was expected)\n`);
    return parseOpencodeOutput(run.stdout, run.stderr, run.exitCode, meta, env.TZ);
  } finally {
    removeTempDir(tmp, exited);
  }
}

/** No API call: the CLI must start, and opencode must have a credential for the model's provider (read offline). */
async function check(options: AgentOptions, { env, probe }: CheckContext): Promise<CheckResult> {
  const program = findProgram(CLI, env);
  const config = readOpencodeConfig(env);
  const model = opencodeModel(options, config.model);
  const resolved: CheckResult['resolved'] = { program, model, config_dir: opencodeConfigDir(env) };
  const failed = (problem: CheckProblem): CheckResult => ({ ok: false, version: null, problems: [problem], warnings: [], resolved });
  if (!program) return failed({ kind: 'not_found', ...notFound(CLI, env) });
  const version = await probe.version(program, withoutParentSession(CLI, env));
  if (!version) return failed(await probe.versionProblem(program, CLI));
  const report = loginReport(await opencodeLogin(model, env));
  Object.assign(resolved, report.resolved);
  return { ok: report.problems.length === 0, version, problems: report.problems, warnings: report.warnings, resolved };
}

export const adapter: AdapterProgram = { dispatch, check };

if (isMain(import.meta.url)) void runAdapter(adapter);
