import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cachingDispatcher } from '../../src/cache/dispatcher.js';
import { ResponseCache } from '../../src/cache/entries.js';
import { cacheKey, NONCE_MARK } from '../../src/cache/key.js';
import type { AdapterRequest } from '../../src/contract/contract.js';
import type { CallOptions } from '../../src/contract/host.js';
import { tempDir } from '../support/cli.js';
import { fakeDispatcher } from '../support/engine.js';
import { testAgent } from '../support/test-agent.js';

const agent = testAgent({ spec: 'rev', adapter: 'openai', provider: 'openai', options: { model: 'gpt-x' } });
const framed = (nonce: string): string => `Review.\n<<<BOUNCE-DOCUMENT-${nonce}\n# Doc\n<<<END-BOUNCE-DOCUMENT-${nonce}>>>\n`;
const A = 'aaaaaaaaaaaa';
const B = 'bbbbbbbbbbbb';

/** The fields of a request the cache reads (the rest is the engine's business). */
const request = (id: string, prompt: string): AdapterRequest => ({ dispatch_id: id, run_id: `run-of-${id}`, prompt }) as AdapterRequest;
const opts = (ready: Promise<void> = Promise.resolve()): CallOptions => ({
  timeoutMs: 1000,
  maxOutputBytes: 1_000_000,
  signal: new AbortController().signal,
  ready,
});

describe('cachingDispatcher', () => {
  it('keeps an accepted reply and answers the same question with it: no agent called, nothing spent, the nonces of the new prompt', async () => {
    const cache = new ResponseCache(join(tempDir(), 'c'));
    const inner = fakeDispatcher([{ reply: `# Doc\n<<<BOUNCE-NOTES-${A}>>>\n`, usage: { cost_usd: 0.25 } }]);
    const c = cachingDispatcher(inner, cache, []);
    const first = await c.dispatch(agent, request('d1', framed(A)), opts());
    expect(first.ok && first.cache).toBeFalsy();
    expect(cache.stats().entries).toBe(0);
    c.accepted(['d1']);
    expect(cache.stats().entries).toBe(1);
    const again = await c.dispatch(agent, request('d2', framed(B)), opts());
    expect(inner.requests).toHaveLength(1);
    expect(again.cache).toEqual({ hit: true, of: 'd1', run: 'run-of-d1' });
    if (!again.ok) throw new Error('a hit is a success');
    expect(again.response.reply).toBe(`# Doc\n<<<BOUNCE-NOTES-${B}>>>\n`);
    expect(again.response.usage).toEqual({ input_tokens: 0, output_tokens: 0, cost_usd: 0, provider_reported: false });
    expect(JSON.parse(again.stdout)).toEqual(again.response);
  });

  it('keeps nothing of a pass that accepted no reply, and of those it did, the latest reply to each prompt', async () => {
    const cache = new ResponseCache(join(tempDir(), 'c'));
    const c = cachingDispatcher(fakeDispatcher([{ reply: 'never accepted' }, { reply: '' }, { reply: 'resent' }]), cache, []);
    await c.dispatch(agent, request('d1', framed(A)), opts());
    expect(cache.stats().entries).toBe(0);
    await c.dispatch(agent, request('d2', 'other'), opts());
    await c.dispatch(agent, request('d3', 'other'), opts());
    c.accepted(['d2', 'd3']);
    expect(cache.stats().entries).toBe(1);
    expect(cache.read(cacheKey(agent, 'other').key)?.response.reply).toBe('resent');
    expect(cache.read(cacheKey(agent, framed(A)).key)).toBeNull();
  });

  it('never keeps a reply that holds a secret of the run, or the nonce mark', async () => {
    const cache = new ResponseCache(join(tempDir(), 'c'));
    const c = cachingDispatcher(fakeDispatcher([{ reply: 'the key is sk-secret-123' }, { reply: `odd ${NONCE_MARK} byte` }]), cache, ['sk-secret-123']);
    await c.dispatch(agent, request('d1', 'one'), opts());
    await c.dispatch(agent, request('d2', 'two'), opts());
    c.accepted(['d1', 'd2']);
    expect(cache.stats().entries).toBe(0);
  });

  it('a yes from cached() holds its entry for the dispatch, even once the entry is cleared', async () => {
    const cache = new ResponseCache(join(tempDir(), 'c'));
    const inner = fakeDispatcher([{ reply: 'kept' }]);
    const c = cachingDispatcher(inner, cache, []);
    expect(c.cached(agent, 'q')).toBe(false);
    await c.dispatch(agent, request('d1', 'q'), opts());
    c.accepted(['d1']);
    expect(c.cached(agent, 'q')).toBe(true);
    cache.clear();
    const hit = await c.dispatch(agent, request('d2', 'q'), opts());
    expect(hit.cache?.hit).toBe(true);
    expect(inner.requests).toHaveLength(1);
  });

  it('a hit whose dispatch could not be recorded is interrupted, as an agent call would be', async () => {
    const cache = new ResponseCache(join(tempDir(), 'c'));
    const c = cachingDispatcher(fakeDispatcher([{ reply: 'kept' }]), cache, []);
    await c.dispatch(agent, request('d1', 'q'), opts());
    c.accepted(['d1']);
    const off = Promise.reject(new Error('disk full'));
    const r = await c.dispatch(agent, request('d2', 'q'), opts(off));
    expect(r).toMatchObject({ ok: false, error: { type: 'interrupted' } });
  });

  it('a cache that cannot be written is said once, and the run goes on', async () => {
    const root = tempDir();
    const folder = join(root, 'c');
    mkdirSync(folder);
    // Every shard of the folder is taken by a file: no entry can be written.
    for (let i = 0; i < 256; i++) writeFileSync(join(folder, i.toString(16).padStart(2, '0')), '');
    const said: string[] = [];
    const c = cachingDispatcher(fakeDispatcher([{ reply: 'one' }, { reply: 'two' }]), new ResponseCache(folder), [], (m) => said.push(m));
    await c.dispatch(agent, request('d1', 'q1'), opts());
    await c.dispatch(agent, request('d2', 'q2'), opts());
    c.accepted(['d1', 'd2']);
    expect(said.length).toBeGreaterThan(0);
    expect(said[0]).toContain(`could not write to the response cache ${folder}`);
  });
});
