/**
 * Where a run's converged document goes, decided from --out / --in-place / --json before the
 * first dispatch: the combinations that would lose data are refused, and the target is
 * checked for writability while nothing has been spent yet. The engine only writes to the
 * target it is given (src/engine/output.ts).
 */
import { accessSync, closeSync, constants, existsSync, openSync, realpathSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { siblingName } from '../atomic.js';
import { outputCause } from '../engine/output.js';
import type { OutputTarget } from '../engine/plan.js';
import { usageError } from '../errors.js';

export interface OutputFlags {
  out?: string;
  inPlace?: boolean;
  json?: boolean;
}

/** Decides where a converged document goes and refuses combinations that would lose data. */
export function outputTarget(flags: OutputFlags, inputPath: string | null, cwd: string): OutputTarget {
  if (flags.inPlace) {
    if (!inputPath) throw usageError('--in-place needs a file, not stdin', 'name the document file, or use --out FILE', 'usage');
    if (flags.out !== undefined) throw usageError('--in-place and --out both name an output', 'choose one of them', 'usage');
    const target: OutputTarget = { kind: 'in-place', path: inputPath };
    assertOutputWritable(target);
    return target;
  }
  if (flags.out === undefined) return { kind: 'run' };
  if (flags.out === '-') {
    if (flags.json) throw usageError('--out - and --json both want stdout', 'use --out FILE with --json, or drop --json', 'usage');
    return { kind: 'stdout' };
  }
  const path = resolve(cwd, flags.out);
  if (inputPath && sameFile(path, inputPath))
    throw usageError(`--out ${flags.out} is the input document`, 'use --in-place to overwrite the input, or pick another file', 'usage');
  if (existsSync(path) && statSync(path).isDirectory())
    throw usageError(`--out ${flags.out} is a folder`, 'name a file to write, e.g. --out refined.md', 'usage');
  if (!existsSync(dirname(path)) || !statSync(dirname(path)).isDirectory())
    throw usageError(`the folder of --out ${flags.out} does not exist`, 'create it first or pick another path', 'usage');
  const target: OutputTarget = { kind: 'file', path };
  assertOutputWritable(target);
  return target;
}

/** Why a new file cannot be made in `dir` (its error code), or null when it can. */
export type FolderProbe = (dir: string) => string | null;

/**
 * Makes and removes a hidden file in `dir`: the one test that holds for root too, which
 * permission bits do not stop (a read-only mount, /sys, /proc still do).
 */
export const probeFolder: FolderProbe = (dir) => {
  const probe = siblingName(resolve(dir, 'output'), 'probe');
  try {
    closeSync(openSync(probe, 'wx', 0o600));
    rmSync(probe, { force: true });
    return null;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
};

/**
 * Refuses (exit 2) an output that could not be written once the run converged, checked before
 * the first dispatch: the folder where --out or --in-place would put its file (a file is
 * replaced by a rename, so its folder must take a new file), or a device's own write access.
 */
export function assertOutputWritable(target: OutputTarget, probe: FolderProbe = probeFolder): void {
  if (target.kind !== 'file' && target.kind !== 'in-place') return;
  const real = existsSync(target.path) ? realpathSync(target.path) : target.path;
  const st = existsSync(real) ? statSync(real) : null;
  let code: string | null;
  if (st && !st.isFile()) {
    try {
      accessSync(real, constants.W_OK);
      code = null;
    } catch (err) {
      code = (err as NodeJS.ErrnoException).code ?? String(err);
    }
  } else code = probe(dirname(real));
  if (code === null) return;
  const what = target.kind === 'file' ? `--out ${target.path}` : `--in-place ${target.path}`;
  throw usageError(
    `${what} cannot be written: ${outputCause(code)} in ${st && !st.isFile() ? real : dirname(real)}`,
    target.kind === 'file' ? 'make that folder writable, or pick another path with --out' : 'make that folder writable, or write elsewhere with --out FILE',
    'usage',
  );
}

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return existsSync(a) && realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
