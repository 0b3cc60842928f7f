import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { agentRecord, evidenceOf, openingOf } from '../../src/engine/opening.js';
import { NOTED, testPlan } from '../support/engine.js';
import { testAgent } from '../support/test-agent.js';

describe('what run.json says of a new run', () => {
  it("a run's evidence is its agents' when they agree, mixed when not; a one-pass run's is the reviewer's alone", async () => {
    const live = testAgent({ adapter: 'claude' });
    const mock = testAgent({ adapter: 'mock' });
    expect(evidenceOf(await testPlan(tmpdir(), { agents: { reviewer: live, composer: live } }))).toBe('live');
    expect(evidenceOf(await testPlan(tmpdir(), { agents: { reviewer: live, composer: mock } }))).toBe('mixed');
    expect(evidenceOf(await testPlan(tmpdir(), { passes: 1, agents: { reviewer: mock, composer: live } }))).toBe('mock');
  });

  it("an agent's record: the model from its options, else the one the check resolved; a cmd agent's command among its options", async () => {
    const plan = await testPlan(tmpdir(), {
      agents: {
        reviewer: testAgent({ adapter: 'openai', spec: 'openai:m1', options: { model: 'm1' } }),
        composer: testAgent({ spec: 'tool', command: '/bin/tool' }),
      },
      resolved: { reviewer: {}, composer: { model: 'seen-model' } },
      timeoutMs: { reviewer: 90_000, composer: 60_000 },
    });
    expect(agentRecord(plan, 'reviewer')).toMatchObject({
      spec: 'openai:m1',
      adapter: 'openai',
      model: 'm1',
      timeout_s: 90,
      evidence: 'live',
      options: { model: 'm1' },
    });
    expect(agentRecord(plan, 'composer')).toMatchObject({ spec: 'tool', model: 'seen-model', evidence: 'external', options: { command: '/bin/tool' } });
  });

  it('the opening counts the input words and notes, names the original by extension, and has run no pass', async () => {
    const plan = await testPlan(tmpdir(), {}, NOTED);
    const opening = openingOf(plan, new Date('2026-03-01T12:00:00Z'));
    expect(opening.run_id).toMatch(/^plan-20260301-120000-[A-Z0-9]{6}$/);
    expect(opening.input).toMatchObject({ display: 'plan.md', notes: 1, words: NOTED.split(/\s+/).filter(Boolean).length, syntax: 'markdown' });
    expect(opening.original).toBe('original.md');
    expect(opening.passes).toEqual({ requested: 2, run: 0, all_passes: false });
    expect(opening.logLine).toBe(`run ${opening.run_id} started: plan.md, 2 passes, reviewer rev, composer com`);
  });
});
