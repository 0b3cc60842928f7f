/**
 * The scripted model server for end-to-end tests: one loopback HTTP server speaking the
 * Anthropic Messages API, the OpenAI Responses API, Chat Completions and the Gemini API
 * (`generateContent`, `streamGenerateContent` with SSE), streamed and not.
 * A request whose last user message carries a bounce document is a scripted turn: it takes
 * the next behaviour from the queue (or the default); anything else gets a short "OK.".
 * See test/support/model-turn.ts for how documents, roles and replies are worked out.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { estimateTokens, readTurn, replyFor, type Behaviour, type Reply, type Turn } from './model-turn.js';
import { sendAnthropic, sendChat, sendError, sendGemini, sendResponses, sendStreamError, type Api } from './model-wire.js';

export type { Behaviour, Turn } from './model-turn.js';
export { CLARIFY_NOTE, CONTESTED_NOTE, estimateTokens, insertNote, readTurn, removeNotes, replyFor } from './model-turn.js';

export interface RecordedRequest {
  method: string;
  /** Path including any query string, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** As received, NOT redacted (tests grep them for keys). Names are lower case. */
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it is not JSON (undefined when empty). */
  body: unknown;
  api: Api | 'other';
  stream: boolean;
  /** Text of the last user message (the prompt), for model calls. */
  prompt: string | null;
  turn: Turn | null;
  /** True when the request carried a document and so consumed a behaviour. */
  scripted: boolean;
  behaviour: Behaviour | null;
  /** The text the server answered with (null for errors, stalls and non-model routes). */
  reply: string | null;
}

export interface ModelServerOptions {
  /** Initial queue of behaviours, one per scripted turn. */
  behaviours?: Behaviour[];
  /** Behaviour once the queue is empty (default `'edit'`). */
  default?: Behaviour;
  /** Model name reported when the request names none (default `mock-model`). */
  model?: string;
  /** Prompt-cache tokens to report with each model answer (part of the input tokens), as each API words them. */
  cache?: { read: number; write: number };
  /** The answer to a prompt that carries no bounce document (default `OK.`): another tool's prompts, say. */
  plainReply?: string;
}

export interface ModelServer {
  /** `http://127.0.0.1:<port>` (no `/v1`: Anthropic clients want the bare origin). */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Append behaviours to the queue. */
  script(behaviours: Behaviour[]): void;
  /**
   * Queue tool calls: an Anthropic or Gemini request that carries no bounce document and offers
   * the next one's tool (in `tools`) is answered with a `tool_use` (a `functionCall`) of it, with that input.
   */
  callTools(calls: ToolCall[]): void;
  setDefault(b: Behaviour): void;
  /** Behaviours still queued. */
  pending(): number;
  close(): Promise<void>;
}

/** A tool call the scripted model makes: the tool's name as the client offers it, and its input. */
export interface ToolCall {
  name: string;
  input: unknown;
}

const MODELS = ['mock-model', 'mock-model-mini'];

/** The names of the tools a request offers: Messages API `tools[].name`, Gemini API `tools[].functionDeclarations[].name`. */
const offeredTools = (b: Record<string, unknown>): string[] =>
  Array.isArray(b.tools)
    ? b.tools.flatMap((t: unknown) => {
        if (typeof t !== 'object' || t === null) return [];
        const declared = (t as { functionDeclarations?: unknown }).functionDeclarations;
        if (Array.isArray(declared)) return declared.map((d: unknown) => String((d as { name?: unknown } | null)?.name ?? ''));
        return [String((t as { name?: unknown }).name)];
      })
    : [];

export async function startModelServer(opts: ModelServerOptions = {}): Promise<ModelServer> {
  const queue: Behaviour[] = [...(opts.behaviours ?? [])];
  let fallback: Behaviour = opts.default ?? 'edit';
  const requests: RecordedRequest[] = [];
  const toolCalls: ToolCall[] = [];
  let toolCallCount = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        handle(req, res, Buffer.concat(chunks).toString('utf8'));
      } catch (err) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'server_error', message: String(err) } }));
      }
    });
  });
  server.requestTimeout = 0;

  function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const path = req.url ?? '/';
    const route =
      path
        .split('?')[0]!
        .replace(/^\/v1(?=\/)/, '')
        .replace(/\/+$/, '') || '/';
    let body: unknown = raw === '' ? undefined : raw;
    try {
      if (raw !== '') body = JSON.parse(raw);
    } catch {
      /* keep the raw text */
    }
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
      api: 'other',
      stream: false,
      prompt: null,
      turn: null,
      scripted: false,
      behaviour: null,
      reply: null,
    };
    requests.push(rec);
    const json = (status: number, value: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };

    if (route === '/' && (req.method === 'GET' || req.method === 'HEAD'))
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(req.method === 'GET' ? 'ok' : undefined);
    if (route === '/models' && req.method === 'GET') {
      return json(200, { object: 'list', data: MODELS.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'bounce-test' })) });
    }
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (route === '/messages/count_tokens' && req.method === 'POST') return json(200, { input_tokens: estimateTokens(raw) });
    // Gemini: POST /v1beta/models/<model>:generateContent or :streamGenerateContent?alt=sse.
    const gemini = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(route);
    const api: Api | null =
      req.method !== 'POST'
        ? null
        : gemini
          ? 'gemini'
          : route === '/messages'
            ? 'anthropic'
            : route === '/responses'
              ? 'responses'
              : route === '/chat/completions'
                ? 'chat'
                : null;
    if (api === null) return json(404, { type: 'error', error: { type: 'not_found_error', message: `no route for ${req.method} ${path}` } });
    if (typeof body !== 'object' || body === null) return sendError(res, api, 400, 'request body is not a JSON object');

    rec.api = api;
    rec.stream = gemini ? gemini[2] === 'streamGenerateContent' : b.stream === true;
    rec.prompt = promptOf(api, b);
    rec.turn = readTurn(rec.prompt);
    const named = gemini ? decodeURIComponent(gemini[1] ?? '') : b.model;
    const model = typeof named === 'string' && named !== '' ? named : (opts.model ?? 'mock-model');
    const input = estimateTokens(rec.prompt);
    let reply: Reply = { text: opts.plainReply ?? 'OK.', truncated: false };
    const call = toolCalls[0];
    if (rec.turn.document === null && (api === 'anthropic' || api === 'gemini') && call && offeredTools(b).includes(call.name)) {
      toolCalls.shift();
      reply = { text: '', truncated: false, toolUse: { id: `toolu_${String(++toolCallCount).padStart(4, '0')}`, name: call.name, input: call.input } };
    } else if (rec.turn.document !== null) {
      const behaviour = queue.shift() ?? fallback;
      rec.scripted = true;
      rec.behaviour = behaviour;
      if (behaviour === 'stall') return; // never answer; the socket closes when the client goes away
      if (typeof behaviour === 'object' && 'streamError' in behaviour) return sendStreamError(res, api, behaviour.streamError);
      if (typeof behaviour === 'object' && 'status' in behaviour) {
        return sendError(res, api, behaviour.status, behaviour.message, behaviour.retryAfter, behaviour);
      }
      reply = replyFor({ ...rec.turn, document: rec.turn.document }, behaviour);
    }
    rec.reply = reply.text;
    const cache = opts.cache
      ? { cacheRead: Math.min(opts.cache.read, input), cacheWrite: Math.min(opts.cache.write, input - Math.min(opts.cache.read, input)) }
      : {};
    const usage = { input, output: estimateTokens(reply.text), ...cache };
    const send = { anthropic: sendAnthropic, responses: sendResponses, chat: sendChat, gemini: sendGemini }[api];
    send(res, { model, reply, usage, stream: rec.stream, includeUsage: includeUsage(b) });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    script: (behaviours) => void queue.push(...behaviours),
    callTools: (calls) => void toolCalls.push(...calls),
    setDefault: (b) => void (fallback = b),
    pending: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function includeUsage(b: Record<string, unknown>): boolean {
  const so = b.stream_options as { include_usage?: unknown } | undefined;
  return so?.include_usage === true;
}

/** Text of a message's content: a string, or the `text` of its parts (text, input_text, ...). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: unknown) => (typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

/** The prompt: the text of the last user message (Responses: `input` as a string, or its last user item; Gemini: `contents`). */
export function promptOf(api: Api, body: Record<string, unknown>): string {
  if (api === 'gemini') {
    const contents = Array.isArray(body.contents) ? (body.contents as { role?: unknown; parts?: unknown }[]) : [];
    const last = [...contents].reverse().find((c) => c && c.role === 'user');
    return last ? textOf(last.parts) : '';
  }
  const list = api === 'responses' ? body.input : body.messages;
  if (typeof list === 'string') return list;
  if (!Array.isArray(list)) return '';
  for (let i = list.length - 1; i >= 0; i--) {
    const m = list[i] as { role?: unknown; content?: unknown } | null;
    if (m && m.role === 'user') return textOf(m.content);
  }
  return '';
}
