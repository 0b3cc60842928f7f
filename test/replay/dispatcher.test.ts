/** The replay dispatcher: answers by pass, attempt and prompt, with the reply's nonces those of the prompt sent. */
import { describe, expect, it } from 'vitest';
import type { AdapterRequest } from '../../src/contract/contract.js';
import { replayDispatcher, type Drift } from '../../src/replay/dispatcher.js';
import { callKey, normalisedPrompt, type RecordedCall } from '../../src/replay/recorded.js';
import type { ResolvedAgent } from '../../src/adapters/registry.js';

const framed = (nonce: string, body: string): string => `Revise it.\n<<<BOUNCE-DOCUMENT-${nonce}>>>\n${body}\n<<<END-BOUNCE-DOCUMENT-${nonce}>>>\n`;
const OLD = 'aaaaaaaaaaaa';
const NEW = 'bbbbbbbbbbbb';

function call(prompt: string, reply: string): RecordedCall {
  const { sha256, nonces } = normalisedPrompt(prompt);
  return {
    id: '01JB2Q6Z8X0000000000000000',
    run: 'doc-20261201-120000-ABCDEF',
    pass: 1,
    kind: 'pass',
    index: 0,
    prompt,
    promptSha256: sha256,
    nonces,
    answer: { ok: true, response: { ok: true, reply, stop: 'complete', model: 'm', agent_version: null } },
  };
}

const request = (prompt: string, attempt: AdapterRequest['attempt'] = { kind: 'pass', index: 0 }): AdapterRequest =>
  ({
    contract_version: 1,
    dispatch_id: 'x',
    run_id: 'r',
    pass: 1,
    total_passes: 2,
    role: 'reviewer',
    final: false,
    prompt,
    options: {},
    deadline: '',
    attempt,
  }) as AdapterRequest;
const agent = {} as ResolvedAgent;
const opts = { timeoutMs: 1000, maxOutputBytes: 1000 };

describe('replayDispatcher', () => {
  it('answers a prompt that differs only in its nonces, the nonces in the reply replaced by the new prompt’s', async () => {
    const recorded = call(framed(OLD, '# Doc'), `# Doc\nquoted <<<BOUNCE-DOCUMENT-${OLD}>>> here\n`);
    const drifts: Drift[] = [];
    const d = replayDispatcher(new Map([[callKey(1, 'pass', 0), recorded]]), recorded.run, { acceptDrift: false, onDrift: (x) => drifts.push(x) });
    const r = await d(agent, request(framed(NEW, '# Doc')), opts);
    expect(drifts).toEqual([]);
    expect(r.ok && r.response.reply).toBe(`# Doc\nquoted <<<BOUNCE-DOCUMENT-${NEW}>>> here\n`);
    expect(r.ok && r.response.usage).toMatchObject({ input_tokens: 0, output_tokens: 0, cost_usd: 0 });
    expect(r.replay).toEqual({ of: recorded.id, run: recorded.run });
  });

  it('stops at a changed prompt or an attempt never recorded, and with acceptDrift answers the changed one marked drift', async () => {
    const recorded = call(framed(OLD, '# Doc'), '# Doc\n');
    const calls = new Map([[callKey(1, 'pass', 0), recorded]]);
    const drifts: Drift[] = [];
    const strict = replayDispatcher(calls, recorded.run, { acceptDrift: false, onDrift: (x) => drifts.push(x) });
    const changed = await strict(agent, request(framed(NEW, '# Other')), opts);
    expect(!changed.ok && changed.error).toEqual({
      type: 'drift',
      message: `the prompt of pass 1 (attempt: pass 0) differs from the one recorded in run ${recorded.run}`,
    });
    const unknown = await strict(agent, request(framed(NEW, '# Doc'), { kind: 'repair', index: 1 }), opts);
    expect(!unknown.ok && unknown.error.message).toBe(
      `pass 1 (attempt: repair 1) was not dispatched in run ${recorded.run}: the replay took another path than the recording`,
    );
    expect(drifts.map((x) => [x.kind, x.index, x.recorded?.id ?? null, x.accepted])).toEqual([
      ['pass', 0, recorded.id, false],
      ['repair', 1, null, false],
    ]);
    const lenient = replayDispatcher(calls, recorded.run, { acceptDrift: true, onDrift: () => {} });
    const taken = await lenient(agent, request(framed(NEW, '# Other')), opts);
    expect(taken.ok && taken.response.reply).toBe('# Doc\n');
    expect(taken.replay).toEqual({ of: recorded.id, run: recorded.run, drift: true });
  });

  it('gives a recorded error back as it was, so the engine retries or fails as it did', async () => {
    const recorded: RecordedCall = { ...call(framed(OLD, '# Doc'), ''), answer: { ok: false, error: { type: 'network', message: 'reset' } } };
    const d = replayDispatcher(new Map([[callKey(1, 'pass', 0), recorded]]), recorded.run, { acceptDrift: false, onDrift: () => {} });
    const r = await d(agent, request(framed(NEW, '# Doc')), opts);
    expect(!r.ok && r.error).toEqual({ type: 'network', message: 'reset' });
    expect(r.replay).toEqual({ of: recorded.id, run: recorded.run });
  });
});
