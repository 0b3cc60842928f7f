import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  linkSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import { usageError } from '../errors.js';
import { siblingName, stageFile, writeFileAtomic } from '../atomic.js';
import { sha256 } from '../store/hash.js';
import type { OutputTarget } from './plan.js';

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

const STORAGE_CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EIO: 'an input/output error',
};

/** A file-system error code bounce cannot work around (disk full, read-only) in words, else null. */
export function storageCause(code: string): string | null {
  return Object.hasOwn(STORAGE_CAUSES, code) ? `${STORAGE_CAUSES[code]} (${code})` : null;
}

const outputCause = (code: string): string => storageCause(code) ?? `no file can be made there (${code})`;

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return existsSync(a) && realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * Writes the converged document to its target. A regular file is replaced atomically, keeping
 * an existing file's mode (a new one gets the umask's); through a symlink, its target is
 * written. A device, FIFO or socket (`/dev/stdout`, `/dev/null`) is written to, never replaced.
 * In place is refused when the input changed since the run began (someone else edited it:
 * their work wins), unless it already holds this very document (a crash came after that write).
 */
export function writeOutput(target: OutputTarget, text: string, inputSha: string, hooks: WriteOptions = {}): { path: string | null; sha256: string } {
  const sha = sha256(text);
  switch (target.kind) {
    case 'run':
      return { path: null, sha256: sha };
    case 'stdout':
      // The command prints it: the engine never writes to the terminal.
      return { path: null, sha256: sha };
    case 'file': {
      const real = existsSync(target.path) ? realpathSync(target.path) : target.path;
      const st = existsSync(real) ? statSync(real) : null;
      if (st && !st.isFile()) writeFileSync(real, text);
      else writeFileAtomic(real, text, st ? st.mode & 0o7777 : undefined);
      return { path: target.path, sha256: sha };
    }
    case 'in-place':
      replaceInput(target.path, text, inputSha, hooks);
      return { path: target.path, sha256: sha };
  }
}

/** For tests: a moment inside the in-place write where another writer may strike. */
export interface RaceHooks {
  beforeRename?: () => void;
}

export interface WriteOptions extends RaceHooks {
  /** Where the converged document is kept whatever happens here (the run's final.<ext>), for a refusal to name. */
  keptAt?: string;
}

function changedError(path: string, keptAt: string | undefined): Error {
  return usageError(
    `${path} changed since the run began, so it was not overwritten`,
    `the converged document is ${keptAt ?? 'in the run folder as final.<ext>'}; merge it by hand`,
    'input',
  );
}

const shaOf = (path: string): string | null => (existsSync(path) ? sha256(readFileSync(path)) : null);

/**
 * Replaces the input with the converged document unless someone edited it meanwhile. The
 * input's inode is held by a hard link while the new file is renamed over it, and checked
 * again after: an edit that lands in that window is put back, not lost.
 */
function replaceInput(path: string, text: string, inputSha: string, hooks: WriteOptions): void {
  const now = shaOf(path);
  if (now === sha256(text)) return;
  if (now !== inputSha) throw changedError(path, hooks.keptAt);
  // Write through a symlink to its target and keep the file's permissions.
  const real = realpathSync(path);
  const staged = stageFile(real, text, statSync(real).mode & 0o7777);
  const held = siblingName(real, 'orig');
  try {
    linkSync(real, held);
  } catch (err) {
    staged.abort();
    throw err;
  }
  try {
    if (shaOf(held) !== inputSha || statSync(real).ino !== statSync(held).ino) {
      staged.abort();
      throw changedError(path, hooks.keptAt);
    }
    hooks.beforeRename?.();
    staged.commit();
    // An edit written into the old file just before the rename: it wins, the document stays in final.*.
    if (shaOf(held) !== inputSha) {
      renameSync(held, real);
      throw changedError(path, hooks.keptAt);
    }
  } finally {
    rmSync(held, { force: true });
  }
}
