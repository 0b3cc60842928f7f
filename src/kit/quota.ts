/**
 * Quota and subscription limits: a failure no retry can fix before the limit resets.
 * Recognised from the CLIs' own wording (Claude Code, Codex) and the HTTP APIs' error
 * codes, and turned into a `quota` error with the reset time when the message gives one.
 */
import type { AdapterError } from '../contract/contract.js';

const QUOTA_PATTERNS = [
  // Claude Code: "You've hit your session limit \u00b7 resets 4:20am (UTC)"; Codex: "You\u2019ve hit your usage limit. ..." (as escapes: the bundle is ASCII)
  /you['\u2019]ve (?:hit|reached) your [\w -]*?(?:limit|quota)/,
  /(?:usage|session|weekly|spend) limit (?:reached|has been reached)/,
  /quota exceeded|exceeded your (?:current )?quota|insufficient[_ ]quota/,
  /credit balance (?:is )?too low|out of (?:usage )?credits|insufficient (?:credits|balance|funds)|billing[_ ](?:error|issue)|billing details/,
];
const QUOTA_RE = new RegExp(QUOTA_PATTERNS.map((p) => p.source).join('|'), 'i');

/** True when a provider's failure text says a quota, subscription limit or credit balance is used up. */
export function isQuotaText(text: string): boolean {
  return QUOTA_RE.test(text);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/** `4 days 20 hours`, `3h 5m`, `90 seconds` as milliseconds; undefined without a duration. */
export function durationMs(text: string): number | undefined {
  let total = 0;
  let found = false;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b/gi)) {
    const unit = (m[2] ?? '').toLowerCase();
    const key = unit.startsWith('mi') || unit === 'm' ? 'm' : (unit[0] ?? 's');
    total += Number(m[1]) * (UNIT_MS[key] ?? 0);
    found = true;
  }
  return found ? Math.round(total) : undefined;
}

/** Offset of `timeZone` from UTC at `at`, in milliseconds (positive east of Greenwich). */
function zoneOffsetMs(at: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(at));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - Math.floor(at / 1000) * 1000;
}

/** The instant a wall-clock time in `timeZone` names (month is 0-based). */
function zonedInstant(y: number, month: number, d: number, h: number, min: number, timeZone: string): number {
  const guess = Date.UTC(y, month, d, h, min);
  const first = guess - zoneOffsetMs(guess, timeZone);
  return guess - zoneOffsetMs(first, timeZone);
}

function validZone(zone: string | undefined): string | undefined {
  if (!zone) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    return undefined;
  }
}

const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** `4:20am`, `2:26 PM`, `3pm` as 24-hour hours and minutes. */
function clock(text: string): { h: number; min: number } | null {
  const m = /\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?\b/i.exec(text) ?? /\b([01]?\d|2[0-3]):(\d{2})\b/.exec(text);
  if (!m) return null;
  let h = Number(m[1]);
  const ampm = m[3]?.toLowerCase();
  if (ampm === 'p' && h < 12) h += 12;
  if (ampm === 'a' && h === 12) h = 0;
  return h > 23 ? null : { h, min: Number(m[2] ?? 0) };
}

/**
 * The reset instant a limit message names: `resets 4:20am (Europe/London)`,
 * `resets Oct 9, 3pm (UTC)`, `try again at Dec 6th, 2026 8:28 AM` (local time of the CLI:
 * `timeZone`), `try again in 4 days 20 hours`, or Claude Code's older `limit reached|<epoch>`.
 * A time of day without a date is its next occurrence after `now`.
 */
export function resetTime(text: string, now: number, timeZone?: string): number | undefined {
  const epoch = /limit reached\|(\d{9,11})\b/i.exec(text);
  if (epoch) return Number(epoch[1]) * 1000;
  const after = /\b(?:try again|retry|resets?) in\s+([^.;\u00b7(]+)/i.exec(text);
  if (after) {
    const ms = durationMs(after[1] ?? '');
    if (ms !== undefined) return now + ms;
  }
  const at = /\b(?:resets?(?: at| on)?|try again (?:at|on)|available again at)\s+([^.;\u00b7]+)/i.exec(text);
  if (!at) return undefined;
  const phrase = at[1] ?? '';
  // The zone the message names, else the CLI's (its TZ), else this machine's.
  const zone = validZone(/\(([A-Za-z_]+(?:\/[A-Za-z_+-]+)*)\)/.exec(phrase)?.[1]) ?? validZone(timeZone) ?? localZone();
  const time = clock(phrase.replace(/\([^)]*\)/g, ''));
  if (!time) return undefined;
  const date = /\b([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4}))?/.exec(phrase);
  const monthIndex = date ? MONTHS.indexOf((date[1] ?? '').toLowerCase()) : -1;
  const today = new Date(now + zoneOffsetMs(now, zone));
  if (date && monthIndex >= 0) {
    const year = date[3] ? Number(date[3]) : today.getUTCFullYear();
    let instant = zonedInstant(year, monthIndex, Number(date[2]), time.h, time.min, zone);
    if (!date[3] && instant < now - 86_400_000) instant = zonedInstant(year + 1, monthIndex, Number(date[2]), time.h, time.min, zone);
    return instant;
  }
  let instant = zonedInstant(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), time.h, time.min, zone);
  if (instant <= now) instant = zonedInstant(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1, time.h, time.min, zone);
  return instant;
}

export interface QuotaHints {
  /** Reset instant known from elsewhere (a header, a JSON field), in ms since the epoch. */
  resetsAt?: number;
  /** A wait the provider asked for, in milliseconds. */
  retryAfterMs?: number;
  status?: number;
  /** The CLI's time zone, for a reset time printed without one. */
  timeZone?: string;
  now?: number;
}

/** A `quota` error: the message as given, `resets_at` and `retry_after_ms` when the reset is known. */
export function quotaError(message: string, hints: QuotaHints = {}): AdapterError {
  const now = hints.now ?? Date.now();
  const at = hints.resetsAt ?? resetTime(message, now, hints.timeZone) ?? (hints.retryAfterMs !== undefined ? now + hints.retryAfterMs : undefined);
  const known = at !== undefined && Number.isFinite(at);
  return {
    type: 'quota',
    message,
    ...(hints.status !== undefined ? { status: hints.status } : {}),
    ...(known ? { resets_at: new Date(at).toISOString(), retry_after_ms: Math.max(0, Math.round(at - now)) } : {}),
  };
}
