import { describe, expect, it } from 'vitest';
import { mapLimited } from '../src/concurrency.js';

describe('mapLimited', () => {
  it('never has more than `limit` calls pending, and returns results in input order', async () => {
    let pending = 0;
    let most = 0;
    const out = await mapLimited([30, 5, 20, 1, 10, 2], 2, async (ms) => {
      pending++;
      most = Math.max(most, pending);
      await new Promise((r) => setTimeout(r, ms));
      pending--;
      return ms * 10;
    });
    expect(out).toEqual([300, 50, 200, 10, 100, 20]);
    expect(most).toBe(2);
  });

  it('a limit above the number of items runs them all at once; no items, no call', async () => {
    let started = 0;
    let open = (): void => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const run = mapLimited([1, 2, 3], 10, async (n) => {
      started++;
      await gate;
      return n;
    });
    await Promise.resolve();
    expect(started).toBe(3);
    open();
    expect(await run).toEqual([1, 2, 3]);
    expect(await mapLimited([], 4, async () => 1)).toEqual([]);
  });

  it('a failed call rejects the whole map', async () => {
    await expect(mapLimited([1, 2], 1, async (n) => (n === 2 ? Promise.reject(new Error('boom')) : n))).rejects.toThrow('boom');
  });
});
