#!/usr/bin/env node
/**
 * The claude adapter: one `claude -p` (Claude Code CLI) call per dispatch, prompt on stdin,
 * no tools, no session saved, in a fresh empty directory. Claude Code's own API retries
 * are turned off (CLAUDE_CODE_MAX_RETRIES=0): only the runner retries. docs/adapters.md#claude
 */
import { type AdapterContext, type AdapterProgram, type CheckContext, fail, isMain, type PreparedCli, runAdapter } from '../../src/kit/adapter-kit.js';
import {
  isEventLine,
  isObject,
  programOrFailure,
  type Json,
  makeTempDir,
  packageVersion,
  parseJsonLines,
  removeTempDir,
  runCli,
  tooLargeMessage,
} from '../../src/kit/cli-run.js';
import type { AdapterRequest, AdapterResponse, AgentOptions, CheckProblem, CheckResult, Usage } from '../../src/contract/contract.js';
import { findProgram, notFound, type Probe } from '../../src/kit/detect.js';
import { displayUrl } from '../../src/kit/endpoint.js';
import { classifyCliError } from '../../src/kit/error-type.js';
import { loginReport } from '../../src/kit/login.js';
import { CLAUDE_LOGIN_FIX, claudeLogin, claudeUsesApiKey } from './login.js';
import { secretsOf, withoutParentSession } from '../../src/kit/facts.js';
import { CLAUDE, CLAUDE_CLI } from './facts.js';

const FACTS = CLAUDE;
const CLI = CLAUDE_CLI;
const USAGE_ERROR_RE = /unknown option|unexpected argument|invalid (value|argument)|too many arguments|missing required|error: option/i;

/**
 * Claude Code's built-in tools, denied as a backstop to `--tools=` (which offers none): if a
 * later version ignored an empty `--tools`, none of these could run anyway.
 */
export const DENIED_TOOLS = [
  'Agent',
  'Task',
  'Bash',
  'BashOutput',
  'KillShell',
  'Read',
  'Edit',
  'MultiEdit',
  'Write',
  'Glob',
  'Grep',
  'LS',
  'NotebookEdit',
  'WebFetch',
  'WebSearch',
  'TodoWrite',
  'Skill',
  'SlashCommand',
  'ExitPlanMode',
];

/**
 * Settings given on the command line, above the user's: no hooks (theirs or a plugin's),
 * no auto-memory, and no spinner tips (working out which tips apply runs `ps aux` to look
 * for IDEs and ripgrep over the working directory, for a screen a text pass never shows). The user's settings still load (`--setting-sources user`): their
 * `env` (a proxy's ANTHROPIC_BASE_URL, say), `apiKeyHelper` and model keep working.
 */
export const FLAG_SETTINGS = JSON.stringify({ disableAllHooks: true, autoMemoryEnabled: false, spinnerTipsEnabled: false });

/**
 * The argv after `claude`. Project and local settings are not read (`--setting-sources
 * user`), nor MCP servers (`--strict-mcp-config`). The `=` forms and `--tools=` last: the
 * variadic parsers of `--disallowedTools` and `--tools` would swallow what follows.
 * `bare` (see useBareMode) starts Claude Code in its minimal mode.
 */
export function buildClaudeArgs(options: AgentOptions, bare = false): string[] {
  const args = bare ? ['--bare'] : [];
  args.push('-p', '--output-format', 'stream-json', '--verbose', '--no-session-persistence', '--max-turns', '1');
  args.push('--strict-mcp-config', '--setting-sources', 'user', '--settings', FLAG_SETTINGS);
  if (options.model) args.push('--model', options.model);
  if (options.max_budget_usd !== undefined) args.push('--max-budget-usd', String(options.max_budget_usd));
  return [...args, ...(options.args ?? []), `--disallowedTools=${DENIED_TOOLS.join(',')}`, '--tools='];
}

/**
 * Whether a dispatch runs Claude Code with `--bare`: when the child authenticates with
 * ANTHROPIC_API_KEY for certain (a subscription login fails in that mode) and the CLI is
 * known to have it (2.1.81 or later: the version preflight found, else its package's). The minimal mode
 * skips what a text pass has no use for (hooks, plugins, LSP, CLAUDE.md discovery,
 * background prefetches, keychain reads) and replaces Claude Code's system prompt of a
 * coding agent (about 3,600 characters with no tools) by one line of working directory and
 * date: fewer input tokens per call, and the CLI starts sooner. User settings (`env`,
 * `model`) still apply. Not twice when the user's args have it.
 */
export function useBareMode(options: AgentOptions, childEnv: NodeJS.ProcessEnv, version: string | null): boolean {
  return hasBareMode(version) && !(options.args ?? []).includes('--bare') && claudeUsesApiKey(childEnv);
}

/** The first Claude Code with `--bare` (its 2.1.81 release notes). */
const BARE_SINCE = [2, 1, 81];

/** Whether a Claude Code version (`2.1.197`, `2.1.197 (Claude Code)`) has `--bare`; an unknown one is taken not to. */
export function hasBareMode(version: string | null): boolean {
  const parts = /^(\d+)\.(\d+)\.(\d+)/.exec(version?.trim() ?? '');
  if (!parts) return false;
  const [major, minor, patch] = parts.slice(1).map(Number) as [number, number, number];
  for (const [i, have] of [major, minor, patch].entries()) if (have !== BARE_SINCE[i]) return have > (BARE_SINCE[i] ?? 0);
  return true;
}

/**
 * What a text pass must not carry: CLAUDE.md files (the user's, and any a project around the
 * temp dir has), auto-memory, and the git status of a repository the temp dir may sit in.
 */
const ISOLATION_ENV = { CLAUDE_CODE_DISABLE_CLAUDE_MDS: '1', CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1', CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: '1' };

/**
 * The child's environment: ours, minus a parent session's markers, with retries off, the
 * output cap, no CLAUDE.md, memory or git status, and no nonessential traffic: without it
 * Claude Code sends the whole prompt a second time to make up a session title (plus telemetry).
 */
export function buildClaudeEnv(options: AgentOptions, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {
    ...withoutParentSession(CLI, env),
    CLAUDE_CODE_MAX_RETRIES: '0',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...ISOLATION_ENV,
  };
  if (options.max_output_tokens !== undefined) out.CLAUDE_CODE_MAX_OUTPUT_TOKENS = String(options.max_output_tokens);
  return out;
}

/** Claude Code prices usage from Anthropic's list prices; behind another ANTHROPIC_BASE_URL that figure means nothing. */
export function costIsMeaningful(env: NodeJS.ProcessEnv): boolean {
  const base = env.ANTHROPIC_BASE_URL?.trim();
  if (!base) return true;
  try {
    return new URL(base).hostname === 'api.anthropic.com';
  } catch {
    return false;
  }
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);

interface ClaudeStream {
  events: Json[];
  /** Lines that are not JSON objects: Claude Code sometimes prints errors on stdout. */
  noise: string[];
  version: string | null;
  model: string | null;
  result: Json | null;
  /** Text of each real (not synthetic) model message, keyed by message id, in order. */
  texts: Map<string, string>;
}

/** The `result` event, the last one Claude Code prints in stream-json: the answer is complete once it is in. */
export const isResultLine = (line: string): boolean => isEventLine(line, 'result');

function readStream(stdout: string): ClaudeStream {
  const { objects, noise } = parseJsonLines(stdout);
  const s: ClaudeStream = { events: objects, noise, version: null, model: null, result: null, texts: new Map() };
  for (const value of objects) {
    if (value.type === 'system' && value.subtype === 'init') {
      if (typeof value.claude_code_version === 'string') s.version = value.claude_code_version;
      if (typeof value.model === 'string') s.model = value.model;
    } else if (value.type === 'result') s.result = value;
    else if (value.type === 'assistant' && isObject(value.message) && value.message.model !== '<synthetic>') {
      const content = Array.isArray(value.message.content) ? value.message.content : [];
      const text = content
        .filter((c): c is Json => isObject(c) && c.type === 'text' && typeof c.text === 'string')
        .map((c) => c.text as string)
        .join('');
      const id = typeof value.message.id === 'string' ? value.message.id : `#${s.events.length}`;
      if (text) s.texts.set(id, (s.texts.get(id) ?? '') + text);
    }
  }
  return s;
}

function usageOf(result: Json, costKnown: boolean): Usage {
  const u = isObject(result.usage) ? result.usage : null;
  const cost = typeof result.total_cost_usd === 'number' && result.total_cost_usd >= 0 ? result.total_cost_usd : null;
  // input_tokens counts every prompt token: the API reports the cached ones apart, so they are added in.
  return {
    input_tokens: u ? num(u.input_tokens) + num(u.cache_creation_input_tokens) + num(u.cache_read_input_tokens) : null,
    output_tokens: u ? num(u.output_tokens) : null,
    cache_read_tokens: u ? num(u.cache_read_input_tokens) : null,
    cache_write_tokens: u ? num(u.cache_creation_input_tokens) : null,
    cost_usd: costKnown ? cost : null,
    provider_reported: u !== null,
  };
}

/** The model that produced most output, from `modelUsage` (e.g. `claude-opus-4-8[1m]`), else the session's model. */
function modelOf(result: Json, fallback: string | null): string | null {
  const usage = isObject(result.modelUsage) ? Object.entries(result.modelUsage) : [];
  usage.sort(([, a], [, b]) => num(isObject(b) ? b.outputTokens : 0) - num(isObject(a) ? a.outputTokens : 0));
  return usage[0]?.[0] ?? fallback;
}

/**
 * One `claude -p --output-format stream-json --verbose` run as an adapter response. Claude
 * Code answers a reply cut at the output cap by asking the model to resume (up to 3 times)
 * and then reports only the LAST piece as `result`: more than one model message in a
 * tool-less single turn therefore means the reply was cut, and it is reported truncated.
 */
export function parseClaudeOutput(
  stdout: string,
  stderr: string,
  exitCode: number | null,
  opts: { costKnown?: boolean; timeZone?: string } = {},
): AdapterResponse {
  const classify = (text: string, status?: number | null) => classifyCliError(text, status, { timeZone: opts.timeZone });
  const s = readStream(stdout);
  const meta = { agent_version: s.version, model: s.model };
  if (!s.result) {
    const text = [...s.noise, stderr.trim()].filter(Boolean).join('\n').trim();
    if (USAGE_ERROR_RE.test(text)) return { ...fail('config', `claude rejected its arguments: ${text.slice(0, 400)}`), ...meta };
    const why = text || (exitCode === 0 ? 'claude printed no result' : `claude exited with code ${exitCode} and printed no result`);
    return { ok: false, error: classify(why), ...meta };
  }
  const r = s.result;
  const usage = usageOf(r, opts.costKnown ?? true);
  const base = { usage, model: modelOf(r, s.model), agent_version: s.version };
  const message = typeof r.result === 'string' ? r.result : '';
  const pieces = [...s.texts.values()];
  if (r.is_error === true || r.subtype !== 'success') {
    if (/output token maximum|max_output_tokens/i.test(message)) return { ok: true, reply: pieces.join(''), stop: 'truncated', ...base };
    if (r.subtype === 'error_max_turns')
      return { ok: false, error: { type: 'provider', message: 'claude stopped at its turn limit (--max-turns 1) before a final answer' }, ...base };
    if (r.subtype === 'error_max_budget_usd')
      return { ok: false, error: { type: 'config', message: 'claude stopped at --max-budget-usd: raise max_budget_usd for this agent' }, ...base };
    const status = typeof r.api_error_status === 'number' ? r.api_error_status : null;
    return { ok: false, error: classify(message || `claude failed (${String(r.subtype)})`, status), ...base };
  }
  const continued = pieces.length > 1;
  if (continued || r.stop_reason === 'max_tokens') return { ok: true, reply: continued ? pieces.join('') : message, stop: 'truncated', ...base };
  // A known Claude Code bug leaves `result` empty although the model wrote text: use that text.
  return { ok: true, reply: message || (pieces[0] ?? ''), stop: 'complete', ...base };
}

/** The CLI a dispatch with these options starts, in a fresh empty temporary directory. */
async function prepare(options: AgentOptions, { env, probe }: { env: NodeJS.ProcessEnv; probe: Probe }): Promise<PreparedCli | AdapterResponse> {
  const found = programOrFailure(CLI, env);
  if ('failure' in found) return found.failure;
  const { program } = found;
  const childEnv = buildClaudeEnv(options, env);
  const version = (await probe.known(program)) ?? packageVersion(program, CLI.npmPackage);
  const cwd = makeTempDir('bounce-claude-');
  return { start: { program, args: buildClaudeArgs(options, useBareMode(options, childEnv, version)), env: childEnv, cwd }, tmp: cwd, program };
}

async function dispatch(request: AdapterRequest, ctx: AdapterContext): Promise<AdapterResponse> {
  const { env } = ctx;
  const prepared = ctx.warm ?? (await prepare(request.options, ctx));
  if (!('start' in prepared)) return prepared;
  const { start, program } = prepared;
  const childEnv = start.env;
  let exited: Promise<void> = Promise.resolve();
  try {
    const run = await runCli({
      ...start,
      input: request.prompt,
      deadline: request.deadline,
      signal: ctx.signal,
      stderr: ctx.stderr,
      secrets: secretsOf(FACTS, env),
      // Claude Code takes a while to exit after its result; the next pass need not wait for that.
      answered: isResultLine,
      release: ctx.release,
      ready: ctx.ready,
      ...(prepared.warm ? { warm: prepared.warm } : {}),
    });
    exited = run.exited;
    if (run.spawnError) return fail('config', `could not start ${program}: ${run.spawnError}`);
    if (run.timedOut) return fail('timeout', `claude did not finish before the deadline (${request.deadline}); its process group was killed`);
    if (run.tooLarge) return fail('config', tooLargeMessage('claude', run.tooLarge));
    const response = parseClaudeOutput(run.stdout, run.stderr, run.exitCode, { costKnown: costIsMeaningful(childEnv), timeZone: childEnv.TZ });
    // refine may have read the login offline rather than asking the CLI: a rejected credential says how to fix it, as the check would.
    if (!response.ok && response.error.type === 'auth' && !response.error.message.includes(CLAUDE_LOGIN_FIX))
      return { ...response, error: { ...response.error, message: `${response.error.message}: ${CLAUDE_LOGIN_FIX}` } };
    return response;
  } finally {
    removeTempDir(prepared.tmp, exited);
  }
}

/**
 * No API call: the CLI must start, and `claude auth status` (offline) must report a login.
 * What it reports is recorded by name (`auth`, `auth_source`), and an API key that takes
 * over a subscription's billing is a warning.
 */
async function check(options: AgentOptions, { env, probe }: CheckContext): Promise<CheckResult> {
  const program = findProgram(CLI, env);
  const resolved: CheckResult['resolved'] = { program, model: options.model ?? null, max_output_tokens: options.max_output_tokens ?? null };
  const failed = (problem: CheckProblem): CheckResult => ({ ok: false, version: null, problems: [problem], warnings: [], resolved });
  if (!program) return failed({ kind: 'not_found', ...notFound(CLI, env) });
  const childEnv = buildClaudeEnv(options, env);
  const [version, login] = await Promise.all([probe.version(program, childEnv), claudeLogin(program, childEnv, probe)]);
  if (!version) return failed(await probe.versionProblem(program, CLI));
  const report = loginReport(login);
  Object.assign(resolved, report.resolved);
  const base = FACTS.baseUrlEnv ? env[FACTS.baseUrlEnv]?.trim() : undefined;
  if (base) resolved.base_url = displayUrl(base);
  const clean = version.replace(/\s*\(Claude Code\)\s*$/, '');
  return { ok: report.problems.length === 0, version: clean, problems: report.problems, warnings: report.warnings, resolved };
}

// The CLI is started before its prompt may go (CallOptions.ready): it loads while the runner records the dispatch.
export const adapter: AdapterProgram = { dispatch, check, startsEarly: true, prepare };

if (isMain(import.meta.url)) void runAdapter(adapter);
