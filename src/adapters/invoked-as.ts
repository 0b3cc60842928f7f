import { realpathSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { onPath } from '../kit/detect.js';

const real = (path: string): string | null => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/**
 * The command to print in a hint, as the user can type it here: `bounce` when the `bounce`
 * on PATH is this launcher, else `node <launcher>` (relative to `cwd` when under it), as on a
 * fresh clone before `npm link`. `launcher` is the script Node ran (process.argv[1]);
 * without one (bounce run in-process), `bounce`.
 */
export function invokedAs(launcher: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  if (!launcher) return 'bounce';
  const self = real(launcher);
  const found = onPath('bounce', env);
  if (self === null || (found !== null && real(found) === self)) return 'bounce';
  const rel = relative(cwd, launcher);
  const shown = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : launcher;
  return `node ${/\s/.test(shown) ? JSON.stringify(shown) : shown}`;
}
