/**
 * `anthropic` adapter: one non-streaming Messages API call (`POST {base}/v1/messages`).
 * base: options.base_url, then ANTHROPIC_BASE_URL, then https://api.anthropic.com.
 * Key: the variable named by api_key_env (default ANTHROPIC_API_KEY), sent as `x-api-key`;
 * required on every endpoint, loopback included (the API and its proxies always want one).
 * Model default claude-sonnet-4-5; max_tokens from max_output_tokens, default 16000.
 * Never retries: the runner does.
 */
import { fail, runAdapter } from '../src/adapters/adapter-kit.js';
import type { AdapterError, AdapterRequest, AdapterResponse, AgentOptions, CheckResult } from '../src/adapters/contract.js';
import { checkEndpoint, displayUrl, isMain, parseRetryAfter, postJson, redact, serverMessage, statusErrorType } from '../src/adapters/endpoint.js';

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_KEY_ENV = 'ANTHROPIC_API_KEY';
export const DEFAULT_MODEL = 'claude-sonnet-4-5';
export const DEFAULT_MAX_TOKENS = 16000;
export const API_VERSION = '2023-06-01';

export interface Resolved {
  baseUrl: string;
  keyEnvName: string;
  model: string;
  maxTokens: number;
}

export function resolve(options: AgentOptions, env: NodeJS.ProcessEnv): Resolved {
  const fromEnv = env.ANTHROPIC_BASE_URL?.trim();
  return {
    // The base is the origin (as for ANTHROPIC_BASE_URL); a trailing /v1 is tolerated.
    baseUrl: (options.base_url ?? (fromEnv || DEFAULT_BASE_URL)).replace(/\/+$/, '').replace(/\/v1$/, ''),
    keyEnvName: options.api_key_env ?? DEFAULT_KEY_ENV,
    model: options.model ?? DEFAULT_MODEL,
    maxTokens: options.max_output_tokens ?? DEFAULT_MAX_TOKENS,
  };
}

function optionProblems(options: AgentOptions): string[] {
  return options.temperature !== undefined && options.temperature > 1
    ? [`temperature ${options.temperature} is out of range for the Messages API: use a value from 0 to 1`]
    : [];
}

export async function check(options: AgentOptions, env: NodeJS.ProcessEnv): Promise<CheckResult> {
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
  const body: Record<string, unknown> = { model: r.model, max_tokens: r.maxTokens, messages: [{ role: 'user', content: request.prompt }] };
  if (request.options.temperature !== undefined) body.temperature = request.options.temperature;
  return body;
}

/** Anthropic error types -> adapter error types (status decides for unknown types). */
const ERROR_TYPES: Record<string, AdapterError['type']> = {
  authentication_error: 'auth',
  permission_error: 'auth',
  invalid_request_error: 'config',
  not_found_error: 'config',
  request_too_large: 'config',
  rate_limit_error: 'rate_limit',
  overloaded_error: 'provider',
  api_error: 'provider',
  timeout_error: 'provider',
};

interface Message {
  model?: unknown;
  content?: Array<{ type?: unknown; text?: unknown }>;
  stop_reason?: unknown;
  usage?: { input_tokens?: unknown; output_tokens?: unknown };
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
    const type = (errorType !== null ? ERROR_TYPES[errorType] : undefined) ?? statusErrorType(status >= 300 ? status : 500);
    const retry_after_ms = type === 'rate_limit' || type === 'provider' ? parseRetryAfter(headers.get('retry-after')) : undefined;
    const message = redact(`HTTP ${status}${errorType ? ` ${errorType}` : ''}: ${serverMessage(text)}`, secrets);
    return fail(type, message, { status, ...(retry_after_ms === undefined ? {} : { retry_after_ms }) });
  }
  if (data === null || !Array.isArray(data.content)) {
    return fail('provider', redact(`unexpected response: ${serverMessage(text, 120)}`, secrets), { status });
  }
  const reply = data.content.map((b) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
  const input = count(data.usage?.input_tokens);
  const output = count(data.usage?.output_tokens);
  return {
    ok: true,
    reply,
    stop: data.stop_reason === 'max_tokens' ? 'truncated' : 'complete',
    usage: { input_tokens: input, output_tokens: output, cost_usd: null, provider_reported: input !== null || output !== null },
    model: typeof data.model === 'string' && data.model !== '' ? data.model : model,
    agent_version: null,
  };
}

export async function dispatch(request: AdapterRequest, env: NodeJS.ProcessEnv): Promise<AdapterResponse> {
  const r = resolve(request.options, env);
  const problems = optionProblems(request.options);
  if (problems.length > 0) return fail('config', problems.join('; '));
  const endpoint = checkEndpoint({ baseUrl: r.baseUrl, apiKeyEnv: r.keyEnvName, env, keyRequired: true });
  if (endpoint.problems.length > 0) return fail('config', endpoint.problems.join('; '));
  const key = env[r.keyEnvName]?.trim() ?? '';
  const headers = { 'x-api-key': key, 'anthropic-version': API_VERSION };
  const result = await postJson(`${r.baseUrl}/v1/messages`, headers, buildBody(request, r), request.deadline);
  if (!result.ok) return result.response;
  return interpret(result.status, result.text, result.headers, r.model, [key]);
}

if (isMain(import.meta.url)) await runAdapter({ dispatch, check });
