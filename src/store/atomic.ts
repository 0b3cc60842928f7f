import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A file written beside its target and not yet renamed over it. */
export interface Staged {
  tmp: string;
  /** Renames the staged file over the target: readers see the old content or the new, never a torn one. */
  commit(): void;
  abort(): void;
}

/** A hidden name beside `path` for a file that is about to replace it. */
export function siblingName(path: string, tag: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.${tag}`);
}

/**
 * Writes `data` to a new hidden file beside `path` and fsyncs it. The file is created
 * exclusively, so a symlink planted at its name is never followed. `mode` is set when
 * given; otherwise the file gets the usual 0666 less the umask.
 */
export function stageFile(path: string, data: string | Uint8Array, mode?: number): Staged {
  const tmp = siblingName(path, 'tmp');
  const fd = openSync(tmp, 'wx', mode ?? 0o666);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    if (mode !== undefined) fchmodSync(fd, mode);
    fsyncSync(fd);
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
export function writeFileAtomic(path: string, data: string | Uint8Array, mode?: number): void {
  stageFile(path, data, mode).commit();
}
