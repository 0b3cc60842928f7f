import { usageError } from '../errors.js';
import { readManifest, type RunManifest } from './manifest.js';
import { manifestProblem, resolveRunDir } from './resolve-run.js';

/** Reads run.json of `<run>`; an unreadable one is a usage error naming why. */
export function loadRun(run: string, runsDir: string | undefined, cwd: string): { dir: string; manifest: RunManifest } {
  const dir = resolveRunDir(run, runsDir ?? 'runs', cwd);
  try {
    return { dir, manifest: readManifest(dir) };
  } catch (err) {
    throw usageError(`cannot read the run at ${dir}: ${manifestProblem(dir, err)}`, 'run `bounce audit` on it to see what is wrong');
  }
}
