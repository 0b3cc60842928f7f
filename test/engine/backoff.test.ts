import { describe, expect, it } from 'vitest';
import { backoffMs, sleep } from '../../src/engine/backoff.js';

describe('backoffMs', () => {
  it('doubles from the base: attempt 1, 2, 3', () => {
    expect([1, 2, 3, 4].map((a) => backoffMs(a, undefined, 1000))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('honours a longer retry-after', () => {
    expect(backoffMs(1, 5000, 1000)).toBe(5000);
    expect(backoffMs(2, 2500, 1000)).toBe(2500);
  });

  it('a shorter retry-after does not shorten the exponential delay', () => {
    expect(backoffMs(3, 100, 1000)).toBe(4000);
    expect(backoffMs(1, 0, 1000)).toBe(1000);
  });

  it('is capped (default 60 s), retry-after included', () => {
    expect(backoffMs(20, undefined, 1000)).toBe(60_000);
    expect(backoffMs(1, 120_000, 1000)).toBe(60_000);
    expect(backoffMs(5, undefined, 1000, 10_000)).toBe(10_000);
    expect(backoffMs(1, 30_000, 1000, 10_000)).toBe(10_000);
  });
});

describe('sleep', () => {
  it('resolves true when the time has passed', async () => {
    expect(await sleep(5)).toBe(true);
    expect(await sleep(5, new AbortController().signal)).toBe(true);
  });

  it('resolves false at once when the signal is already aborted', async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    // A day-long sleep that resolved on time would hang the test: it must end early.
    expect(await sleep(86_400_000, ctrl.signal)).toBe(false);
  });

  it('resolves false when the signal aborts during the sleep', async () => {
    const ctrl = new AbortController();
    const p = sleep(86_400_000, ctrl.signal);
    ctrl.abort();
    expect(await p).toBe(false);
  });
});
