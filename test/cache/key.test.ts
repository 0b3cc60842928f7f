import { describe, expect, it } from 'vitest';
import { cacheKey, keyedAgent, NONCE_MARK, nonceSlot, promptNonces, putNoncesBack, setNoncesAside } from '../../src/cache/key.js';
import { testAgent } from '../support/test-agent.js';

/** A prompt framed as the engine frames one: its delimiter lines carry the nonce. */
const framed = (nonce: string, body = 'Review this.'): string =>
  `${body}\n<<<BOUNCE-DOCUMENT-${nonce}\n# Doc\n<<<END-BOUNCE-DOCUMENT-${nonce}>>>\n<<<BOUNCE-NOTES-${nonce}>>>\n`;
const A = 'aaaaaaaaaaaa';
const B = 'bbbbbbbbbbbb';

const agent = testAgent({ spec: 'rev', adapter: 'openai', provider: 'openai', options: { model: 'gpt-x', api_key_env: 'KEY_A' } });

describe('the response cache key', () => {
  it('finds the frame nonces of a prompt once each, in order', () => {
    expect(promptNonces(`${framed(A)}${framed(B)}${framed(A)}`)).toEqual([A, B]);
    expect(promptNonces('no frame here')).toEqual([]);
  });

  it('is the same for the same question asked with other nonces, and differs for another prompt', () => {
    const one = cacheKey(agent, framed(A));
    expect(cacheKey(agent, framed(B)).key).toBe(one.key);
    expect(cacheKey(agent, framed(B)).promptSha256).toBe(one.promptSha256);
    expect(one.nonces).toEqual([A]);
    expect(cacheKey(agent, framed(A, 'Compose this.')).key).not.toBe(one.key);
  });

  it('holds what shapes a reply (adapter, model, settings, a program) and leaves out whose it is', () => {
    const base = cacheKey(agent, framed(A)).key;
    const other = (over: Parameters<typeof testAgent>[0]) => cacheKey(testAgent({ ...agent, ...over }), framed(A)).key;
    // Renamed, another key variable, another deadline: the same question.
    expect(other({ spec: 'renamed', slug: 'renamed' })).toBe(base);
    expect(other({ options: { ...agent.options, api_key_env: 'KEY_B' } })).toBe(base);
    expect(other({ timeoutS: 5 })).toBe(base);
    // Another model, sampling, length, server or adapter: another question.
    expect(other({ options: { ...agent.options, model: 'gpt-y' } })).not.toBe(base);
    expect(other({ options: { ...agent.options, temperature: 0.2 } })).not.toBe(base);
    expect(other({ options: { ...agent.options, max_output_tokens: 100 } })).not.toBe(base);
    expect(other({ options: { ...agent.options, base_url: 'http://127.0.0.1:1/v1' } })).not.toBe(base);
    expect(other({ adapter: 'anthropic', provider: 'anthropic' })).not.toBe(base);
    const cmd = testAgent({ adapter: 'cmd', command: 'node', args: ['a.js'] });
    expect(keyedAgent(cmd)).toMatchObject({ program: ['node', 'a.js'] });
    expect(cacheKey(cmd, framed(A)).key).not.toBe(cacheKey(testAgent({ adapter: 'cmd', command: 'node', args: ['b.js'] }), framed(A)).key);
  });

  it('sets nonces aside as slots and puts another prompt’s back in their place', () => {
    const reply = `kept <<<BOUNCE-NOTES-${A}>>> and ${A} again`;
    const aside = setNoncesAside(reply, [A]);
    expect(aside).not.toContain(A);
    expect(aside).toContain(nonceSlot(0));
    expect(putNoncesBack(aside, [B])).toBe(reply.replaceAll(A, B));
    expect(putNoncesBack('plain text', [B])).toBe('plain text');
    // A slot the prompt has no nonce for stays as it is.
    expect(putNoncesBack(nonceSlot(1), [B])).toBe(nonceSlot(1));
    expect(nonceSlot(0).startsWith(NONCE_MARK)).toBe(true);
  });
});
