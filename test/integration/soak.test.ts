import { describe, expect, it } from 'vitest';
import { INVARIANTS, soak } from '../../bench/soak.mjs';

/**
 * A few runs of the soak (bench/soak.mjs, `npm run soak` makes 1,000): refines with real
 * `cmd:` agent processes, random signals at random moments, resumes and audits, and every
 * invariant of docs/faults.md checked after each command. The seed is fixed, the moments
 * the signals land are not: whatever they hit, no invariant may break.
 */
describe('the soak', () => {
  it('breaks no invariant over a few signalled runs', async () => {
    // Agents' processes get 10 s here (the soak allows 2): a bounded wait on a loaded machine, not a measure.
    const total = await soak({ runs: 6, seed: 3, jobs: 2, agentMs: 150, orphanMs: 10_000 });
    expect(total.violations).toEqual([]);
    expect(total.runs).toBe(6);
    // It did check: every command's exit, orphans and input, and the finished runs' audits.
    for (const k of ['exit', 'orphans', 'input', 'audit', 'resume'] as const) expect(total.checks[k], k).toBeGreaterThan(0);
    expect(Object.keys(total.checks)).toEqual(INVARIANTS);
  }, 120_000);

  it('sees an orphan when there is one: a helper that left its agent process group (setsid) and dropped the agent tag is counted', async () => {
    const total = await soak({ runs: 2, seed: 11, jobs: 2, agentMs: 50, orphanMs: 1000, selfCheck: true });
    expect(total.violations.filter(([what]) => what === 'orphans').length).toBe(2);
  }, 120_000);
});
