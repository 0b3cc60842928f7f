import { describe, expect, it } from 'vitest';
import { attestationPath, type Predicate, policyBreaks, predicateDiff } from '../../src/attest/attestation.js';

const agent = (family: string | null) => ({ spec: 'x', adapter: 'x', model: null, family });
const predicate = (reviewer: string | null, composer: string | null, dismissedContested = 0): Predicate => ({
  run_id: 'r',
  tool: { name: 'bounce', version: '0' },
  original_sha256: '0'.repeat(64),
  records: { count: 2, sha256: '1'.repeat(64) },
  agents: { reviewer: agent(reviewer), composer: agent(composer) },
  ledger: { acted: 1, dismissed: dismissedContested, left: 0, dismissed_contested: dismissedContested },
  judge: null,
  cost: { usd: null, source: null },
});
const ALL = { require_cross_family: true, forbid_dismissed_contested: true };

describe('policyBreaks', () => {
  it('passes a reviewer and a composer of different known families with no dismissed [CONTESTED] note', () => {
    expect(policyBreaks(predicate('anthropic', 'openai'), ALL)).toEqual([]);
  });

  it('names one family, an unknown family, and the dismissed [CONTESTED] notes', () => {
    expect(policyBreaks(predicate('openai', 'openai'), ALL)).toEqual([
      'verify.require_cross_family: the reviewer and the composer are both of the openai model family',
    ]);
    expect(policyBreaks(predicate('openai', null, 2), ALL)).toEqual([
      'verify.require_cross_family: the model family of the composer is unknown',
      'verify.forbid_dismissed_contested: the run dismissed 2 [CONTESTED] notes',
    ]);
  });

  it('asks nothing with both off (the default)', () => {
    expect(policyBreaks(predicate(null, null, 3), { require_cross_family: false, forbid_dismissed_contested: false })).toEqual([]);
  });
});

describe('predicateDiff and attestationPath', () => {
  it('names the top-level fields that differ', () => {
    const a = predicate('openai', 'openai');
    expect(predicateDiff(a, { ...a, cost: { usd: 1, source: 'table' }, records: { ...a.records, count: 3 } })).toEqual(['records', 'cost']);
    expect(predicateDiff(a, predicate('openai', 'openai'))).toEqual([]);
  });

  it('puts the attestation beside the document, or in a folder under the same name', () => {
    expect(attestationPath('/repo/docs/a.md')).toBe('/repo/docs/a.md.bounce.json');
    expect(attestationPath('/repo/docs/a.md', '/att')).toBe('/att/a.md.bounce.json');
  });
});
