import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adapterRequest, runAdapterProgram } from '../../support/adapter-process.js';
import { CONTESTED_NOTE, estimateTokens, insertNote, startModelServer, type ModelServer } from '../../support/model-server.js';

const DOC = 'Intro paragraph.\n\nBody paragraph.\n';
const PROMPT = `Role: reviewer\nPass 1 of 2.\n<<<BOUNCE-DOCUMENT-beef01>>>\n${DOC}\n<<<END-BOUNCE-DOCUMENT-beef01>>>\n`;
const SECRET = 'sk-test-SECRET123';

let server: ModelServer;
let base: string;
beforeAll(async () => {
  server = await startModelServer();
  base = `${server.url}/v1`;
});
afterAll(async () => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setDefault('edit');
});

const run = (options: Record<string, unknown>, env: Record<string, string> = {}, deadlineMs?: number) =>
  runAdapterProgram('openai', adapterRequest(PROMPT, options, deadlineMs), env);

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('openai adapter (built program, real HTTP)', () => {
  it('returns the reply with provider-reported usage and sends the options', async () => {
    const r = await run({ model: 'llama3.1', base_url: base, max_output_tokens: 900, temperature: 0.2 });
    expect(r.code).toBe(0);
    const reply = insertNote(DOC, CONTESTED_NOTE);
    expect(r.json).toEqual({
      ok: true,
      reply,
      stop: 'complete',
      model: 'llama3.1',
      agent_version: null,
      usage: {
        input_tokens: estimateTokens(PROMPT),
        output_tokens: estimateTokens(reply),
        cache_read_tokens: null,
        cache_write_tokens: null,
        cost_usd: null,
        provider_reported: true,
      },
    });
    const req = server.requests[0]!;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.body).toMatchObject({ model: 'llama3.1', stream: false, max_tokens: 900, temperature: 0.2, messages: [{ role: 'user', content: PROMPT }] });
    expect(req.headers.authorization).toBeUndefined(); // loopback, no key set
  });

  it('uses OPENAI_BASE_URL and a custom api_key_env', async () => {
    const r = await run({ model: 'm', api_key_env: 'MY_KEY' }, { OPENAI_BASE_URL: base, MY_KEY: 'abc-key-1' });
    expect(r.json.ok).toBe(true);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer abc-key-1');
  });

  it('reports cached prompt tokens (prompt_tokens_details.cached_tokens) as part of input_tokens', async () => {
    const cached = await startModelServer({ cache: { read: 12, write: 0 } });
    try {
      const r = await run({ model: 'm', base_url: `${cached.url}/v1` });
      expect(r.json.usage).toMatchObject({ input_tokens: estimateTokens(PROMPT), cache_read_tokens: 12, cache_write_tokens: null });
    } finally {
      await cached.close();
    }
  });

  it('reports finish_reason length as truncated and an empty reply as ok', async () => {
    server.script(['truncate', 'empty']);
    const t = await run({ model: 'm', base_url: base });
    expect(t.json).toMatchObject({ ok: true, stop: 'truncated', reply: DOC.slice(0, Math.floor(DOC.length / 2)) });
    const e = await run({ model: 'm', base_url: base });
    expect(e.json).toMatchObject({ ok: true, stop: 'complete', reply: '' });
  });

  it('maps HTTP errors to typed errors', async () => {
    server.script([
      { status: 401, message: 'bad key' },
      { status: 429, retryAfter: 2 },
      { status: 500 },
      { status: 503, retryAfter: 3 },
      { status: 404, message: 'model "nope" not found' },
    ]);
    const m = { model: 'm', base_url: base };
    expect((await run(m)).json).toEqual({ ok: false, error: { type: 'auth', message: 'HTTP 401: bad key', status: 401 } });
    expect((await run(m)).json.error).toMatchObject({ type: 'rate_limit', status: 429, retry_after_ms: 2000 });
    const e500 = (await run(m)).json.error;
    expect(e500).toMatchObject({ type: 'provider', status: 500 });
    expect(e500.retry_after_ms).toBeUndefined();
    expect((await run(m)).json.error).toMatchObject({ type: 'provider', status: 503, retry_after_ms: 3000 });
    expect((await run(m)).json.error).toMatchObject({ type: 'config', status: 404, message: 'HTTP 404: model "nope" not found' });
  });

  it('times out at the deadline when the server stalls', async () => {
    server.setDefault('stall');
    const r = await run({ model: 'm', base_url: base }, {}, 1200);
    expect(r.json.ok).toBe(false);
    expect(r.json.error.type).toBe('timeout');
    expect(r.ms).toBeLessThan(5000);
  });

  it('reports a refused connection as a network error', async () => {
    const r = await run({ model: 'm', base_url: `http://127.0.0.1:${await closedPort()}/v1` });
    expect(r.json.error).toMatchObject({ type: 'network' });
    expect(r.json.error.message).toMatch(/connection refused/);
  });

  it('refuses a missing model before any request', async () => {
    const r = await run({ base_url: base });
    expect(r.json.error.type).toBe('config');
    expect(r.json.error.message).toMatch(/set `model`.*openai:<model>/);
    expect(server.requests).toHaveLength(0);
  });

  it('never prints the key value, while the server receives it', async () => {
    server.script([{ status: 401, message: `Incorrect API key provided: ${SECRET}` }]);
    const bad = await run({ model: 'm', base_url: base }, { OPENAI_API_KEY: SECRET });
    const good = await run({ model: 'm', base_url: base }, { OPENAI_API_KEY: SECRET });
    const check = await runAdapterProgram('openai', { model: 'm', base_url: base }, { OPENAI_API_KEY: SECRET }, ['--check']);
    expect(bad.json.error.type).toBe('auth');
    expect(good.json.ok).toBe(true);
    for (const r of [bad, good, check]) expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(server.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${SECRET}`, `Bearer ${SECRET}`]);
  });
});

describe('openai --check (no request)', () => {
  const check = (options: Record<string, unknown>, env: Record<string, string> = {}) => runAdapterProgram('openai', options, env, ['--check']);

  it('is ok on loopback without a key, and says what it resolved', async () => {
    const r = await check({ model: 'llama3.1' });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      ok: true,
      problems: [],
      resolved: { base_url: 'http://127.0.0.1:11434/v1', model: 'llama3.1', api_key_env: 'OPENAI_API_KEY', key_set: false, loopback: true },
    });
    // No key on loopback is how a local server is run: nothing to warn about, on every run or in bounce check.
    expect(r.json.warnings).toEqual([]);
  });

  it('refuses a plain-http remote URL and a remote https URL without a key', async () => {
    const http = await check({ model: 'm', base_url: 'http://example.com/v1' }, { OPENAI_API_KEY: 'k-123456' });
    expect(http.code).toBe(1);
    expect(http.json.problems).toMatchObject([{ kind: 'config', message: 'base_url http://example.com/v1 is plain http to a non-loopback host' }]);
    const https = await check({ model: 'm', base_url: 'https://openrouter.ai/api/v1', api_key_env: 'OPENROUTER_API_KEY' });
    expect(https.code).toBe(1);
    expect(https.json.problems).toEqual([
      {
        kind: 'credentials',
        message: 'OPENROUTER_API_KEY is not set (https://openrouter.ai/api/v1 is not a loopback endpoint)',
        fix: 'set OPENROUTER_API_KEY, or name the variable to read with api_key_env in an agents: entry of bounce.config.yaml',
      },
    ]);
    const ok = await check({ model: 'm', base_url: 'https://openrouter.ai/api/v1', api_key_env: 'OPENROUTER_API_KEY' }, { OPENROUTER_API_KEY: 'or-key-1' });
    expect(ok.json).toMatchObject({ ok: true, resolved: { key_set: true } });
    expect(server.requests).toHaveLength(0);
  });

  it('reports a missing model and invalid options', async () => {
    expect((await check({})).json.problems[0]).toMatchObject({ kind: 'config', fix: expect.stringMatching(/set `model`/) });
    const bad = await check({ model: 'm', api_key_env: 'not a name' });
    expect(bad.code).toBe(1);
    expect(bad.json).toMatchObject({ ok: false, problems: [{ kind: 'config', message: 'api_key_env: must be an environment variable name' }] });
  });
});
