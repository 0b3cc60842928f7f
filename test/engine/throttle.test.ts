import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AdapterRequest } from '../../src/contract/contract.js';
import type { Clock } from '../../src/engine/clock.js';
import type { Dispatcher } from '../../src/engine/deps.js';
import { runDocument } from '../../src/engine/run-document.js';
import { AgentThrottle } from '../../src/engine/throttle.js';
import { DOC, engineDeps, fakeDispatcher, NOTED, testPlan } from '../support/engine.js';

/** Virtual time: a sleep moves the clock on by its length, after letting other work run first. */
function virtualClock(): Clock & { slept: number[] } {
  let t = 1_000_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    sleep: async (ms, signal) => {
      slept.push(ms);
      await new Promise((r) => setTimeout(r, 0));
      t += ms;
      return !signal.aborted;
    },
  };
}

describe('AgentThrottle', () => {
  it('holds calls to one agent until the longest pause ends, and no other agent', async () => {
    const clock = virtualClock();
    const throttle = new AgentThrottle(clock);
    throttle.pause('claude', 3000);
    throttle.pause('claude', 1000);
    expect(throttle.remaining('claude')).toBe(3000);
    expect(throttle.remaining('codex')).toBe(0);
    expect(await throttle.wait('claude', new AbortController().signal)).toBe(true);
    expect(clock.slept).toEqual([3000]);
    expect(throttle.remaining('claude')).toBe(0);
  });

  it('stops waiting when the signal aborts', async () => {
    const throttle = new AgentThrottle(virtualClock());
    throttle.pause('claude', 5000);
    const c = new AbortController();
    c.abort();
    expect(await throttle.wait('claude', c.signal)).toBe(false);
  });
});

describe('a rate limit shared by the runs of a batch', () => {
  /** Run A meets a 429 on its first call; run B starts while A waits it out. */
  async function twoRuns(shared: boolean): Promise<{ bWaits: number[]; bEvents: string[] }> {
    const runsDir = mkdtempSync(join(tmpdir(), 'bounce-throttle-'));
    const clock = virtualClock();
    const throttle = shared ? new AgentThrottle(clock) : undefined;
    let saw429!: () => void;
    const limited = new Promise<void>((r) => (saw429 = r));
    const a = fakeDispatcher([{ error: { type: 'rate_limit', status: 429, retry_after_ms: 5000 } }, { reply: NOTED }, { reply: DOC }]);
    const aDispatch: Dispatcher = async (agent, req: AdapterRequest, opts) => {
      const result = await a(agent, req, opts);
      if (!result.ok) saw429();
      return result;
    };
    const bDeps = engineDeps(fakeDispatcher([{ reply: NOTED }, { reply: DOC }]), { clock, throttle });
    const [planA, planB] = [await testPlan(runsDir, { name: 'a' }), await testPlan(runsDir, { name: 'b' })];
    const runA = runDocument(planA, engineDeps(aDispatch, { clock, throttle, retryBaseMs: 1 }));
    await limited;
    // One macrotask on: A has recorded its 429 (and paused the agent) but not yet slept it out.
    await new Promise((r) => setTimeout(r, 0));
    const runB = runDocument(planB, bDeps);
    const [ra, rb] = await Promise.all([runA, runB]);
    expect([ra.status, rb.status]).toEqual(['converged', 'converged']);
    const retries = bDeps.seen.flatMap((e) => (e.type === 'retry-scheduled' ? [e] : []));
    return { bWaits: retries.map((e) => e.waitMs), bEvents: retries.map((e) => e.why) };
  }

  it('a run that did not see the 429 waits it out before calling the same agent', async () => {
    const { bWaits, bEvents } = await twoRuns(true);
    expect(bEvents).toEqual(['shared']);
    expect(bWaits).toHaveLength(1);
    expect(bWaits[0]).toBeGreaterThan(4000);
    expect(bWaits[0]).toBeLessThanOrEqual(5000);
  });

  it('without a shared throttle (a run of its own) it does not', async () => {
    const { bWaits, bEvents } = await twoRuns(false);
    expect(bEvents).toEqual([]);
    expect(bWaits).toEqual([]);
  });
});
