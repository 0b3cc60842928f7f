/** Reading the run folders a test made: one copy of each helper the integration tests share. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The run ids under `<dir>/runs` (hidden staging folders left out). */
export function runsIn(dir: string): string[] {
  const root = join(dir, 'runs');
  return existsSync(root) ? readdirSync(root).filter((n) => !n.startsWith('.')) : [];
}

/** run.json of a run folder, parsed (no schema check: tests look at what was written). */
// biome-ignore lint/suspicious/noExplicitAny: tests read run.json loosely, field by field.
export function manifestOf(runDir: string): any {
  return JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
}

/** True once the first run under `<dir>/runs` lists pass 2's call as pending: the call is out. */
export function pass2PendingIn(dir: string): boolean {
  const run = runsIn(dir)[0];
  if (!run) return false;
  try {
    return manifestOf(join(dir, 'runs', run)).pass_records[1]?.dispatches[0]?.status === 'pending';
  } catch {
    // run.json not written yet, or being replaced.
    return false;
  }
}
