/**
 * `anthropic` adapter: one non-streaming Messages API call (`POST {base}/v1/messages`).
 * base: options.base_url, then ANTHROPIC_BASE_URL, then the API itself.
 * Key: the variable named by api_key_env (default ANTHROPIC_API_KEY), sent as `x-api-key`;
 * required on every endpoint, loopback included (the API and its proxies always want one).
 * The default model and max_tokens (from max_output_tokens) are in facts.ts.
 * Never retries: the runner does.
 */
import { type AdapterContext, type AdapterProgram, type CheckContext, fail, isMain, runAdapter } from '../../src/kit/adapter-kit.js';
import {
  type AdapterError,
  type AdapterRequest,
  type AdapterResponse,
  type AgentOptions,
  type CheckProblem,
  type CheckResult,
  problemLine,
} from '../../src/contract/contract.js';
import { checkEndpoint, displayUrl, endpointFor, parseRetryAfter, postJson, redact, serverMessage } from '../../src/kit/endpoint.js';
import { errorTypeForStatus } from '../../src/kit/error-type.js';
import { isQuotaText, quotaError } from '../../src/kit/quota.js';
import { ANTHROPIC } from './facts.js';
import { ownValue } from '../../src/own.js';

const FACTS = ANTHROPIC;
export const API_VERSION = '2023-06-01';

export interface Resolved {
  baseUrl: string;
  keyEnvName: string;
  model: string;
  maxTokens: number;
}

export function resolve(options: AgentOptions, env: NodeJS.ProcessEnv): Resolved {
  const endpoint = endpointFor(FACTS, options, env);
  return {
    ...endpoint,
    // The base is the origin (as for ANTHROPIC_BASE_URL); a trailing /v1 is tolerated.
    baseUrl: endpoint.baseUrl.replace(/\/v1$/, ''),
    model: options.model ?? FACTS.defaultModel ?? '',
    maxTokens: options.max_output_tokens ?? FACTS.outputTokens ?? 0,
  };
}

function optionProblems(options: AgentOptions): CheckProblem[] {
  return options.temperature !== undefined && options.temperature > 1
    ? [{ kind: 'config', message: `temperature ${options.temperature} is out of range for the Messages API`, fix: 'use a value from 0 to 1' }]
    : [];
}

export async function check(options: AgentOptions, { env }: CheckContext): Promise<CheckResult> {
  const r = resolve(options, env);
  const endpoint = checkEndpoint({ baseUrl: r.baseUrl, apiKeyEnv: r.keyEnvName, env, keyRequired: true });
  const problems = [...optionProblems(options), ...endpoint.problems];
  return {
    ok: problems.length === 0,
    version: null,
    problems,
    warnings: [],
    resolved: {
      base_url: displayUrl(r.baseUrl),
      model: r.model,
      max_output_tokens: r.maxTokens,
      api_key_env: r.keyEnvName,
      key_set: endpoint.keyEnv !== null,
      loopback: endpoint.loopback,
      anthropic_version: API_VERSION,
    },
  };
}

export function buildBody(request: AdapterRequest, r: Resolved): Record<string, unknown> {
  const body: Record<string, unknown> = { model: r.model, max_tokens: r.maxTokens, messages: [{ role: 'user', content: promptContent(request) }] };
  if (request.options.temperature !== undefined) body.temperature = request.options.temperature;
  return body;
}

/**
 * The prompt as one string, or, when the runner says which leading lines other dispatches of
 * the run send alike (stable_prefix_lines), as text blocks cut there, each stable one marked
 * with cache_control so the API caches the prefix up to it and later passes read it back.
 */
export function promptContent(request: AdapterRequest): string | Array<Record<string, unknown>> {
  const cuts: number[] = [];
  let line = 0;
  const wanted = new Set(request.stable_prefix_lines ?? []);
  for (let i = request.prompt.indexOf('\n'); i !== -1 && cuts.length < wanted.size; i = request.prompt.indexOf('\n', i + 1)) {
    line++;
    if (wanted.has(line)) cuts.push(i + 1);
  }
  // A cut at the very end would leave nothing that changes: no block is worth marking then.
  const marked = cuts.filter((c) => c < request.prompt.length);
  if (marked.length === 0) return request.prompt;
  const blocks: Array<Record<string, unknown>> = [];
  let from = 0;
  for (const cut of marked) {
    blocks.push({ type: 'text', text: request.prompt.slice(from, cut), cache_control: { type: 'ephemeral' } });
    from = cut;
  }
  blocks.push({ type: 'text', text: request.prompt.slice(from) });
  return blocks;
}

/** Anthropic error types -> adapter error types (status decides for unknown types). */
const ERROR_TYPES: Record<string, AdapterError['type']> = {
  authentication_error: 'auth',
  permission_error: 'auth',
  invalid_request_error: 'config',
  not_found_error: 'config',
  request_too_large: 'config',
  billing_error: 'quota',
  rate_limit_error: 'rate_limit',
  overloaded_error: 'rate_limit',
  api_error: 'provider',
  timeout_error: 'provider',
};

interface Message {
  model?: unknown;
  content?: Array<{ type?: unknown; text?: unknown }>;
  stop_reason?: unknown;
  usage?: { input_tokens?: unknown; output_tokens?: unknown; cache_read_input_tokens?: unknown; cache_creation_input_tokens?: unknown };
  error?: { type?: unknown; message?: unknown };
}

const count = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

/** Map a finished HTTP exchange (status + body text) to an adapter response. */
export function interpret(status: number, text: string, headers: Headers, model: string, secrets: Array<string | undefined> = []): AdapterResponse {
  let data: Message | null = null;
  try {
    data = JSON.parse(text) as Message;
  } catch {
    /* handled below */
  }
  const errorType = typeof data?.error?.type === 'string' ? data.error.type : null;
  if (status < 200 || status >= 300 || errorType !== null) {
    const type = (errorType !== null ? ownValue(ERROR_TYPES, errorType) : undefined) ?? errorTypeForStatus(status >= 300 ? status : 500);
    const message = redact(`HTTP ${status}${errorType ? ` ${errorType}` : ''}: ${serverMessage(text)}`, secrets);
    // A used-up subscription window says so in headers; a used-up credit balance comes as a 400 that says so.
    const limit = unifiedLimit(headers);
    if (type === 'quota' || limit.rejected || isQuotaText(serverMessage(text))) {
      return { ok: false, error: quotaError(message, { status, resetsAt: limit.resetsAt, retryAfterMs: parseRetryAfter(headers.get('retry-after')) }) };
    }
    const retry_after_ms = type === 'rate_limit' || type === 'provider' ? parseRetryAfter(headers.get('retry-after')) : undefined;
    return fail(type, message, { status, ...(retry_after_ms === undefined ? {} : { retry_after_ms }) });
  }
  if (data === null || !Array.isArray(data.content)) {
    return fail('provider', redact(`unexpected response: ${serverMessage(text, 120)}`, secrets), { status });
  }
  const reply = data.content.map((b) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
  const uncached = count(data.usage?.input_tokens);
  const output = count(data.usage?.output_tokens);
  const cacheRead = count(data.usage?.cache_read_input_tokens);
  const cacheWrite = count(data.usage?.cache_creation_input_tokens);
  // The API counts cached prompt tokens apart from input_tokens; bounce's input_tokens counts them all.
  const input = uncached === null ? null : uncached + (cacheRead ?? 0) + (cacheWrite ?? 0);
  return {
    ok: true,
    reply,
    stop: data.stop_reason === 'max_tokens' ? 'truncated' : 'complete',
    usage: {
      input_tokens: input,
      output_tokens: output,
      cache_read_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
      cost_usd: null,
      provider_reported: input !== null || output !== null,
    },
    model: typeof data.model === 'string' && data.model !== '' ? data.model : model,
    agent_version: null,
  };
}

/** Anthropic's subscription-window headers: `rejected` means the window is used up until the reset (epoch seconds). */
function unifiedLimit(headers: Headers): { rejected: boolean; resetsAt: number | undefined } {
  const reset = Number(headers.get('anthropic-ratelimit-unified-reset'));
  return {
    rejected: headers.get('anthropic-ratelimit-unified-status') === 'rejected',
    resetsAt: Number.isFinite(reset) && reset > 0 ? reset * 1000 : undefined,
  };
}

export async function dispatch(request: AdapterRequest, { env, signal }: AdapterContext): Promise<AdapterResponse> {
  const r = resolve(request.options, env);
  const problems = optionProblems(request.options);
  if (problems.length > 0) return fail('config', problems.map(problemLine).join('; '));
  const endpoint = checkEndpoint({ baseUrl: r.baseUrl, apiKeyEnv: r.keyEnvName, env, keyRequired: true });
  if (endpoint.problems.length > 0) return fail('config', endpoint.problems.map(problemLine).join('; '));
  const key = env[r.keyEnvName]?.trim() ?? '';
  const headers = { 'x-api-key': key, 'anthropic-version': API_VERSION };
  const result = await postJson(`${r.baseUrl}/v1/messages`, headers, buildBody(request, r), request.deadline, signal);
  if (!result.ok) return result.response;
  return interpret(result.status, result.text, result.headers, r.model, [key]);
}

export const adapter: AdapterProgram = { dispatch, check };

if (isMain(import.meta.url)) void runAdapter(adapter);
