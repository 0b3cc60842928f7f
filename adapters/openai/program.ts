/**
 * `openai` adapter: one non-streaming Chat Completions call (`POST {base_url}/chat/completions`)
 * on any OpenAI-compatible endpoint (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp server).
 * base_url: options, then OPENAI_BASE_URL, then the local default of facts.ts (Ollama).
 * Key: the variable named by api_key_env (default OPENAI_API_KEY), required off loopback,
 * sent as `Authorization: Bearer` only when set. Never retries: the runner does.
 */
import { type AdapterContext, type AdapterProgram, type CheckContext, fail, isMain, runAdapter } from '../../src/kit/adapter-kit.js';
import { type AdapterRequest, type AdapterResponse, type AgentOptions, type CheckProblem, type CheckResult, problemLine } from '../../src/contract/contract.js';
import { checkEndpoint, displayUrl, endpointFor, parseRetryAfter, postJson, redact, serverMessage } from '../../src/kit/endpoint.js';
import { errorTypeForStatus } from '../../src/kit/error-type.js';
import { isQuotaText, quotaError } from '../../src/kit/quota.js';
import { OPENAI } from './facts.js';

const FACTS = OPENAI;
export const MISSING_MODEL: CheckProblem = {
  kind: 'config',
  message: 'no model for the openai adapter',
  fix: 'set `model` for this agent in bounce.config.yaml or use openai:<model>',
};

export interface Resolved {
  baseUrl: string;
  keyEnvName: string;
  model: string | null;
}

export function resolve(options: AgentOptions, env: NodeJS.ProcessEnv): Resolved {
  return { ...endpointFor(FACTS, options, env), model: options.model ?? FACTS.defaultModel };
}

export async function check(options: AgentOptions, { env }: CheckContext): Promise<CheckResult> {
  const r = resolve(options, env);
  const endpoint = checkEndpoint({ baseUrl: r.baseUrl, apiKeyEnv: r.keyEnvName, env });
  const problems = [...(r.model === null ? [MISSING_MODEL] : []), ...endpoint.problems];
  // No key on loopback is the usual local server (Ollama): not a warning on every run; `resolved` shows key_set and loopback.
  const warnings: CheckProblem[] = [];
  return {
    ok: problems.length === 0,
    version: null,
    problems,
    warnings,
    resolved: { base_url: displayUrl(r.baseUrl), model: r.model, api_key_env: r.keyEnvName, key_set: endpoint.keyEnv !== null, loopback: endpoint.loopback },
  };
}

/** The Chat Completions body for a request. */
export function buildBody(request: AdapterRequest, model: string): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: [{ role: 'user', content: request.prompt }], stream: false };
  if (request.options.max_output_tokens !== undefined) body.max_tokens = request.options.max_output_tokens;
  if (request.options.temperature !== undefined) body.temperature = request.options.temperature;
  return body;
}

interface ChatCompletion {
  model?: unknown;
  choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }>;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } | null };
  error?: unknown;
}

const count = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

/** Message content as text: a string, or the text parts of a content array; null/absent is "". */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

/** Map a finished HTTP exchange (status + body text) to an adapter response. */
export function interpret(status: number, text: string, headers: Headers, model: string, secrets: Array<string | undefined> = []): AdapterResponse {
  if (status < 200 || status >= 300) {
    const type = errorTypeForStatus(status);
    const message = redact(`HTTP ${status}: ${serverMessage(text)}`, secrets);
    // `insufficient_quota` (a 429 no retry can fix), billing and credit errors: the raw body names the code.
    if (type === 'quota' || isQuotaText(text))
      return { ok: false, error: quotaError(message, { status, retryAfterMs: parseRetryAfter(headers.get('retry-after')) }) };
    const retry_after_ms = type === 'rate_limit' || type === 'provider' ? parseRetryAfter(headers.get('retry-after')) : undefined;
    return fail(type, message, { status, ...(retry_after_ms === undefined ? {} : { retry_after_ms }) });
  }
  let data: ChatCompletion;
  try {
    data = JSON.parse(text) as ChatCompletion;
  } catch {
    return fail('provider', redact(`response is not JSON: ${serverMessage(text, 120)}`, secrets), { status });
  }
  const choice = data.choices?.[0];
  if (!choice) {
    const why = data.error !== undefined ? serverMessage(text) : 'no choices in the response';
    return fail('provider', redact(why, secrets), { status });
  }
  const input = count(data.usage?.prompt_tokens);
  const output = count(data.usage?.completion_tokens);
  // prompt_tokens includes the cached ones; servers that do not cache omit the details.
  const cached = count(data.usage?.prompt_tokens_details?.cached_tokens);
  return {
    ok: true,
    reply: contentText(choice.message?.content),
    stop: choice.finish_reason === 'length' ? 'truncated' : 'complete',
    usage: {
      input_tokens: input,
      output_tokens: output,
      cache_read_tokens: cached,
      cache_write_tokens: null,
      cost_usd: null,
      provider_reported: input !== null || output !== null,
    },
    model: typeof data.model === 'string' && data.model !== '' ? data.model : model,
    agent_version: null,
  };
}

export async function dispatch(request: AdapterRequest, { env, signal }: AdapterContext): Promise<AdapterResponse> {
  const r = resolve(request.options, env);
  if (r.model === null) return fail('config', problemLine(MISSING_MODEL));
  const endpoint = checkEndpoint({ baseUrl: r.baseUrl, apiKeyEnv: r.keyEnvName, env });
  if (endpoint.problems.length > 0) return fail('config', endpoint.problems.map(problemLine).join('; '));
  const key = endpoint.keyEnv === null ? undefined : env[endpoint.keyEnv]?.trim();
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const result = await postJson(`${r.baseUrl}/chat/completions`, headers, buildBody(request, r.model), request.deadline, signal);
  if (!result.ok) return result.response;
  return interpret(result.status, result.text, result.headers, r.model, [key]);
}

export const adapter: AdapterProgram = { dispatch, check };

if (isMain(import.meta.url)) void runAdapter(adapter);
