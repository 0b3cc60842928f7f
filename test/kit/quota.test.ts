/**
 * Quota and subscription limits are their own error type. Texts as the CLIs print them
 * (Claude Code 2.1.197 and Codex 0.171.0 observed against the scripted model server;
 * older wordings from their issue trackers) and as the HTTP APIs send them.
 */
import { describe, expect, it } from 'vitest';
import { interpret as anthropicInterpret } from '../../adapters/anthropic/program.js';
import { interpret as openaiInterpret } from '../../adapters/openai/program.js';
import { classifyCliError } from '../../src/kit/error-type.js';
import { durationMs, isQuotaText, quotaError, resetTime } from '../../src/kit/quota.js';

const NOW = Date.parse('2026-12-01T11:27:02Z');

describe('classifyCliError: limits are quota, with the reset time', () => {
  const rows: Array<[text: string, status: number | null, tz: string | undefined, resetsAt: string | null]> = [
    // Claude Code 2.1.197, subscription login, 429 with anthropic-ratelimit-unified-status: rejected.
    ["You've hit your session limit · resets 2:26pm (UTC)", 429, undefined, '2026-12-01T14:26:00.000Z'],
    ["You've hit your session limit · resets 4:20am (Europe/London)", 429, undefined, '2026-12-02T04:20:00.000Z'],
    ["You've hit your weekly limit · resets Dec 6, 8am (America/New_York)", 429, undefined, '2026-12-06T13:00:00.000Z'],
    ["You've hit your Opus limit · resets Jan 3, 9pm (UTC)", 429, undefined, '2027-01-03T21:00:00.000Z'],
    ["You've hit your usage limit", 429, undefined, null],
    // Claude Code 1.x: the reset as epoch seconds after a bar.
    ['Claude AI usage limit reached|1764603600', null, undefined, '2025-12-01T15:40:00.000Z'],
    // Codex 0.171.0 (ChatGPT plan), 429 usage_limit_reached; the time is in codex's own zone.
    [
      'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 12:33 PM.',
      null,
      'Europe/Paris',
      '2026-12-01T11:33:00.000Z',
    ],
    [
      'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at Dec 6th, 2026 8:28 AM.',
      null,
      'Europe/Paris',
      '2026-12-06T07:28:00.000Z',
    ],
    // Older Codex wording.
    ["You've hit your usage limit. Upgrade to Pro or try again in 4 days 20 hours.", null, undefined, '2026-12-06T07:27:02.000Z'],
    ["You've hit your usage limit. Try again in 3h 5m.", null, undefined, '2026-12-01T14:32:02.000Z'],
    // Codex on insufficient_quota; Claude Code on a credit balance at 0 and on a 402.
    ['Quota exceeded. Check your plan and billing details.', null, undefined, null],
    ['Credit balance is too low', 400, undefined, null],
    ['API Error: 402 Your account has a billing issue.', 402, undefined, null],
  ];
  it.each(rows)('%s', (text, status, tz, resetsAt) => {
    const error = classifyCliError(text, status, { timeZone: tz });
    expect(error.type).toBe('quota');
    if (status) expect(error.status).toBe(status);
    // resetTime is read at a fixed NOW; the error itself is stamped with the real clock.
    const at = resetTime(text, NOW, tz);
    if (resetsAt === null) {
      expect(at).toBeUndefined();
      expect(error.resets_at).toBeUndefined();
    } else {
      expect(new Date(at ?? 0).toISOString()).toBe(resetsAt);
      expect(error.resets_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(error.retry_after_ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('leaves rate limits, auth and outages as they were', () => {
    expect(classifyCliError('API Error: Request rejected (429) · Rate limited', 429).type).toBe('rate_limit');
    expect(classifyCliError('Rate limit reached (scripted). Please try again in 1s.', null)).toMatchObject({ type: 'rate_limit', retry_after_ms: 1000 });
    expect(classifyCliError('unexpected status 401 Unauthorized: invalid api key', null).type).toBe('auth');
    expect(classifyCliError('API Error: 500 scripted outage', 500).type).toBe('provider');
    expect(classifyCliError('Claude Opus limit reached, now using Sonnet 4', null).type).not.toBe('quota');
  });
});

describe('the parts', () => {
  it('reads durations', () => {
    expect(durationMs('4 days 20 hours')).toBe((4 * 24 + 20) * 3_600_000);
    expect(durationMs('90 seconds')).toBe(90_000);
    expect(durationMs('2 min')).toBe(120_000);
    expect(durationMs('soon')).toBeUndefined();
  });

  it('a reset already past today is tomorrow', () => {
    expect(new Date(resetTime('resets 9am (UTC)', NOW) ?? 0).toISOString()).toBe('2026-12-02T09:00:00.000Z');
    expect(new Date(resetTime('resets 12am (UTC)', NOW) ?? 0).toISOString()).toBe('2026-12-02T00:00:00.000Z');
  });

  it('quotaError takes a known reset or wait over the text', () => {
    expect(quotaError('HTTP 429: x', { resetsAt: NOW + 5000, now: NOW })).toEqual({
      type: 'quota',
      message: 'HTTP 429: x',
      resets_at: '2026-12-01T11:27:07.000Z',
      retry_after_ms: 5000,
    });
    expect(quotaError('HTTP 429: x', { retryAfterMs: 60_000, now: NOW, status: 429 })).toMatchObject({ retry_after_ms: 60_000, status: 429 });
    expect(isQuotaText('You exceeded your current quota, please check your plan and billing details.')).toBe(true);
    expect(isQuotaText('Rate limit reached for gpt-4o in organization org-x on tokens per min')).toBe(false);
  });
});

describe('HTTP adapters map quota errors', () => {
  const h = (o: Record<string, string> = {}): Headers => new Headers(o);
  it('openai: insufficient_quota and 402 are quota, not a retried 429', () => {
    const body = JSON.stringify({
      error: {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      },
    });
    expect(openaiInterpret(429, body, h(), 'm')).toMatchObject({ ok: false, error: { type: 'quota', status: 429 } });
    expect(openaiInterpret(402, '{"error":{"message":"Insufficient credits"}}', h(), 'm')).toMatchObject({ ok: false, error: { type: 'quota' } });
    expect(openaiInterpret(429, '{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}', h(), 'm')).toMatchObject({
      error: { type: 'rate_limit' },
    });
  });

  it('anthropic: billing_error, a credit balance at 0 and a rejected subscription window are quota', () => {
    const err = (type: string, message: string) => JSON.stringify({ type: 'error', error: { type, message } });
    expect(anthropicInterpret(402, err('billing_error', 'billing issue'), h(), 'm')).toMatchObject({ error: { type: 'quota' } });
    // An error type the table does not own is decided by the status, even one named like an object's property.
    expect(anthropicInterpret(503, err('constructor', 'x'), h(), 'm')).toMatchObject({ error: { type: 'provider', status: 503 } });
    const low = err(
      'invalid_request_error',
      'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
    );
    expect(anthropicInterpret(400, low, h(), 'm')).toMatchObject({ error: { type: 'quota', status: 400 } });
    const reset = Math.floor(Date.now() / 1000) + 3600;
    const window = anthropicInterpret(
      429,
      err('rate_limit_error', 'Rate limited'),
      h({ 'anthropic-ratelimit-unified-status': 'rejected', 'anthropic-ratelimit-unified-reset': String(reset) }),
      'm',
    );
    expect(window).toMatchObject({ error: { type: 'quota', resets_at: new Date(reset * 1000).toISOString() } });
    expect(anthropicInterpret(429, err('rate_limit_error', 'Rate limited'), h(), 'm')).toMatchObject({ error: { type: 'rate_limit' } });
  });
});
