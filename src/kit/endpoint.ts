/**
 * The credential policy shared by the HTTP adapters and the runner's pre-flight, plus the
 * small HTTP helpers those adapters share. Policy: a loopback endpoint may omit a key; any
 * other endpoint needs https and a named environment variable that is set and non-empty.
 * Key VALUES never appear in a message, an argv or any output; only variable names do.
 */
import { redactCounting } from '../redact.js';
import { fail, msUntil } from './outcome.js';
import type { AdapterResponse, AgentOptions, CheckProblem } from '../contract/contract.js';
import type { AdapterFacts } from './facts.js';

export interface EndpointCheck {
  /** Each problem with its fix; empty when the endpoint may be called. */
  problems: CheckProblem[];
  loopback: boolean;
  /** The variable whose value will be sent as the key, or null when no key is sent. */
  keyEnv: string | null;
}

export interface EndpointInput {
  baseUrl: string;
  /** Name of the variable that holds the key (already defaulted by the caller). */
  apiKeyEnv: string;
  env: NodeJS.ProcessEnv;
  /** Require a key even on loopback (the Anthropic adapter). */
  keyRequired?: boolean;
}

/** True for 127.0.0.0/8, ::1 (also as ::ffff:127.x.x.x) and localhost. False for anything unparsable. */
export function isLoopback(url: string | URL): boolean {
  let host: string;
  try {
    host = (typeof url === 'string' ? new URL(url) : url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host === 'localhost.') return true;
  if (host === '[::1]') return true;
  if (/^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host)) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!v4) return false;
  return v4.slice(1).every((n) => Number(n) <= 255) && v4[1] === '127';
}

/** A URL safe to print: scheme, host and path only (no user info, query or fragment). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}

/** Whether the variable is set to something other than blanks. */
export function hasKey(env: NodeJS.ProcessEnv, name: string): boolean {
  return (env[name] ?? '').trim() !== '';
}

/**
 * The endpoint and key variable of an HTTP adapter: base_url, else the adapter's base URL
 * variable, else its default (trailing slashes dropped); api_key_env, else its default.
 */
export function endpointFor(facts: AdapterFacts, options: AgentOptions, env: NodeJS.ProcessEnv): { baseUrl: string; keyEnvName: string } {
  const fromEnv = facts.baseUrlEnv ? env[facts.baseUrlEnv]?.trim() : undefined;
  return {
    baseUrl: (options.base_url ?? (fromEnv || facts.defaultBaseUrl || '')).replace(/\/+$/, ''),
    keyEnvName: options.api_key_env ?? facts.defaultKeyEnv ?? '',
  };
}

export function checkEndpoint({ baseUrl, apiKeyEnv, env, keyRequired = false }: EndpointInput): EndpointCheck {
  const problems: CheckProblem[] = [];
  const config = (message: string, fix: string): number => problems.push({ kind: 'config', message, fix });
  let url: URL | null = null;
  try {
    url = new URL(baseUrl);
  } catch {
    config('base_url is not a valid URL', 'set base_url in bounce.config.yaml to an http(s) URL');
  }
  if (url && url.protocol !== 'http:' && url.protocol !== 'https:') {
    config(`base_url ${displayUrl(baseUrl)} is not http(s)`, 'use an https:// URL (or http:// on loopback)');
  }
  if (url && (url.username !== '' || url.password !== '')) {
    config(`base_url ${displayUrl(baseUrl)} carries credentials`, 'remove them from the URL and name the key variable with api_key_env');
  }
  const secretParams = url ? queryCredentials(url, env[apiKeyEnv]) : [];
  if (secretParams.length > 0) {
    config(
      `base_url ${displayUrl(baseUrl)} carries a key in its query string (${secretParams.join(', ')})`,
      'remove it from the URL and name the key variable with api_key_env',
    );
  }
  const loopback = url !== null && isLoopback(url);
  if (url && !loopback && url.protocol === 'http:') {
    config(`base_url ${displayUrl(baseUrl)} is plain http to a non-loopback host`, 'use https:// (keys are never sent in clear text)');
  }
  const keySet = hasKey(env, apiKeyEnv);
  if (!keySet && (keyRequired || !loopback)) {
    const why = keyRequired ? 'this adapter always needs a key' : `${displayUrl(baseUrl)} is not a loopback endpoint`;
    problems.push({
      kind: 'credentials',
      message: `${apiKeyEnv} is not set (${why})`,
      fix: `set ${apiKeyEnv}, or name the variable to read with api_key_env in an agents: entry of bounce.config.yaml`,
    });
  }
  return { problems, loopback, keyEnv: keySet ? apiKeyEnv : null };
}

const CREDENTIAL_PARAM_RE = /^(?:api[-_]?key|key|access[-_]?token|token|auth|authorization|secret|password|x-api-key|sig|signature)$/i;

/** Names of query parameters that carry a credential: a key-like name, or the value of the key variable. */
function queryCredentials(url: URL, keyValue: string | undefined): string[] {
  const key = keyValue?.trim();
  return [...url.searchParams]
    .filter(([name, value]) => CREDENTIAL_PARAM_RE.test(name) || (key !== undefined && key !== '' && value === key))
    .map(([name]) => name);
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(headerValue: string | null | undefined): number | undefined {
  const value = headerValue?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Replace every occurrence of each secret (at least 4 characters long) with `***`. */
export function redact(text: string, secrets: Array<string | undefined>): string {
  return redactCounting(
    text,
    secrets.filter((s) => s !== undefined && s.length >= 4),
    '***',
  ).text;
}

/** The provider's error message from a JSON error body (`error.message`, `message`, ...) or the raw text, shortened. */
export function serverMessage(body: string, max = 300): string {
  let msg = body.trim();
  try {
    const j = JSON.parse(body) as { error?: unknown; message?: unknown; detail?: unknown };
    const e = j.error as { message?: unknown } | string | undefined;
    const found =
      typeof e === 'string'
        ? e
        : typeof e?.message === 'string'
          ? e.message
          : typeof j.message === 'string'
            ? j.message
            : typeof j.detail === 'string'
              ? j.detail
              : null;
    if (found !== null) msg = found;
  } catch {
    /* not JSON: use the text */
  }
  msg = msg.replace(/\s+/g, ' ');
  return msg.length > max ? `${msg.slice(0, max - 1)}…` : msg || '(empty body)';
}

/** A network-level failure of fetch (refused, DNS, reset) as a short message naming the cause. */
export function networkMessage(err: unknown, url: string): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : null;
  const what =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'host not found'
        : (code ?? (err instanceof Error ? err.message : String(err)));
  return `cannot reach ${displayUrl(url)}: ${what}`;
}

/**
 * Whether a server answers at `url` at all (any status counts), within `ms`. A HEAD with no
 * credentials and no redirect followed: it reaches the server and spends nothing.
 */
export async function answers(url: string, ms = 2000): Promise<boolean> {
  try {
    const res = await fetch(url, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(ms) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

export type HttpResult = { ok: true; status: number; headers: Headers; text: string } | { ok: false; response: AdapterResponse };

/** Same-origin redirects followed before giving up. */
const MAX_REDIRECTS = 3;

/**
 * Where a redirect may be followed with the key: 307 and 308 (which keep the POST and its
 * body) to the same origin (scheme, host and port: an https endpoint never downgrades to
 * http). Anything else is reported, and nothing is sent there.
 */
function redirectTarget(from: string, res: Response): { url: string } | { refused: string } {
  const location = res.headers.get('location');
  let to: URL;
  try {
    to = new URL(location ?? '', from);
  } catch {
    return { refused: `HTTP ${res.status} from ${displayUrl(from)} with no usable Location` };
  }
  if (to.origin !== new URL(from).origin)
    return {
      refused: `HTTP ${res.status} from ${displayUrl(from)} redirects to another origin (${to.origin}); the key is not sent there: set base_url to the final URL if you trust it`,
    };
  if (res.status !== 307 && res.status !== 308)
    return { refused: `HTTP ${res.status} from ${displayUrl(from)} redirects to ${displayUrl(to.href)}: set base_url to the final URL` };
  return { url: to.href };
}

/**
 * POST a JSON body and read the whole answer, bounded by the request's deadline and the
 * dispatch's signal (an abort reads as the deadline: the runner reports its own reason). Network
 * failures and the deadline come back as adapter failures (`network`, `timeout`); any HTTP
 * status comes back as a result for the adapter to map. Never retries.
 */
export async function postJson(url: string, headers: Record<string, string>, body: unknown, deadline: string, signal: AbortSignal): Promise<HttpResult> {
  const ms = msUntil(deadline);
  const timeout = (): HttpResult => ({ ok: false, response: fail('timeout', `no reply from ${displayUrl(url)} before the deadline (${deadline})`) });
  if (ms <= 0) return timeout();
  const controller = new AbortController();
  // Node timers take at most 2^31-1 ms; a later deadline is as good as none.
  const timer = setTimeout(() => controller.abort(), Math.min(ms, 2 ** 31 - 1));
  const stop = (): void => controller.abort();
  signal.addEventListener('abort', stop, { once: true });
  if (signal.aborted) stop();
  try {
    let target = url;
    for (let hop = 0; ; hop++) {
      // Redirects are never followed by fetch: a key must not travel to an origin the user did not name.
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: controller.signal,
        redirect: 'manual',
      });
      if (res.status < 300 || res.status >= 400) {
        const text = await res.text();
        return { ok: true, status: res.status, headers: res.headers, text };
      }
      await res.body?.cancel();
      const next = redirectTarget(target, res);
      if ('refused' in next) return { ok: false, response: fail('config', next.refused, { status: res.status }) };
      if (hop >= MAX_REDIRECTS)
        return { ok: false, response: fail('config', `more than ${MAX_REDIRECTS} redirects from ${displayUrl(url)}: set base_url to the final URL`) };
      target = next.url;
    }
  } catch (err) {
    if (controller.signal.aborted) return timeout();
    return { ok: false, response: fail('network', networkMessage(err, url)) };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
  }
}
