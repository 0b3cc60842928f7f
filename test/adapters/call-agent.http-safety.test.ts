/**
 * Where the HTTP adapters send a key: never along a redirect to another origin, never over
 * plain http to a non-loopback host, never from a base_url that carries one in its query.
 * Real HTTP servers on 127.0.0.1 (and `localhost`, which is another origin).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callAgent } from '../../src/adapters/call-agent.js';
import type { AdapterRequest } from '../../src/contract/contract.js';
import { preflight } from '../../src/preflight/preflight.js';
import { resolveAgent } from '../../src/adapters/registry.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { adapterRequest } from '../support/adapter-process.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

const KEY = 'sk-test-REDIRECTKEY-777';
const PROMPT = 'Role: reviewer\n<<<BOUNCE-DOCUMENT-abc>>>\n# Doc\n\nText.\n<<<END-BOUNCE-DOCUMENT-abc>>>\n';

interface Redirector {
  url: string;
  hits: Array<{ path: string; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}

/**
 * A server that answers every POST with `status` and a Location of `to(path)`, except paths
 * under /final, which get a minimal successful answer in both APIs' shapes.
 */
async function redirector(status: number, to: (path: string) => string): Promise<Redirector> {
  const hits: Redirector['hits'] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '/';
      hits.push({ path, headers: req.headers });
      if (!path.startsWith('/final')) return void res.writeHead(status, { location: to(path) }).end();
      const answer = {
        choices: [{ message: { content: 'moved' }, finish_reason: 'stop' }],
        content: [{ type: 'text', text: 'moved' }],
        stop_reason: 'end_turn',
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(async () => model.close());
beforeEach(() => {
  model.requests.length = 0;
});

const config = (agents: Record<string, unknown>) => ConfigSchema.parse({ agents });
async function dispatch(adapter: 'openai' | 'anthropic', baseUrl: string) {
  const cfg = config({ a: { adapter, model: 'mock-model', base_url: baseUrl, api_key_env: 'TEST_KEY' } });
  const agent = resolveAgent('a', cfg, '/', null);
  const request = adapterRequest(PROMPT, agent.options, 10_000) as unknown as AdapterRequest;
  return callAgent(agent, request, { timeoutMs: 10_000, maxOutputBytes: 1_000_000, env: { TEST_KEY: KEY } });
}

describe.each(['openai', 'anthropic'] as const)('%s adapter and redirects', (adapter) => {
  const api = adapter === 'openai' ? '/v1' : '';

  it('follows a 307 to the same origin, key included', async () => {
    const same = await redirector(307, (path) => `/final${path}`);
    try {
      const r = await dispatch(adapter, `${same.url}${api}`);
      expect(r).toMatchObject({ ok: true, response: { reply: 'moved' } });
      expect(same.hits.map((h) => h.path)).toEqual([
        `${api}${adapter === 'openai' ? '/chat/completions' : '/v1/messages'}`,
        expect.stringMatching(/^\/final\//),
      ]);
      const header = adapter === 'openai' ? 'authorization' : 'x-api-key';
      expect(same.hits[1]?.headers[header]).toContain(KEY);
    } finally {
      await same.close();
    }
  });

  it('does not follow a redirect to another origin, and sends it nothing', async () => {
    const other = `http://localhost:${model.port}`; // another origin for the same server
    const away = await redirector(307, (path) => `${other}${path}`);
    try {
      const r = await dispatch(adapter, `${away.url}${api}`);
      expect(r).toMatchObject({ ok: false, error: { type: 'config', status: 307 } });
      expect(!r.ok && r.error.message).toMatch(/redirects to another origin \(http:\/\/localhost:\d+\); the key is not sent there/);
      expect(away.hits).toHaveLength(1);
      expect(model.requests).toHaveLength(0);
      expect(JSON.stringify(r)).not.toContain(KEY);
    } finally {
      await away.close();
    }
  });

  it('does not turn a POST into a GET on a 302, even to the same origin', async () => {
    const back = await redirector(302, (path) => `${path}/again`);
    try {
      const r = await dispatch(adapter, `${back.url}${api}`);
      expect(r).toMatchObject({ ok: false, error: { type: 'config', status: 302 } });
      expect(back.hits).toHaveLength(1);
    } finally {
      await back.close();
    }
  });

  it('stops after a few same-origin redirects', async () => {
    const loop = await redirector(308, (path) => path);
    try {
      const r = await dispatch(adapter, `${loop.url}${api}`);
      expect(r).toMatchObject({ ok: false, error: { type: 'config', message: expect.stringMatching(/more than 3 redirects/) } });
      expect(loop.hits).toHaveLength(4);
    } finally {
      await loop.close();
    }
  });

  it('refuses a key in the base_url query string, at check time (exit 2) and at dispatch', async () => {
    const url = `${model.url}${api}?api_key=${KEY}`;
    const cfg = config({ a: { adapter, model: 'mock-model', base_url: url, api_key_env: 'TEST_KEY' } });
    const agent = resolveAgent('a', cfg, '/', null);
    const failure = await preflight({ reviewer: agent, composer: agent }, { TEST_KEY: KEY }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ exitCode: 2, hint: expect.stringContaining('remove it from the URL and name the key variable with api_key_env') });
    expect((failure as Error).message).toMatch(/carries a key in its query string \(api_key\)/);
    expect((failure as Error).message).not.toContain(KEY);
    const r = await dispatch(adapter, url);
    expect(r).toMatchObject({ ok: false, error: { type: 'config' } });
    expect(model.requests).toHaveLength(0);
    // A query that holds the key's value under any name is refused too; an ordinary one is not.
    const sneaky = await preflight(
      {
        reviewer: resolveAgent('a', config({ a: { adapter, base_url: `${model.url}?v=${KEY}`, model: 'm', api_key_env: 'TEST_KEY' } }), '/', null),
        composer: agent,
      },
      { TEST_KEY: KEY },
    ).catch((e: unknown) => e);
    expect((sneaky as Error).message).toMatch(/query string \(v\)/);
    const fine = resolveAgent(
      'a',
      config({ a: { adapter, base_url: `${model.url}${api}?api-version=2024-10-01`, model: 'm', api_key_env: 'TEST_KEY' } }),
      '/',
      null,
    );
    await expect(preflight({ reviewer: fine, composer: fine }, { TEST_KEY: KEY })).resolves.toBeDefined();
  });

  it('never sends a key over plain http to a non-loopback host', async () => {
    const r = await dispatch(adapter, 'http://models.example.invalid/v1');
    expect(r).toMatchObject({ ok: false, error: { type: 'config', message: expect.stringContaining('plain http to a non-loopback host') } });
  });
});
