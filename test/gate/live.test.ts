import { describe, expect, it } from 'vitest';
import { gateFixture, gateKey, gatePrompt, gateProblem, liveGate } from '../../src/gate/live.js';
import { loadTemplates } from '../../src/engine/prompt.js';
import { fakeDispatcher, instantClock } from '../support/engine.js';
import { testAgent } from '../support/test-agent.js';

const fixture = gateFixture();
const CODE = '```sh\nbackup-orders --bucket nightly --keep 7\n```';
const conforming = fixture.replace(
  'Old copies are deleted after a while.\n',
  'Old copies are deleted after a while.\n[CLARIFY] After how long: (A) 7 days, as --keep 7 says, or (B) 30 days?\n',
);

describe('the gate fixture', () => {
  it('holds a code block and one planted ambiguity, and no note', () => {
    expect(fixture).toContain(CODE);
    expect(fixture).toContain('after a while');
    expect(fixture).not.toMatch(/\[(CONTESTED|CLARIFY)\]/);
  });
});

describe('gateProblem: a reply held to the contract', async () => {
  const { delimiters } = gatePrompt(await loadTemplates(), fixture);

  it('passes a whole document with one conforming note and the code block kept', () => {
    expect(gateProblem(conforming, fixture, delimiters)).toBeNull();
  });

  it('passes edit blocks that apply and add a conforming note', () => {
    const blocks = `<<<<<<< SEARCH\nOld copies are deleted after a while.\n=======\nOld copies are deleted after a while.\n[CLARIFY] After how long: (A) 7 days or (B) 30 days?\n>>>>>>> REPLACE\n`;
    expect(gateProblem(blocks, fixture, delimiters)).toBeNull();
  });

  it('fails each broken part of the contract, naming it', () => {
    expect(gateProblem(fixture, fixture, delimiters)).toMatch(/no note was added/);
    expect(gateProblem(fixture.replace('after a while.\n', 'after a while.\n[CONTESTED] This is wrong.\n'), fixture, delimiters)).toMatch(/dissent-only/);
    expect(
      gateProblem(fixture.replace('after a while.\n', 'after a while.\n\n[CLARIFY] After how long: (A) 7 days or (B) 30 days?\n'), fixture, delimiters),
    ).toMatch(/misplaced/);
    expect(gateProblem(conforming.replace('nightly --keep 7', 'nightly --keep 30'), fixture, delimiters)).toMatch(/code block was not kept/);
    expect(gateProblem(`Here is the revised document:\n\n${conforming}`, fixture, delimiters)).toMatch(/stepped out of the document's frame/);
    expect(gateProblem(`${delimiters.open}\n${conforming}${delimiters.close}\n`, fixture, delimiters)).toMatch(/frame/);
    expect(gateProblem('In short: backups.', fixture, delimiters)).toMatch(/not a whole document or edit blocks/);
    expect(gateProblem('<<<<<<< SEARCH\nno such line\n=======\nx\n>>>>>>> REPLACE\n', fixture, delimiters)).toMatch(/did not apply/);
  });
});

describe('liveGate', () => {
  const deps = (answers: Parameters<typeof fakeDispatcher>[0]) => ({
    dispatch: fakeDispatcher(answers),
    signal: new AbortController().signal,
    env: {},
    clock: instantClock(),
    retryBaseMs: 1,
  });

  it('sends the reviewer prompt over the fixture once and reports pass with time, tokens and cost', async () => {
    const d = deps([{ reply: conforming, usage: { input_tokens: 300, output_tokens: 120, cost_usd: 0.002 } }]);
    const r = await liveGate(testAgent({ spec: 'judge-me', adapter: 'mock' }), await loadTemplates(), d);
    expect(r).toMatchObject({ agent: 'judge-me', ok: true, reason: null, tokens: 420, cost_usd: 0.002, cost_source: 'provider', cached: null });
    expect(d.dispatch.requests).toHaveLength(1);
    expect(d.dispatch.requests[0]!.prompt).toContain('Role: reviewer');
    expect(d.dispatch.requests[0]!.prompt).toContain(CODE);
  });

  it('a failing reply is no repair: one call, failed, with the reason', async () => {
    const d = deps([{ reply: fixture }]);
    const r = await liveGate(testAgent({ adapter: 'mock' }), await loadTemplates(), d);
    expect(r).toMatchObject({ ok: false });
    expect(r.reason).toMatch(/no note was added/);
    expect(d.dispatch.requests).toHaveLength(1);
  });

  it('an agent error is a failure with its type', async () => {
    const r = await liveGate(testAgent({ adapter: 'mock' }), await loadTemplates(), deps([{ error: { type: 'auth' } }]));
    expect(r).toMatchObject({ ok: false });
    expect(r.reason).toMatch(/^auth: /);
  });

  it('the cache key changes with the agent options and the templates', async () => {
    const t = await loadTemplates();
    const a = testAgent({ adapter: 'mock' });
    expect(gateKey(a, t, fixture)).toBe(gateKey(testAgent({ adapter: 'mock' }), t, fixture));
    expect(gateKey(testAgent({ adapter: 'mock', options: { model: 'x' } }), t, fixture)).not.toBe(gateKey(a, t, fixture));
    expect(gateKey(a, { ...t, reviewer: `${t.reviewer}\nBe brief.` }, fixture)).not.toBe(gateKey(a, t, fixture));
  });
});
