import { describe, expect, it } from 'vitest';
import { problemLine } from '../../src/contract/contract.js';
import { checkEndpoint, displayUrl, isLoopback, parseRetryAfter, redact, serverMessage } from '../../src/kit/endpoint.js';
import { errorTypeForStatus } from '../../src/kit/error-type.js';

describe('isLoopback', () => {
  it.each([
    ['http://127.0.0.1:11434/v1', true],
    ['http://127.8.9.10/', true],
    ['http://localhost:8080', true],
    ['http://LOCALHOST/', true],
    ['http://[::1]:8000/v1', true],
    ['http://[::ffff:127.0.0.1]/', true],
    ['http://127.1/', true],
    ['http://128.0.0.1/', false],
    ['https://api.openai.com/v1', false],
    ['http://localhost.evil.com/', false],
    ['http://127.0.0.1.nip.io/', false],
    ['http://[::2]/', false],
    ['http://0.0.0.0/', false],
    ['not a url', false],
  ])('%s -> %s', (url, expected) => expect(isLoopback(url)).toBe(expected));
});

describe('checkEndpoint', () => {
  const env = { OPENAI_API_KEY: 'sk-test-SECRET123', BLANK: '  ' };
  it('lets loopback omit a key and uses the key when set', () => {
    expect(checkEndpoint({ baseUrl: 'http://127.0.0.1:11434/v1', apiKeyEnv: 'MISSING', env })).toEqual({ problems: [], loopback: true, keyEnv: null });
    expect(checkEndpoint({ baseUrl: 'http://localhost/v1', apiKeyEnv: 'OPENAI_API_KEY', env })).toEqual({
      problems: [],
      loopback: true,
      keyEnv: 'OPENAI_API_KEY',
    });
  });
  it('needs a set, non-empty key off loopback and names the fix', () => {
    expect(checkEndpoint({ baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', env }).problems).toEqual([]);
    const r = checkEndpoint({ baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'BLANK', env });
    expect(r).toMatchObject({ loopback: false, keyEnv: null });
    expect(r.problems).toEqual([
      {
        kind: 'credentials',
        message: 'BLANK is not set (https://api.openai.com/v1 is not a loopback endpoint)',
        fix: 'set BLANK, or name the variable to read with api_key_env in an agents: entry of bounce.config.yaml',
      },
    ]);
  });
  it('refuses plain http off loopback even with a key', () => {
    const r = checkEndpoint({ baseUrl: 'http://10.0.0.5:8000/v1', apiKeyEnv: 'OPENAI_API_KEY', env });
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ kind: 'config' });
    expect(problemLine(r.problems[0]!)).toMatch(/plain http.*use https/);
  });
  it('forces a key on loopback when keyRequired', () => {
    const r = checkEndpoint({ baseUrl: 'http://127.0.0.1:9/', apiKeyEnv: 'ANTHROPIC_API_KEY', env, keyRequired: true });
    expect(r.problems[0]).toMatchObject({
      kind: 'credentials',
      fix: 'set ANTHROPIC_API_KEY, or name the variable to read with api_key_env in an agents: entry of bounce.config.yaml',
    });
  });
  it('refuses bad URLs and credentials in the URL without echoing them', () => {
    expect(checkEndpoint({ baseUrl: 'nope', apiKeyEnv: 'OPENAI_API_KEY', env }).problems[0]?.message).toMatch(/not a valid URL/);
    expect(checkEndpoint({ baseUrl: 'ftp://127.0.0.1/', apiKeyEnv: 'OPENAI_API_KEY', env }).problems[0]?.message).toMatch(/not http/);
    const creds = checkEndpoint({ baseUrl: 'https://user:hunter2@api.example.com/v1', apiKeyEnv: 'OPENAI_API_KEY', env });
    expect(creds.problems.map(problemLine).join(' ')).toMatch(/carries credentials/);
    expect(creds.problems.join(' ')).not.toContain('hunter2');
  });
  it('never puts a key value in a message', () => {
    for (const baseUrl of ['http://example.com', 'https://example.com', 'http://127.0.0.1']) {
      const r = checkEndpoint({ baseUrl, apiKeyEnv: 'OPENAI_API_KEY', env, keyRequired: true });
      expect(JSON.stringify(r)).not.toContain('SECRET123');
    }
  });
});

describe('helpers', () => {
  it('parseRetryAfter reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(' 0.5 ')).toBe(500);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-1')).toBeUndefined();
    const inTen = new Date(Date.now() + 10_000).toUTCString();
    expect(parseRetryAfter(inTen)).toBeGreaterThan(8000);
    expect(parseRetryAfter(inTen)).toBeLessThanOrEqual(10_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).toBe(0);
  });
  it('redacts, shortens server messages, strips URLs and maps statuses', () => {
    expect(redact('key sk-abc123 is bad', ['sk-abc123', undefined])).toBe('key *** is bad');
    expect(serverMessage('{"error":{"message":"bad  model"}}')).toBe('bad model');
    expect(serverMessage('{"detail":"nope"}')).toBe('nope');
    expect(serverMessage('x'.repeat(1000))).toHaveLength(300);
    expect(displayUrl('https://u:p@h.example/v1?key=abc#x')).toBe('https://h.example/v1');
    // 529 (overloaded) is a rate limit here as in the CLI adapters' error text.
    expect([401, 403, 429, 500, 529, 408, 400, 404, 422].map(errorTypeForStatus)).toEqual([
      'auth',
      'auth',
      'rate_limit',
      'provider',
      'rate_limit',
      'provider',
      'config',
      'config',
      'config',
    ]);
  });
});
