import { describe, expect, it } from 'vitest';
import { resolveAgent } from '../../src/adapters/registry.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import { type AdapterRequest, CONTRACT_VERSION } from '../../src/contract/contract.js';
import { personAnswers } from '../../src/decide/person-dispatcher.js';
import type { Dispatcher } from '../../src/engine/deps.js';

const request = (pass: number): AdapterRequest => ({
  contract_version: CONTRACT_VERSION,
  dispatch_id: 'd',
  run_id: 'r',
  pass,
  total_passes: 3,
  role: 'reviewer',
  final: false,
  prompt: 'p',
  options: {},
  deadline: new Date().toISOString(),
});
const opts = { timeoutMs: 1000, maxOutputBytes: 1_000_000 };

describe("a person's answers as dispatches", () => {
  const person = resolveAgent('human:ana', DEFAULT_CONFIG, '/w', null);
  const other = resolveAgent('mock', DEFAULT_CONFIG, '/w', null);
  const calls: string[] = [];
  const inner: Dispatcher = async (agent) => {
    calls.push(agent.spec);
    return { ok: false, error: { type: 'crash', message: 'inner' }, stdout: '', stderr: '', exitCode: null, durationMs: 0 };
  };
  const dispatch = personAnswers(inner, 'human:ana', (req) => (req.pass === 2 ? 'the decided document' : null));

  it("answers the person's dispatches with what was decided, free, once the record is down", async () => {
    const r = await dispatch(person, request(2), { ...opts, ready: Promise.resolve() });
    expect(r).toMatchObject({ ok: true, response: { reply: 'the decided document', agent_version: 'human-1', usage: { cost_usd: 0 } } });
    expect(await dispatch(person, request(2), { ...opts, ready: Promise.reject(new Error('called off')) })).toMatchObject({
      ok: false,
      error: { type: 'interrupted' },
    });
  });

  it('passes every other dispatch on', async () => {
    await dispatch(other, request(2), opts);
    await dispatch(person, request(3), opts);
    expect(calls).toEqual(['mock', 'human:ana']);
  });
});
