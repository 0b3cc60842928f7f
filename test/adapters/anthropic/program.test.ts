import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adapterRequest, runAdapterProgram } from '../../support/adapter-process.js';
import { estimateTokens, startModelServer, type ModelServer } from '../../support/model-server.js';

const DOC = 'Intro paragraph.\n\n[CONTESTED] Old note.\n\nBody paragraph.\n';
const PROMPT = `Role: composer\nPass 2 of 2.\nFINAL PASS\n<<<BOUNCE-DOCUMENT-c0ffee>>>\n${DOC}\n<<<END-BOUNCE-DOCUMENT-c0ffee>>>\n`;
const CLEAN = 'Intro paragraph.\n\nBody paragraph.\n';
const SECRET = 'sk-ant-test-SECRET123';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setDefault('edit');
});

const KEY = { ANTHROPIC_API_KEY: SECRET };
const run = (options: Record<string, unknown> = {}, env: Record<string, string> = KEY, deadlineMs?: number) =>
  runAdapterProgram('anthropic', adapterRequest(PROMPT, { base_url: server.url, ...options }, deadlineMs), env);

describe('anthropic adapter (built program, real HTTP)', () => {
  it('calls the Messages API with defaults and returns reply and usage', async () => {
    const r = await run();
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      ok: true,
      reply: CLEAN,
      stop: 'complete',
      model: 'claude-sonnet-4-5',
      agent_version: null,
      usage: {
        input_tokens: estimateTokens(PROMPT),
        output_tokens: estimateTokens(CLEAN),
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        cost_usd: null,
        provider_reported: true,
      },
    });
    const req = server.requests[0]!;
    expect(req.path).toBe('/v1/messages');
    expect(req.headers['x-api-key']).toBe(SECRET);
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.body).toEqual({ model: 'claude-sonnet-4-5', max_tokens: 16000, messages: [{ role: 'user', content: PROMPT }] });
  });

  it('counts cached prompt tokens in input_tokens and reports them apart', async () => {
    const cached = await startModelServer({ cache: { read: 10, write: 4 } });
    try {
      const r = await runAdapterProgram('anthropic', adapterRequest(PROMPT, { base_url: cached.url }), KEY);
      // The API sends input_tokens without the 14 cached ones: the adapter adds them back.
      expect(r.json.usage).toEqual({
        input_tokens: estimateTokens(PROMPT),
        output_tokens: estimateTokens(CLEAN),
        cache_read_tokens: 10,
        cache_write_tokens: 4,
        cost_usd: null,
        provider_reported: true,
      });
    } finally {
      await cached.close();
    }
  });

  it('honours model, max_output_tokens, temperature, ANTHROPIC_BASE_URL and api_key_env', async () => {
    const r = await runAdapterProgram(
      'anthropic',
      adapterRequest(PROMPT, { model: 'claude-haiku-4-5', max_output_tokens: 500, temperature: 0.5, api_key_env: 'ALT_KEY' }),
      { ANTHROPIC_BASE_URL: server.url, ALT_KEY: 'alt-key-1' },
    );
    expect(r.json).toMatchObject({ ok: true, model: 'claude-haiku-4-5' });
    expect(server.requests[0]!.body).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 500, temperature: 0.5 });
    expect(server.requests[0]!.headers['x-api-key']).toBe('alt-key-1');
  });

  it('reports stop_reason max_tokens as truncated', async () => {
    server.script(['truncate']);
    expect((await run()).json).toMatchObject({ ok: true, stop: 'truncated', reply: DOC.slice(0, Math.floor(DOC.length / 2)) });
  });

  it('maps API errors to typed errors', async () => {
    server.script([
      { status: 401, message: 'invalid x-api-key' },
      { status: 429, retryAfter: 7 },
      { status: 529, message: 'Overloaded' },
      { status: 500 },
      { status: 400, message: 'max_tokens: too large' },
    ]);
    expect((await run()).json.error).toEqual({ type: 'auth', status: 401, message: 'HTTP 401 authentication_error: invalid x-api-key' });
    expect((await run()).json.error).toMatchObject({ type: 'rate_limit', status: 429, retry_after_ms: 7000 });
    // Overloaded is transient and waited out like a rate limit, as in the CLI adapters.
    expect((await run()).json.error).toMatchObject({ type: 'rate_limit', status: 529, message: 'HTTP 529 overloaded_error: Overloaded' });
    expect((await run()).json.error).toMatchObject({ type: 'provider', status: 500 });
    expect((await run()).json.error).toMatchObject({ type: 'config', status: 400, message: 'HTTP 400 invalid_request_error: max_tokens: too large' });
  });

  it('times out at the deadline when the server stalls', async () => {
    server.setDefault('stall');
    const r = await run({}, KEY, 1200);
    expect(r.json.error.type).toBe('timeout');
    expect(r.ms).toBeLessThan(5000);
  });

  it('reports a refused connection as a network error', async () => {
    const s = createServer();
    await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
    const port = (s.address() as { port: number }).port;
    await new Promise<void>((res) => s.close(() => res()));
    const r = await run({ base_url: `http://127.0.0.1:${port}` });
    expect(r.json.error).toMatchObject({ type: 'network' });
  });

  it('needs a key even on loopback, and never prints it', async () => {
    const none = await run({}, {});
    expect(none.json.error.type).toBe('config');
    expect(none.json.error.message).toMatch(/set ANTHROPIC_API_KEY, or name the variable to read with api_key_env/);
    expect(server.requests).toHaveLength(0);
    server.script([{ status: 401, message: `key ${SECRET} is invalid` }]);
    const bad = await run();
    expect(bad.json.error.type).toBe('auth');
    expect(bad.stdout + bad.stderr).not.toContain(SECRET);
    expect(server.requests[0]!.headers['x-api-key']).toBe(SECRET);
  });
});

describe('anthropic --check', () => {
  const check = (options: Record<string, unknown>, env: Record<string, string> = {}) => runAdapterProgram('anthropic', options, env, ['--check']);

  it('resolves defaults and reports a missing key by name', async () => {
    const r = await check({});
    expect(r.code).toBe(1);
    expect(r.json.problems).toEqual([
      {
        kind: 'credentials',
        message: 'ANTHROPIC_API_KEY is not set (this adapter always needs a key)',
        fix: 'set ANTHROPIC_API_KEY, or name the variable to read with api_key_env in an agents: entry of bounce.config.yaml',
      },
    ]);
    expect(r.json.resolved).toMatchObject({
      base_url: 'https://api.anthropic.com',
      model: 'claude-sonnet-4-5',
      max_output_tokens: 16000,
      api_key_env: 'ANTHROPIC_API_KEY',
    });
  });

  it('is ok with a key, refuses plain http off loopback and a temperature above 1', async () => {
    const ok = await check({}, { ANTHROPIC_API_KEY: SECRET });
    expect(ok.code).toBe(0);
    expect(ok.stdout).not.toContain(SECRET);
    const bad = await check({ base_url: 'http://proxy.example.com', temperature: 1.5 }, { ANTHROPIC_API_KEY: SECRET });
    expect(bad.code).toBe(1);
    expect(bad.json.problems.map((p: { kind: string; message: string }) => `${p.kind} ${p.message}`)).toEqual([
      'config temperature 1.5 is out of range for the Messages API',
      'config base_url http://proxy.example.com is plain http to a non-loopback host',
    ]);
  });
});
