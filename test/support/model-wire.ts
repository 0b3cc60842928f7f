/**
 * Wire formats of the scripted model server: how a reply or an error is written for each
 * API, streamed (SSE) or as one JSON body. Shapes follow the providers' public references.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Reply } from './model-turn.js';

export type Api = 'anthropic' | 'responses' | 'chat' | 'gemini';

export interface Answer {
  model: string;
  reply: Reply;
  /** `input` counts every prompt token; `cacheRead` and `cacheWrite` of them came from or went to the cache. */
  usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  stream: boolean;
  /** Chat Completions: `stream_options.include_usage` was set. */
  includeUsage: boolean;
}

const id = (prefix: string): string => `${prefix}${randomBytes(12).toString('hex')}`;

/** Cut text into deltas of at most `size` characters (none for empty text). */
export function pieces(text: string, size = 40): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function sse(res: ServerResponse): (event: string | null, data: unknown) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (event, data) => {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  };
}

export function sendAnthropic(res: ServerResponse, a: Answer): void {
  const tool = a.reply.toolUse;
  const stop_reason = tool ? 'tool_use' : a.reply.truncated ? 'max_tokens' : 'end_turn';
  // The Messages API counts cached prompt tokens apart from input_tokens.
  const read = a.usage.cacheRead ?? 0;
  const write = a.usage.cacheWrite ?? 0;
  const usage = { input_tokens: Math.max(0, a.usage.input - read - write), cache_creation_input_tokens: write, cache_read_input_tokens: read };
  const base = { id: id('msg_'), type: 'message', role: 'assistant', model: a.model, stop_sequence: null };
  const content = a.reply.text === '' ? [] : [{ type: 'text', text: a.reply.text }];
  if (!a.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const blocks = tool ? [...content, { type: 'tool_use', ...tool }] : content;
    res.end(JSON.stringify({ ...base, content: blocks, stop_reason, usage: { ...usage, output_tokens: a.usage.output } }));
    return;
  }
  const send = sse(res);
  send('message_start', { type: 'message_start', message: { ...base, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
  if (content.length > 0) {
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    send('ping', { type: 'ping' });
    for (const text of pieces(a.reply.text)) send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
    send('content_block_stop', { type: 'content_block_stop', index: 0 });
  }
  if (tool) {
    const index = content.length;
    send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} } });
    send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(tool.input) } });
    send('content_block_stop', { type: 'content_block_stop', index });
  }
  send('message_delta', { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: a.usage.output } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

export function sendResponses(res: ServerResponse, a: Answer): void {
  const text = a.reply.text;
  const msgId = id('msg_');
  const part = { type: 'output_text', text, annotations: [] };
  const item = { id: msgId, type: 'message', status: a.reply.truncated ? 'incomplete' : 'completed', role: 'assistant', content: [part] };
  const usage = {
    input_tokens: a.usage.input,
    input_tokens_details: { cached_tokens: a.usage.cacheRead ?? 0 },
    output_tokens: a.usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: a.usage.input + a.usage.output,
  };
  const response = {
    id: id('resp_'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: a.model,
    status: a.reply.truncated ? 'incomplete' : 'completed',
    incomplete_details: a.reply.truncated ? { reason: 'max_output_tokens' } : null,
    error: null,
    output: [item],
    usage,
  };
  if (!a.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(response));
    return;
  }
  const send = sse(res);
  let seq = 0;
  const ev = (type: string, fields: Record<string, unknown>): void => send(type, { type, sequence_number: seq++, ...fields });
  const at = { item_id: msgId, output_index: 0, content_index: 0 };
  ev('response.created', { response: { ...response, status: 'in_progress', incomplete_details: null, output: [], usage: null } });
  ev('response.in_progress', { response: { ...response, status: 'in_progress', incomplete_details: null, output: [], usage: null } });
  ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
  ev('response.content_part.added', { ...at, part: { ...part, text: '' } });
  for (const delta of pieces(text)) ev('response.output_text.delta', { ...at, delta, logprobs: [] });
  ev('response.output_text.done', { ...at, text, logprobs: [] });
  ev('response.content_part.done', { ...at, part });
  ev('response.output_item.done', { output_index: 0, item });
  ev(a.reply.truncated ? 'response.incomplete' : 'response.completed', { response });
  res.end();
}

export function sendChat(res: ServerResponse, a: Answer): void {
  const finish_reason = a.reply.truncated ? 'length' : 'stop';
  const usage = {
    prompt_tokens: a.usage.input,
    completion_tokens: a.usage.output,
    total_tokens: a.usage.input + a.usage.output,
    ...(a.usage.cacheRead === undefined ? {} : { prompt_tokens_details: { cached_tokens: a.usage.cacheRead } }),
  };
  const base = { id: id('chatcmpl-'), created: Math.floor(Date.now() / 1000), model: a.model, system_fingerprint: null };
  if (!a.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const message = { role: 'assistant', content: a.reply.text, refusal: null };
    res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, logprobs: null, finish_reason }], usage }));
    return;
  }
  const send = sse(res);
  const extra = a.includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null): void =>
    send(null, { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
  chunk({ role: 'assistant', content: '', refusal: null }, null);
  for (const content of pieces(a.reply.text)) chunk({ content }, null);
  chunk({}, finish_reason);
  if (a.includeUsage) send(null, { ...base, object: 'chat.completion.chunk', choices: [], usage });
  send(null, '[DONE]');
  res.end();
}

/**
 * The Gemini API (`:generateContent`, or `:streamGenerateContent?alt=sse`: each SSE `data:`
 * is a GenerateContentResponse chunk, no event names). `usageMetadata` counts cached tokens
 * inside `promptTokenCount`, as `cachedContentTokenCount`.
 */
export function sendGemini(res: ServerResponse, a: Answer): void {
  const finishReason = a.reply.truncated ? 'MAX_TOKENS' : 'STOP';
  const usageMetadata = {
    promptTokenCount: a.usage.input,
    candidatesTokenCount: a.usage.output,
    totalTokenCount: a.usage.input + a.usage.output,
    ...(a.usage.cacheRead ? { cachedContentTokenCount: a.usage.cacheRead } : {}),
  };
  const base = { modelVersion: a.model, responseId: id('') };
  const tool = a.reply.toolUse;
  const call = tool ? [{ functionCall: { name: tool.name, args: tool.input } }] : [];
  const candidate = (text: string, finish: string | null) => ({
    content: { role: 'model', parts: [...(text === '' && finish ? [] : [{ text }]), ...(finish ? call : [])] },
    ...(finish ? { finishReason: finish } : {}),
    index: 0,
  });
  if (!a.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ candidates: [candidate(a.reply.text, finishReason)], usageMetadata, ...base }));
    return;
  }
  const send = sse(res);
  const parts = pieces(a.reply.text);
  parts.forEach((text, i) => {
    const last = i === parts.length - 1;
    send(null, { candidates: [candidate(text, last ? finishReason : null)], ...(last ? { usageMetadata } : {}), ...base });
  });
  if (parts.length === 0) send(null, { candidates: [candidate('', finishReason)], usageMetadata, ...base });
  res.end();
}

/** HTTP 200, then one SSE event that is an error in the API's own shape, then the end of the stream. */
export function sendStreamError(res: ServerResponse, api: Api, message: string): void {
  const send = sse(res);
  if (api === 'anthropic') send('error', { type: 'error', error: { type: 'api_error', message } });
  else if (api === 'responses') send('error', { type: 'error', code: 'server_error', message, param: null, sequence_number: 0 });
  else if (api === 'gemini') send(null, { error: { code: 500, message, status: 'INTERNAL' } });
  else send(null, { error: { message, type: 'invalid_request_error', param: null, code: null } });
  res.end();
}

const ANTHROPIC_ERRORS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};
const GEMINI_STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};
const OPENAI_ERRORS: Record<number, [type: string, code: string | null]> = {
  400: ['invalid_request_error', null],
  401: ['invalid_request_error', 'invalid_api_key'],
  403: ['invalid_request_error', 'unsupported_country_region_territory'],
  404: ['invalid_request_error', 'model_not_found'],
  429: ['requests', 'rate_limit_exceeded'],
  500: ['server_error', null],
  503: ['server_error', null],
};

/** An HTTP error in the API's own error shape, with `Retry-After` (seconds) when given. */
export function sendError(
  res: ServerResponse,
  api: Api,
  status: number,
  message?: string,
  retryAfter?: number,
  extra: { headers?: Record<string, string>; body?: unknown } = {},
): void {
  const text = message ?? (status === 429 ? `Rate limit reached (scripted). Please try again in ${retryAfter ?? 1}s.` : `scripted HTTP ${status}`);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extra.headers };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  const gemini = {
    error: {
      code: status,
      message: text,
      status: GEMINI_STATUSES[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'),
      ...(retryAfter !== undefined ? { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` }] } : {}),
    },
  };
  const body =
    api === 'gemini'
      ? gemini
      : api === 'anthropic'
        ? { type: 'error', error: { type: ANTHROPIC_ERRORS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message: text } }
        : {
            error: {
              message: text,
              type: (OPENAI_ERRORS[status] ?? [status >= 500 ? 'server_error' : 'invalid_request_error'])[0],
              param: null,
              code: OPENAI_ERRORS[status]?.[1] ?? null,
            },
          };
  res.writeHead(status, headers).end(JSON.stringify(extra.body ?? body));
}
