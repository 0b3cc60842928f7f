import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { check, dispatch, reach } from '../../../adapters/a2a/program.js';
import { readDispatch } from '../../../adapters/a2a/wire.js';
import { AdapterRequestSchema } from '../../../src/contract/contract.js';
import type { AdapterContext } from '../../../src/kit/adapter-kit.js';
import { createProbe } from '../../../src/kit/detect.js';
import { adapterRequest } from '../../support/adapter-process.js';
import { startA2aAgent, type TestA2aAgent } from '../../support/a2a-agent.js';
import { CONTESTED_NOTE, insertNote } from '../../support/model-turn.js';

const DOC = 'Intro paragraph.\n\nBody paragraph.\n';
const PROMPT = `Role: reviewer\nPass 1 of 2.\n<<<BOUNCE-DOCUMENT-beef01>>>\n${DOC}\n<<<END-BOUNCE-DOCUMENT-beef01>>>\n`;
const TOKEN = 'a2a-test-token-0001';

const ctx = (env: NodeJS.ProcessEnv = {}, signal = new AbortController().signal): AdapterContext => ({
  env,
  signal,
  stderr: () => undefined,
  probe: createProbe(),
});
const request = (options: Record<string, unknown>, deadlineMs = 10_000) => AdapterRequestSchema.parse(adapterRequest(PROMPT, options, deadlineMs));

let agent: TestA2aAgent;
let locked: TestA2aAgent;
beforeAll(async () => {
  agent = await startA2aAgent();
  locked = await startA2aAgent({ token: TOKEN, name: 'locked reviewer' });
});
afterAll(async () => {
  await agent.close();
  await locked.close();
});
beforeEach(() => {
  agent.behaviour = 'edit';
  agent.messages.length = 0;
});

describe('a2a adapter against an SDK agent on loopback', () => {
  it('sends the prompt and the request block as the message and reads the reply from the artifact', async () => {
    const r = await dispatch(request({ base_url: agent.url }), ctx());
    expect(r).toEqual({
      ok: true,
      reply: insertNote(DOC, CONTESTED_NOTE),
      stop: 'complete',
      usage: { input_tokens: 100, output_tokens: 50, cost_usd: 0.01, provider_reported: true },
      model: 'remote-model-1',
      agent_version: '0.9',
    });
    const got = readDispatch(agent.messages[0]!);
    expect(got.ok).toBe(true);
    if (!got.ok) return;
    expect(got.prompt).toBe(PROMPT);
    expect(got.dispatch).toMatchObject({
      id: '01JTESTDISPATCH0000000000',
      protocol_version: 1,
      issued_by: 'bounce',
      role: 'reviewer',
      plan_ancestry: { run_id: 'doc-20261129-120000-ABCDEF', pass: 1, total_passes: 2 },
      effort_budget: { max_subagents: 0 },
      expected_output: { final: false, repair_error: null },
    });
  });

  it('takes a direct message as the reply, and the card version as the agent version', async () => {
    agent.behaviour = 'message';
    const r = await dispatch(request({ base_url: agent.url }), ctx());
    expect(r).toMatchObject({ ok: true, reply: insertNote(DOC, CONTESTED_NOTE), model: null, agent_version: '0.9' });
    expect(r.ok && r.usage.provider_reported).toBe(false);
  });

  it('reports a failed task as a provider error (retried by the runner) and a task without an artifact likewise', async () => {
    agent.behaviour = 'fail';
    expect(await dispatch(request({ base_url: agent.url }), ctx())).toEqual({
      ok: false,
      error: { type: 'provider', message: `${agent.url} failed the task: the model is down` },
    });
    agent.behaviour = 'no-artifact';
    const r = await dispatch(request({ base_url: agent.url }), ctx());
    expect(r.ok === false && r.error).toMatchObject({ type: 'provider', message: expect.stringContaining('no artifact') });
  });

  it('times out at the deadline with a timeout error and cancels the remote task', async () => {
    agent.behaviour = 'stall';
    const r = await dispatch(request({ base_url: agent.url }, 400), ctx());
    expect(r.ok === false && r.error.type).toBe('timeout');
    expect(r.ok === false && r.error.message).toContain('before the deadline');
    expect(agent.cancelled).toHaveLength(1);
  });

  it('sends the token only when set, and a missing or wrong one is an auth error', async () => {
    const ok = await dispatch(request({ base_url: locked.url }), ctx({ BOUNCE_A2A_TOKEN: TOKEN }));
    expect(ok.ok).toBe(true);
    const none = await dispatch(request({ base_url: locked.url }), ctx());
    expect(none.ok === false && none.error).toMatchObject({ type: 'auth', status: 401 });
    const wrong = await dispatch(request({ base_url: locked.url, api_key_env: 'OTHER' }), ctx({ OTHER: 'not-the-token' }));
    expect(wrong.ok === false && wrong.error).toMatchObject({ type: 'auth', status: 401 });
    expect(JSON.stringify(wrong)).not.toContain('not-the-token');
  });

  it('a closed port is a network error', async () => {
    const r = await dispatch(request({ base_url: 'http://127.0.0.1:9' }), ctx());
    expect(r.ok === false && r.error.type).toBe('network');
  });
});

describe('a2a endpoint policy and card', () => {
  it('refuses a non-loopback URL without a token and plain http off loopback, naming the fix', async () => {
    const c = await check({ base_url: 'https://agents.example.com/reviewer' }, { env: {}, probe: createProbe() });
    expect(c.ok).toBe(false);
    expect(c.problems).toEqual([
      {
        kind: 'credentials',
        message: 'BOUNCE_A2A_TOKEN is not set (https://agents.example.com/reviewer is not a loopback endpoint)',
        fix: 'set BOUNCE_A2A_TOKEN, or name the variable to read with api_key_env in an agents: entry of bounce.config.yaml',
      },
    ]);
    const plain = await check({ base_url: 'http://agents.example.com' }, { env: { BOUNCE_A2A_TOKEN: TOKEN }, probe: createProbe() });
    expect(plain.problems.map((p) => p.message)).toEqual(['base_url http://agents.example.com is plain http to a non-loopback host']);
    const d = await dispatch(request({ base_url: 'https://agents.example.com' }), ctx());
    expect(d.ok === false && d.error.type).toBe('config');
    expect((await check({}, { env: {}, probe: createProbe() })).problems[0]?.message).toBe('no URL for the a2a adapter');
  });

  it('reads the card: name, version, interface, streaming; a card asking for a token without one set is a credentials problem', async () => {
    const open = await reach({ base_url: agent.url }, { env: {}, probe: createProbe() });
    expect(open).toMatchObject({
      ok: true,
      problems: [],
      resolved: { card_name: 'test reviewer', card_version: '0.9', interface: `JSONRPC ${agent.url}`, streaming: true },
    });
    const shut = await reach({ base_url: locked.url }, { env: {}, probe: createProbe() });
    expect(shut.problems).toEqual([
      expect.objectContaining({ kind: 'credentials', message: 'the agent card of locked reviewer asks for credentials and BOUNCE_A2A_TOKEN is not set' }),
    ]);
    expect((await reach({ base_url: locked.url }, { env: { BOUNCE_A2A_TOKEN: TOKEN }, probe: createProbe() })).ok).toBe(true);
  });

  it('a URL with no agent card is unreachable, naming where the card was looked for', async () => {
    const r = await reach({ base_url: `${agent.url}/nothing` }, { env: {}, probe: createProbe() });
    expect(r.problems).toEqual([
      expect.objectContaining({ kind: 'unreachable', message: `no agent card at ${agent.url}/nothing/.well-known/agent-card.json (HTTP 404)` }),
    ]);
  });
});

describe('an agent still on v0.3 of the protocol', () => {
  let old: TestA2aAgent;
  beforeAll(async () => {
    old = await startA2aAgent({ protocol: '0.3', name: 'old reviewer' });
  });
  afterAll(() => old.close());

  it('is read from its v0.3 card and called in v0.3: the same dispatch and reply as a v1.0 agent', async () => {
    const card = await reach({ base_url: old.url }, { env: {}, probe: createProbe() });
    expect(card).toMatchObject({ ok: true, resolved: { card_name: 'old reviewer', card_version: '0.9', interface: `JSONRPC ${old.url}`, protocol: '0.3.0' } });
    const r = await dispatch(request({ base_url: old.url }), ctx());
    expect(r).toMatchObject({ ok: true, reply: insertNote(DOC, CONTESTED_NOTE), model: 'remote-model-1' });
    const got = readDispatch(old.messages[0]!);
    expect(got.ok && got.prompt).toBe(PROMPT);
  });
});
