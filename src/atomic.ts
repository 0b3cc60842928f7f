import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A file written beside its target and not yet renamed over it. */
export interface Staged {
  tmp: string;
  /** Renames the staged file over the target: readers see the old content or the new, never a torn one. */
  commit(): void;
  abort(): void;
}

/**
 * A hidden name beside `path` for a file that is about to replace it: `.<name>.<pid>.<8 hex>.<tag>`.
 * The one place temporary names are made (the random part makes them hard to guess, the
 * exclusive open below makes a guessed one harmless).
 */
export function siblingName(path: string, tag: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.${tag}`);
}

/** The name of an atomic write's staged file (stageFile: siblingName with tag `tmp`); group 1 is the writer's pid. */
const STAGED_NAME = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** The pid of the process that staged a file of this name, or null when the name is not a staged file's. */
export function stagedBy(name: string): number | null {
  const m = STAGED_NAME.exec(name);
  return m ? Number(m[1]) : null;
}

/** Created, never opened if it exists, never followed if it is a symlink (O_EXCL and O_NOFOLLOW). */
const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** Names tried before an existing file at every one of them is reported. */
const NAME_TRIES = 4;

/** Opens a new temporary file beside `path`; a file or symlink already at a name is left alone and another name tried. */
function openNew(path: string, mode: number): { tmp: string; fd: number } {
  for (let attempt = 1; ; attempt++) {
    const tmp = siblingName(path, 'tmp');
    try {
      return { tmp, fd: openSync(tmp, NEW_FILE, mode) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= NAME_TRIES) throw err;
    }
  }
}

export interface StageOptions {
  /** Set the file's mode; otherwise it gets the usual 0666 less the umask. */
  mode?: number;
  /**
   * fsync before the rename (default true), so that even a power cut leaves the old content
   * or the new. A process crash needs no fsync: the rename alone is atomic.
   */
  sync?: boolean;
}

/**
 * Writes all of `bytes`: a write may take only part of them (a disk that fills up takes what
 * fits, and only the next write fails), and a file cut short must never be renamed into place.
 */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length; ) {
    const n = writeSync(fd, bytes, done, bytes.length - done);
    if (n <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    done += n;
  }
}

/**
 * Writes `data` to a new hidden file beside `path`. The file is created exclusively and
 * without following symlinks, so whatever is planted at its name (a symlink, a file) is
 * never written through: another name is tried, and after a few an EEXIST error is thrown.
 */
export function stageFile(path: string, data: string | Uint8Array, opts: StageOptions | number = {}): Staged {
  const { mode, sync = true } = typeof opts === 'number' ? { mode: opts } : opts;
  const { tmp, fd } = openNew(path, mode ?? 0o666);
  try {
    writeAll(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    if (mode !== undefined) fchmodSync(fd, mode);
    if (sync) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  return {
    tmp,
    commit() {
      try {
        renameSync(tmp, path);
      } catch (err) {
        rmSync(tmp, { force: true });
        throw err;
      }
    },
    abort() {
      rmSync(tmp, { force: true });
    },
  };
}

/** Writes a file so that readers see the old content or the new, never a torn one (stage, fsync, rename). */
export function writeFileAtomic(path: string, data: string | Uint8Array, opts: StageOptions | number = {}): void {
  stageFile(path, data, opts).commit();
}
