/**
 * The fast project's guard (vitest.config.ts): a fast test starts no process. Every way
 * `node:child_process` starts one throws here, and a test during which one was tried fails
 * even if the code under test caught the error. A test file that needs a process belongs
 * to the slow project: add it to SLOW in vitest.config.ts.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { afterEach, expect } from 'vitest';

const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
const tried: string[] = [];

for (const name of STARTERS) {
  childProcess[name] = (command: unknown): never => {
    const what = `child_process.${name}(${JSON.stringify(String(command))})`;
    tried.push(what);
    throw new Error(`${what} in a fast test: a test file that starts a process belongs to SLOW in vitest.config.ts`);
  };
}
// The ES module view of node:child_process (what `import { spawn }` reads) follows the change.
syncBuiltinESMExports();

/** The starts tried since the last test ended, forgotten (for the guard's own test). */
export const takeTried = (): string[] => tried.splice(0);

afterEach(() => {
  expect(takeTried(), 'processes a fast test tried to start (move the file to SLOW in vitest.config.ts)').toEqual([]);
});
