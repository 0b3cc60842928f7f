import { hostname } from 'node:os';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { usageError } from '../errors.js';

export const LOCK_FILE = 'lock';

interface LockInfo {
  pid: number;
  host: string;
  started_at: string;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(path: string): LockInfo | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
  } catch {
    return null;
  }
}

/**
 * Creates the lock whole or not at all: the content is written to a private file first and
 * hard-linked into place, so no one ever reads a half-written lock.
 */
function tryCreate(path: string, info: LockInfo): boolean {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(info)}\n`);
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Releases of the locks this process holds, so a forced exit (src/cli.ts) leaves none behind. */
const held = new Set<() => void>();
/** Lock files this process failed to remove (the folder was read-only): stale, for this process to take over. */
const leftBehind = new Set<string>();

/** Releases every lock this process holds. */
export function releaseHeldLocks(): void {
  for (const release of [...held]) release();
}

/**
 * Takes the run's lock (pid, host, start time) so two processes never drive one run.
 * A lock left by a dead process on this host is taken over; a live one is refused.
 */
export function acquireLock(runDir: string): () => void {
  const path = join(runDir, LOCK_FILE);
  const me: LockInfo = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() };
  if (!tryCreate(path, me)) {
    const held = readLock(path);
    const leftByMe = held?.pid === process.pid && leftBehind.has(path);
    if (held && held.host === me.host && alive(held.pid) && !leftByMe) {
      throw usageError(`the run is in use by process ${held.pid} (since ${held.started_at})`, 'wait for it to finish, or stop that process first', 'locked');
    }
    if (held && held.host !== me.host) {
      throw usageError(`the run is locked by process ${held.pid} on host ${held.host}`, `if that process is gone, delete ${path} and try again`, 'locked');
    }
    // Stale: remove it only if it is still the one judged stale, then race fairly for a new one.
    if (JSON.stringify(readLock(path)) === JSON.stringify(held)) rmSync(path, { force: true });
    if (!tryCreate(path, me)) throw usageError('another process took the run lock just now', 'try again when it has finished', 'locked');
  }
  const release = (): void => {
    held.delete(release);
    try {
      if (readLock(path)?.pid === process.pid) rmSync(path, { force: true });
      leftBehind.delete(path);
    } catch {
      leftBehind.add(path);
      // The folder cannot be written (read-only, gone): the lock is stale from now on, and a
      // later run takes it over. A failed release never hides what the run reported.
    }
  };
  held.add(release);
  leftBehind.delete(path);
  return release;
}
