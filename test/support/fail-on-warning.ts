import { afterAll, afterEach, expect } from 'vitest';

/**
 * A Node warning (deprecation, experimental feature, MaxListeners, an unhandled rejection
 * turned warning...) fails the test during which it was emitted. Loaded by vitest.config.ts.
 */
const shared = globalThis as { bounceWarnings?: string[] };
// A worker runs several files (isolate: false) and this file once per file: listen once.
if (!shared.bounceWarnings) {
  const list: string[] = [];
  process.on('warning', (w) => list.push(`${w.name}: ${w.message}`));
  shared.bounceWarnings = list;
}
const emitted = shared.bounceWarnings;

const noneSince = async (when: string): Promise<void> => {
  // Node emits 'warning' on a later tick: let it arrive before looking.
  await new Promise((r) => setImmediate(r));
  const found = emitted.splice(0);
  expect(found, `Node warning emitted ${when}`).toEqual([]);
};

afterEach(() => noneSince('during this test'));
afterAll(() => noneSince('in a hook of this file'));
