import { describe, expect, it } from 'vitest';
import { pairOf, runEvidence } from '../../src/defects/run-score.js';
import type { AgentRecord, RunManifest } from '../../src/store/manifest.js';

const agent = (extra: Partial<AgentRecord> = {}): AgentRecord => ({
  spec: 'claude',
  adapter: 'claude',
  provider: 'anthropic',
  model: 'claude-sonnet-4',
  version: '2.0.0',
  max_output_tokens: 32000,
  timeout_s: 600,
  evidence: 'live',
  usage_provider_reported: true,
  options: {},
  resolved: {},
  chosen_by: 'flag',
  ...extra,
});
const manifest = (reviewer: AgentRecord, composer: AgentRecord, passes = 2): RunManifest =>
  ({ agents: { reviewer, composer }, passes: { requested: passes, run: passes, all_passes: false } }) as unknown as RunManifest;

describe('the evidence of a run', () => {
  it('is live only with a concrete provider and model, a positive output-token limit and provider-reported usage', () => {
    expect(runEvidence(manifest(agent(), agent({ spec: 'codex' })))).toEqual({ evidence: 'live', why: null });
    expect(runEvidence(manifest(agent({ model: null }), agent()))).toEqual({ evidence: 'unverified', why: 'claude: no concrete provider and model recorded' });
    expect(runEvidence(manifest(agent(), agent({ max_output_tokens: null })))).toMatchObject({
      evidence: 'unverified',
      why: 'claude: no positive output-token limit',
    });
    expect(runEvidence(manifest(agent({ usage_provider_reported: false }), agent()))).toMatchObject({
      evidence: 'unverified',
      why: expect.stringMatching(/not reported by the provider/),
    });
    expect(runEvidence(manifest(agent({ usage_provider_reported: null }), agent()))).toMatchObject({ evidence: 'unverified' });
  });

  it('is mock or cmd when such an agent answered, and counts the composer only when it ran', () => {
    expect(runEvidence(manifest(agent(), agent({ evidence: 'mock' })))).toMatchObject({ evidence: 'mock' });
    expect(runEvidence(manifest(agent({ evidence: 'external' }), agent()))).toMatchObject({ evidence: 'cmd' });
    expect(runEvidence(manifest(agent(), agent({ evidence: 'mock' }), 1))).toMatchObject({ evidence: 'live' });
    expect(pairOf(manifest(agent(), agent({ spec: 'codex' })))).toBe('claude/codex');
  });
});
