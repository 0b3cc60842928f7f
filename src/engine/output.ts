/**
 * Writing the converged document to the target the request decided (src/request/output-target.ts):
 * a file atomically, a device as it is, in place only when nobody edited the input meanwhile.
 */
import { existsSync, linkSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { siblingName, stageFile, writeFileAtomic } from '../atomic.js';
import { storageCause, usageError } from '../errors.js';
import { sha256 } from '../store/hash.js';
import type { OutputTarget } from './plan.js';

/** A file-system error code in words, for a refusal to write there. */
export const outputCause = (code: string): string => storageCause(code) ?? `no file can be made there (${code})`;

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
