import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/engine/clock.js';

describe('systemClock', () => {
  it('now is the wall clock', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('a sleep resolves true once its time has passed, false at once when the signal aborts', async () => {
    const started = Date.now();
    expect(await systemClock.sleep(20, new AbortController().signal)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    const controller = new AbortController();
    const long = systemClock.sleep(60_000, controller.signal);
    controller.abort();
    expect(await long).toBe(false);
    expect(await systemClock.sleep(60_000, AbortSignal.abort())).toBe(false);
  });
});
