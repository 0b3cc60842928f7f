/**
 * One mapping from a provider's failure to an adapter error type, for the HTTP adapters
 * (status of the response) and the CLI adapters (status or wording in the CLI's error text).
 */
import type { AdapterErrorType } from '../vocabulary.js';
import type { AdapterError } from '../contract/contract.js';
import { isQuotaText, quotaError } from './quota.js';

/** Error type for a failed HTTP status (before any provider-specific error type is considered). */
export function errorTypeForStatus(status: number): AdapterErrorType {
  if (status === 401 || status === 403) return 'auth';
  // 402 Payment Required: credits or billing (OpenRouter, Anthropic's billing_error).
  if (status === 402) return 'quota';
  // 529 is Anthropic's "overloaded": transient, and best waited out like a rate limit.
  if (status === 429 || status === 529) return 'rate_limit';
  if (status === 408 || status === 409 || status >= 500) return 'provider';
  return 'config';
}

/** `try again in 7s` / `retry after 250ms` in a provider's message, as milliseconds. */
export function retryAfterFromText(text: string): number | undefined {
  const m = /(?:try again|retry) (?:in|after)\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?)\b/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return Math.ceil(/^m/i.test(m[2] ?? '') ? n : n * 1000);
}

/** An HTTP status named in a CLI's error text: `API Error: 500`, `status 401`, `last status: 429`. */
export function statusFromText(text: string): number | undefined {
  const m = /\b(?:status(?: code)?:?|API Error:?|HTTP)\s*\(?(\d{3})\b/i.exec(text) ?? /\((\d{3})\)/.exec(text);
  const n = m ? Number(m[1]) : Number.NaN;
  return n >= 400 && n <= 599 ? n : undefined;
}

const AUTH_RE = /\b(401|403)\b|unauthori[sz]ed|forbidden|invalid (x-)?api[ -]?key|api key|authenticat|not logged in|\/login|log ?in again|oauth|credential/i;
const RATE_RE = /\b(429|529)\b|rate[ _-]?limit|too many requests|overloaded|at capacity/i;
const NETWORK_RE =
  /ECONNREFUSED|ConnectionRefused|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|fetch failed|socket hang up|unable to connect|connection (failed|refused|reset)|error sending request|network/i;

/**
 * A typed error from a CLI's failure text and, when known, the HTTP status behind it.
 * A quota or subscription limit decides first (it comes as a 429 or a 400, but no retry
 * helps); then the status (as for the HTTP adapters); then the text: auth, rate limit,
 * network; otherwise provider. `timeZone` is the CLI's, for a reset time it printed bare.
 */
export function classifyCliError(message: string, status?: number | null, opts: { timeZone?: string } = {}): AdapterError {
  const code = status !== undefined && status !== null && status >= 400 ? status : statusFromText(message);
  const text = message.trim().replace(/\s+/g, ' ').slice(0, 600) || 'the CLI failed without a message';
  if (isQuotaText(text) || code === 402) return quotaError(text, { ...(code ? { status: code } : {}), ...opts });
  const retry = retryAfterFromText(message);
  const extra = { ...(code ? { status: code } : {}), ...(retry !== undefined ? { retry_after_ms: retry } : {}) };
  const type: AdapterErrorType =
    code !== undefined
      ? errorTypeForStatus(code)
      : AUTH_RE.test(text)
        ? 'auth'
        : RATE_RE.test(text)
          ? 'rate_limit'
          : NETWORK_RE.test(text)
            ? 'network'
            : 'provider';
  return { type, message: text, ...extra };
}
