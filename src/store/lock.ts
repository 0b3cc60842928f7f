import { hostname } from 'node:os';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { processCommandLine, processStartMs } from './process-start.js';
import { dirname, join } from 'node:path';
import { storageCause, usageError } from '../errors.js';
import type { RunStatus, ShownStatus } from '../vocabulary.js';

export const LOCK_FILE = 'lock';

export interface LockInfo {
  pid: number;
  host: string;
  started_at: string;
  /** When the owner process itself started (ms since the epoch, from /proc), where that can be read: its identity beside the pid. */
  proc_start?: number;
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

/**
 * How far a process's start time, read from /proc, may lie after the moment it wrote its lock
 * and still be the writer: boot time is in whole seconds, and a wall clock stepped forward
 * (NTP) moves every start time read later by the step. A pid reused within this window of
 * the lock being written is still taken for the owner, as without /proc.
 */
const START_SLACK_MS = 30_000;

/** How far two readings of one process's start time may differ: boot time is in whole seconds and moves with a stepped clock. */
const SAME_START_MS = 2_000;

/**
 * Whether the lock's process still runs. Where the lock records its owner's start time
 * (`proc_start`), the process with that pid must have started then: any other is a reused
 * pid, whenever it started. Without it (a lock written by hand or by an earlier bounce), the
 * process must have started before the lock was written (a later one only reuses the pid)
 * and, where its command line can be read, be a bounce at all (pid 1, a shell, a `sleep`
 * named in a lock are not its owner).
 */
export function lockOwnerAlive(
  info: LockInfo,
  startOf: (pid: number) => number | null = processStartMs,
  commandOf: (pid: number) => string | null = processCommandLine,
): boolean {
  if (!alive(info.pid)) return false;
  const started = startOf(info.pid);
  if (started === null) return true;
  if (typeof info.proc_start === 'number') return Math.abs(started - info.proc_start) <= SAME_START_MS;
  const written = Date.parse(info.started_at);
  if (!Number.isNaN(written) && started > written + START_SLACK_MS) return false;
  const command = commandOf(info.pid);
  return command === null || /bounce|cli\.cjs/i.test(command);
}

export function readLock(path: string): LockInfo | null {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockInfo> | null;
    // A pid that names no one process (0 and -1 address a group or every process to kill(2)) makes a lock of no one: stale.
    return info && Number.isInteger(info.pid) && (info.pid as number) > 0 && typeof info.host === 'string' && typeof info.started_at === 'string'
      ? (info as LockInfo)
      : null;
  } catch {
    return null;
  }
}

/**
 * Writes a new file that no one else's link can redirect: opened with O_CREAT|O_EXCL (`wx`),
 * which refuses any existing path, a symlink included, without following it. Whatever stands
 * there (a temp file of a dead process with this pid, or a planted link) is unlinked, never
 * written through, and the open tried once more.
 */
function writeNewFile(path: string, data: string): void {
  try {
    writeFileSync(path, data, { flag: 'wx', mode: 0o644 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    rmSync(path, { force: true });
    writeFileSync(path, data, { flag: 'wx', mode: 0o644 });
  }
}

/**
 * Creates the lock whole or not at all: the content is written to a private file first and
 * hard-linked into place, so no one ever reads a half-written lock.
 */
function tryCreate(path: string, info: LockInfo): boolean {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeNewFile(tmp, `${JSON.stringify(info)}\n`);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    // A folder that cannot be written (read-only, another user's, a full disk) cannot be locked: say so, naming it.
    if (storageCause(code) !== null)
      throw usageError(`the run folder is not writable: ${dirname(path)} (${code})`, 'make it writable (or free space), then run the command again', 'input');
    throw err;
  }
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

/** Lock files this process failed to remove (the folder was read-only): stale, for this process to take over. */
const leftBehind = new Set<string>();

/**
 * Takes the run's lock (pid, host, start time) so two processes never drive one run.
 * A lock left by a dead process on this host is taken over, and so is one whose pid now
 * belongs to a process that started after the lock was written; a live owner is refused.
 */
export function acquireLock(runDir: string): () => void {
  const path = join(runDir, LOCK_FILE);
  const me = ownLock();
  if (!tryCreate(path, me)) {
    const held = readLock(path);
    const leftByMe = held?.pid === process.pid && leftBehind.has(path);
    if (held && held.host === me.host && lockOwnerAlive(held) && !leftByMe) {
      throw usageError(`the run is in use by process ${held.pid} (since ${held.started_at})`, 'wait for it to finish, or stop that process first', 'locked');
    }
    if (held && held.host !== me.host) {
      throw usageError(`the run is locked by process ${held.pid} on host ${held.host}`, `if that process is gone, delete ${path} and try again`, 'locked');
    }
    // Stale: remove it only if it is still the one judged stale, then race fairly for a new one.
    if (JSON.stringify(readLock(path)) === JSON.stringify(held)) rmSync(path, { force: true });
    if (!tryCreate(path, me)) throw usageError('another process took the run lock just now', 'try again when it has finished', 'locked');
  }
  return holdLock(runDir);
}

/** This process's lock, as of now: pid, host, start time, and where /proc tells it, when the process started. */
function ownLock(): LockInfo {
  const procStart = processStartMs(process.pid);
  return { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), ...(procStart === null ? {} : { proc_start: procStart }) };
}

/**
 * Writes this process's lock into `dir`, a new folder no one else knows of yet: a run folder
 * before it is renamed into place (src/store/recorder.ts). The run folder then never stands
 * without its owner's lock, so a process killed right after the rename leaves a run that
 * `runs` and `show` call `crashed`, not one that stays `running`. holdLock takes it once the
 * folder is in place.
 */
export function lockNewFolder(dir: string): void {
  if (!tryCreate(join(dir, LOCK_FILE), ownLock())) throw new Error(`${dir} has a lock already`);
}

/**
 * The release of the lock this process has written in `runDir` (acquireLock, lockNewFolder).
 * A process ended by force (src/cli.ts) releases none: its locks then name a process that is
 * gone, so its runs show `crashed` and the next `bounce resume` takes them over.
 */
export function holdLock(runDir: string): () => void {
  const path = join(runDir, LOCK_FILE);
  const release = (): void => {
    try {
      if (readLock(path)?.pid === process.pid) rmSync(path, { force: true });
      leftBehind.delete(path);
    } catch {
      leftBehind.add(path);
      // The folder cannot be written (read-only, gone): the lock is stale from now on, and a
      // later run takes it over. A failed release never hides what the run reported.
    }
  };
  leftBehind.delete(path);
  return release;
}

/**
 * Leaves the lock this process holds in `runDir` where it is (its run.json could not be
 * brought up to date): once this process is gone the run shows `crashed`, and meanwhile this
 * process may take it over again (a resume in the same server), as a lock it could not remove.
 */
export function leaveLock(runDir: string): void {
  leftBehind.add(join(runDir, LOCK_FILE));
}

/**
 * A run's status as `runs` and `show` print it: a `running` run whose lock names a process on
 * this host that is gone (killed, `kill -9`, a power cut) is `crashed`, with that lock. Reads
 * only: run.json stays as it is until `bounce resume` takes the run over. A run's folder is
 * never without its lock while run.json says `running` and its process lives (the lock is in
 * the folder before it is renamed into place, and a batch's run not begun yet holds the
 * batch's, and a process ended by force after a second signal leaves its locks), so a run
 * with no lock (one made by an older bounce, a lock deleted by hand) or locked on another host
 * stays `running`: no one can tell.
 */
export function shownStatus(runDir: string, status: RunStatus): { status: ShownStatus; lock: LockInfo | null } {
  if (status !== 'running') return { status, lock: null };
  const lock = readLock(join(runDir, LOCK_FILE));
  if (!lock || lock.host !== hostname() || lockOwnerAlive(lock)) return { status, lock };
  return { status: 'crashed', lock };
}
