/** Runs for the `bounce decide` tests, made with the built CLI and the scripted agents of test/fixtures/decide/. */
import { join } from 'node:path';
import { expect } from 'vitest';
import { ROOT, runCli, tempDir } from './cli.js';

export const DECIDE_FIXTURES = join(ROOT, 'test/fixtures/decide');

/** A run whose final composer pass left the reviewer's note: not-converged, one note open; in a new folder, `runs/`. */
export async function stuckRun(prefix = 'bounce-decide-'): Promise<{ dir: string; runDir: string }> {
  const dir = tempDir(prefix);
  const FIX = DECIDE_FIXTURES;
  const args = ['refine', join(FIX, 'retry.md'), '--reviewer', `mock:${FIX}/reviewer.yaml`, '--composer', `mock:${FIX}/composer-stuck.yaml`];
  const made = await runCli([...args, '--runs-dir', 'runs', '--json'], { cwd: dir });
  expect(made.code, made.stderr).toBe(1);
  return { dir, runDir: join(dir, 'runs', JSON.parse(made.stdout).run_id) };
}
