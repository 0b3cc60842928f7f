/**
 * `a2a` adapter: a remote agent over the Agent2Agent protocol, through the A2A SDK's client.
 * `a2a:<url>` (or base_url) is the agent's base URL; its card is read from
 * `<url>/.well-known/agent-card.json`, and one task is sent per dispatch: the prompt and the
 * request block as its message, the reply read back from its artifact (wire.ts). The token,
 * from the variable api_key_env names (default BOUNCE_A2A_TOKEN), goes as `Authorization:
 * Bearer` to that origin only, and is required off loopback (the HTTP adapters' policy,
 * src/kit/endpoint.ts). The deadline aborts the call and cancels the remote task. Never
 * retries: the runner does.
 */
import { ulid } from 'ulid';
import type { AgentCard, Artifact, Message, Part, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { type AdapterContext, type AdapterProgram, type CheckContext, fail, isMain, msUntil, runAdapter } from '../../src/kit/adapter-kit.js';
import { type AdapterRequest, type AdapterResponse, type AgentOptions, type CheckProblem, type CheckResult, problemLine } from '../../src/contract/contract.js';
import { checkEndpoint, displayUrl, endpointFor, networkMessage, redact } from '../../src/kit/endpoint.js';
import { errorTypeForStatus } from '../../src/kit/error-type.js';
import { a2aClient, a2aCore } from '../../src/kit/a2a-sdk.js';
import { A2A } from './facts.js';
import { dispatchMessage, readResponse } from './wire.js';
import { checkCard } from './card.js';

const FACTS = A2A;
export const MISSING_URL: CheckProblem = {
  kind: 'config',
  message: 'no URL for the a2a adapter',
  fix: 'name the agent as a2a:<url>, or set base_url for it in bounce.config.yaml',
};
/** How long a cancel of the remote task, after the deadline or an interrupt, may take. */
const CANCEL_MS = 2000;
/** How long `bounce check` waits for the agent card. */
const CARD_MS = 5000;

export interface Resolved {
  baseUrl: string;
  keyEnvName: string;
}

export function resolve(options: AgentOptions, env: NodeJS.ProcessEnv): Resolved {
  return endpointFor(FACTS, options, env);
}

/** Where the agent card is: the well-known path under the agent's base URL. */
export const cardUrl = (baseUrl: string): string => `${baseUrl}/.well-known/agent-card.json`;

function endpointProblems(r: Resolved, env: NodeJS.ProcessEnv): { problems: CheckProblem[]; keyEnv: string | null; loopback: boolean } {
  if (r.baseUrl === '') return { problems: [MISSING_URL], keyEnv: null, loopback: false };
  return checkEndpoint({ baseUrl: r.baseUrl, apiKeyEnv: r.keyEnvName, env });
}

export async function check(options: AgentOptions, { env }: CheckContext): Promise<CheckResult> {
  const r = resolve(options, env);
  const endpoint = endpointProblems(r, env);
  return {
    ok: endpoint.problems.length === 0,
    version: null,
    problems: endpoint.problems,
    warnings: [],
    resolved: { base_url: displayUrl(r.baseUrl), api_key_env: r.keyEnvName, key_set: endpoint.keyEnv !== null, loopback: endpoint.loopback },
  };
}

/** A call the fetch below refused to make: the URL is not the agent's origin, so the token would go elsewhere. */
class ElsewhereError extends Error {}

/** Settings of the fetch every SDK call goes through: the signal to obey, and the last HTTP status seen. */
interface Wire {
  signal: AbortSignal;
  status: number | null;
}

/**
 * The fetch the SDK is given: only to the agent's origin (the card may name another URL for
 * its calls; the token is not sent there), redirects never followed, the token added, and
 * the call's signal joined with the dispatch's.
 */
function agentFetch(origin: string, token: string | undefined, wire: Wire): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin) throw new ElsewhereError(url.href);
    const headers = new Headers(init?.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    const signal = init?.signal ? AbortSignal.any([init.signal, wire.signal]) : wire.signal;
    const res = await fetch(url, { ...init, headers, redirect: 'manual', signal });
    wire.status = res.status;
    return res;
  };
}

/** The agent's card and the SDK's client for it, over its JSON-RPC or HTTP+JSON interface. */
async function connect(r: Resolved, fetchImpl: typeof fetch) {
  const { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } = a2aClient();
  // An agent still on v0.3 of the protocol is read and called in v0.3 (the SDK's compatibility layer).
  const legacyCompat = { enabled: true };
  const card = await new DefaultAgentCardResolver({ fetchImpl, legacyCompat }).resolve(cardUrl(r.baseUrl), '');
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat }), new RestTransportFactory({ fetchImpl, legacyCompat })],
  });
  return { card, client: await factory.createFromAgentCard(card) };
}

/** Why a call failed, as an adapter error: the deadline, the card's other origin, an HTTP status, the network, or the agent's A2A error. */
function failure(err: unknown, r: Resolved, wire: Wire, deadline: string, secrets: Array<string | undefined>): AdapterResponse {
  if (wire.signal.aborted) return fail('timeout', `no reply from ${displayUrl(r.baseUrl)} before the deadline (${deadline})`);
  if (err instanceof ElsewhereError)
    return fail(
      'config',
      `the agent card of ${displayUrl(r.baseUrl)} sends calls to ${displayUrl(err.message)}, another origin; the token is not sent there: name that URL (a2a:<url>) if you trust it`,
    );
  const text = redact(err instanceof Error ? err.message : String(err), secrets)
    .replace(/\s+/g, ' ')
    .slice(0, 300);
  if (wire.status !== null && (wire.status < 200 || wire.status >= 300)) {
    const moved = wire.status >= 300 && wire.status < 400;
    return fail(
      errorTypeForStatus(wire.status),
      `HTTP ${wire.status} from ${displayUrl(r.baseUrl)}${moved ? ': a redirect, never followed; name the final URL' : `: ${text}`}`,
      {
        status: wire.status,
      },
    );
  }
  const reason = (err as { reason?: unknown } | null)?.reason;
  if (typeof reason === 'string') return fail(CONFIG_REASONS.has(reason) ? 'config' : 'provider', `the agent answered ${reason}: ${text}`);
  if (err instanceof TypeError) return fail('network', networkMessage(err, r.baseUrl));
  return fail('provider', `${displayUrl(r.baseUrl)}: ${text}`);
}

/** A2A errors no retry can mend: the request or the agent's setup is wrong. */
const CONFIG_REASONS = new Set([
  'INVALID_REQUEST',
  'INVALID_PARAMS',
  'METHOD_NOT_FOUND',
  'UNSUPPORTED_OPERATION',
  'CONTENT_TYPE_NOT_SUPPORTED',
  'VERSION_NOT_SUPPORTED',
  'EXTENSION_SUPPORT_REQUIRED',
  'TASK_NOT_FOUND',
]);

/** What the events of one task come to: the task (its artifacts gathered), or the agent's direct message. */
interface Outcome {
  taskId: string | null;
  state: number | null;
  statusText: string;
  artifacts: Map<string, Artifact>;
  message: Message | null;
}

function addArtifact(o: Outcome, a: Artifact, append: boolean): void {
  const had = o.artifacts.get(a.artifactId);
  o.artifacts.set(a.artifactId, had && append ? { ...had, parts: [...had.parts, ...a.parts] } : a);
}

const statusText = (parts: readonly Part[] | undefined): string =>
  (parts ?? [])
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .join(' ')
    .trim();

export async function dispatch(request: AdapterRequest, { env, signal }: AdapterContext): Promise<AdapterResponse> {
  const r = resolve(request.options, env);
  const endpoint = endpointProblems(r, env);
  if (endpoint.problems.length > 0) return fail('config', endpoint.problems.map(problemLine).join('; '));
  const token = endpoint.keyEnv === null ? undefined : env[endpoint.keyEnv]?.trim();
  const life = new AbortController();
  const stop = (): void => life.abort();
  const timer = setTimeout(stop, Math.min(msUntil(request.deadline), 2 ** 31 - 1));
  signal.addEventListener('abort', stop, { once: true });
  if (signal.aborted) stop();
  const wire: Wire = { signal: life.signal, status: null };
  const o: Outcome = { taskId: null, state: null, statusText: '', artifacts: new Map(), message: null };
  let card: AgentCard | null = null;
  let client: Client | null = null;
  try {
    ({ card, client } = await connect(r, agentFetch(new URL(r.baseUrl).origin, token, wire)));
    const message = dispatchMessage(request, ulid(), new Date());
    const params = { tenant: '', message, configuration: undefined, metadata: undefined };
    for await (const event of client.sendMessageStream(params, { signal: life.signal })) {
      const p = event.payload;
      if (p?.$case === 'task') {
        o.taskId = p.value.id;
        o.state = p.value.status?.state ?? o.state;
        for (const a of p.value.artifacts) addArtifact(o, a, false);
      } else if (p?.$case === 'statusUpdate') {
        o.taskId ??= p.value.taskId;
        o.state = p.value.status?.state ?? o.state;
        o.statusText = statusText(p.value.status?.message?.parts) || o.statusText;
      } else if (p?.$case === 'artifactUpdate' && p.value.artifact) {
        addArtifact(o, p.value.artifact, p.value.append);
      } else if (p?.$case === 'message') {
        o.message = p.value;
      }
    }
    // An aborted stream may just end: the deadline (or an interrupt) came first all the same.
    if (life.signal.aborted) throw life.signal.reason;
  } catch (err) {
    const failed = failure(err, r, wire, request.deadline, [token]);
    if (life.signal.aborted && client && o.taskId) await cancelRemote(client, o.taskId, wire);
    return failed;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
  }
  return answerOf(o, card, r);
}

/** After the deadline or an interrupt, the remote task is asked to stop (best effort, briefly). */
async function cancelRemote(client: Client, id: string, wire: Wire): Promise<void> {
  wire.signal = AbortSignal.timeout(CANCEL_MS);
  try {
    await client.cancelTask({ tenant: '', id, metadata: undefined }, { signal: wire.signal });
  } catch {
    // The task may have ended meanwhile, or the agent cannot cancel: the dispatch has failed either way.
  }
}

/** The adapter's answer from a task that ended (or a direct message). */
function answerOf(o: Outcome, card: AgentCard | null, r: Resolved): AdapterResponse {
  const { TaskState } = a2aCore();
  const where = displayUrl(r.baseUrl);
  const said = o.statusText ? `: ${o.statusText.slice(0, 300)}` : '';
  if (o.message === null) {
    if (o.state === TaskState.TASK_STATE_AUTH_REQUIRED) return fail('auth', `${where} asks for authentication${said}`);
    if (o.state === TaskState.TASK_STATE_REJECTED) return fail('config', `${where} rejected the task${said}`);
    if (o.state === TaskState.TASK_STATE_INPUT_REQUIRED) return fail('config', `${where} asks for input a dispatch cannot give${said}`);
    if (o.state === TaskState.TASK_STATE_CANCELED) return fail('provider', `${where} cancelled the task${said}`);
    if (o.state === TaskState.TASK_STATE_FAILED) return fail('provider', `${where} failed the task${said}`);
    if (o.state !== TaskState.TASK_STATE_COMPLETED) return fail('provider', `the stream from ${where} ended before the task did`);
  }
  const read = readResponse(o.message ?? ({ artifacts: [...o.artifacts.values()] } as Pick<Task, 'artifacts'> as Task));
  if (read.problem) return fail('provider', `${where} answered, but ${read.problem}`);
  if (read.reply === null) return fail('provider', `${where} completed the task with no artifact`);
  const m = read.response?.metadata;
  const input = m?.input_tokens ?? null;
  const output = m?.output_tokens ?? null;
  const cost = m?.cost_usd ?? null;
  return {
    ok: true,
    reply: read.reply,
    stop: read.response?.stop ?? 'complete',
    usage: { input_tokens: input, output_tokens: output, cost_usd: cost, provider_reported: input !== null || output !== null || cost !== null },
    model: read.response?.model ?? null,
    agent_version: read.response?.agent_version ?? (card?.version || null),
  };
}

/**
 * `bounce check`'s look at the agent (no task sent): its card fetched from the well-known path
 * and checked (card.ts): an interface bounce can call at the agent's origin, text in, a token
 * when the card asks for one.
 */
export async function reach(options: AgentOptions, { env }: CheckContext): Promise<CheckResult> {
  const r = resolve(options, env);
  const endpoint = endpointProblems(r, env);
  if (r.baseUrl === '' || !URL.canParse(r.baseUrl)) return { ok: false, version: null, problems: endpoint.problems, warnings: [], resolved: {} };
  const token = endpoint.keyEnv === null ? undefined : env[endpoint.keyEnv]?.trim();
  const wire: Wire = { signal: AbortSignal.timeout(CARD_MS), status: null };
  const fetchImpl = agentFetch(new URL(r.baseUrl).origin, token, wire);
  const result = (problems: CheckProblem[], warnings: CheckProblem[] = [], resolved: CheckResult['resolved'] = {}): CheckResult => ({
    ok: problems.length === 0,
    version: null,
    problems,
    warnings,
    resolved,
  });
  let raw: unknown;
  try {
    // The version asked for is the SDK's own, as its card resolver asks; an agent on v0.3 answers with a v0.3 card all the same.
    const res = await fetchImpl(cardUrl(r.baseUrl), { headers: { accept: 'application/json', 'A2A-Version': a2aCore().A2A_PROTOCOL_VERSION } });
    if (!res.ok) {
      await res.body?.cancel();
      return result([{ kind: 'unreachable', message: `no agent card at ${cardUrl(displayUrl(r.baseUrl))} (HTTP ${res.status})`, fix: CARD_FIX }]);
    }
    raw = await res.json();
  } catch (err) {
    const why = wire.signal.aborted ? `no answer in ${CARD_MS / 1000}s` : err instanceof SyntaxError ? 'it is not JSON' : networkMessage(err, r.baseUrl);
    return result([{ kind: 'unreachable', message: `cannot read the agent card at ${cardUrl(displayUrl(r.baseUrl))}: ${why}`, fix: CARD_FIX }]);
  }
  const { DefaultAgentCardResolver } = a2aClient();
  const card = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).normalizeAgentCard(raw);
  const found = checkCard(card, { origin: new URL(r.baseUrl).origin, tokenSet: token !== undefined, keyEnv: r.keyEnvName });
  return result(found.problems, found.warnings, found.resolved);
}

const CARD_FIX = 'check the URL after a2a: (the agent serves its card at <url>/.well-known/agent-card.json) and that the agent is running';

export const adapter: AdapterProgram = { dispatch, check, reach };

if (isMain(import.meta.url)) void runAdapter(adapter);
