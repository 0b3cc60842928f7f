import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCK_FILE, acquireLock, holdLock, lockNewFolder, lockOwnerAlive, shownStatus } from '../../src/store/lock.js';
import { processStartMs } from '../../src/store/process-start.js';
import { bounceErrorOf } from '../support/errors.js';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bounce-lock-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const lockPath = (): string => join(root, LOCK_FILE);
const readLock = (): { pid: number; started_at: string } => JSON.parse(readFileSync(lockPath(), 'utf8')) as { pid: number; started_at: string };
const onLinux = existsSync('/proc/self/stat');

describe('the lock temp file', () => {
  it('a symlink planted at lock.<pid>.tmp is never followed: its target is untouched', () => {
    const target = join(root, 'precious.txt');
    writeFileSync(target, 'keep me\n');
    symlinkSync(target, join(root, `${LOCK_FILE}.${process.pid}.tmp`));
    const release = acquireLock(root);
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
    expect(readLock().pid).toBe(process.pid);
    // The link was removed, not written through, and no temp file is left.
    expect(existsSync(join(root, `${LOCK_FILE}.${process.pid}.tmp`))).toBe(false);
    release();
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
  });

  it('a stale temp file of a dead process with this pid is replaced', () => {
    writeFileSync(join(root, `${LOCK_FILE}.${process.pid}.tmp`), 'left over');
    const release = acquireLock(root);
    expect(readLock().pid).toBe(process.pid);
    release();
  });
});

describe('a folder locked before it is in place', () => {
  it('comes into place with its lock, running while this process holds it; holdLock releases it, and a second take is refused meanwhile', () => {
    const tmp = join(root, '.run.tmp');
    const dir = join(root, 'run');
    mkdirSync(tmp);
    lockNewFolder(tmp);
    renameSync(tmp, dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    const release = holdLock(dir);
    expect(shownStatus(dir, 'running').status).toBe('running');
    expect(bounceErrorOf(() => acquireLock(dir)).message).toContain(`in use by process ${process.pid}`);
    release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });
});

describe('a reused pid', () => {
  const bounceCommand = (): string => 'node /usr/lib/node_modules/bounce-runner/bin/bounce.js refine doc.md';
  it.runIf(onLinux)('a live process that started after the lock was written does not own it: the lock is taken over', () => {
    // The parent process is alive, but it started long after 2020: its pid was only reused.
    writeFileSync(lockPath(), JSON.stringify({ pid: process.ppid, host: hostname(), started_at: '2020-01-01T00:00:00.000Z' }));
    const release = acquireLock(root);
    expect(readLock().pid).toBe(process.pid);
    release();
  });

  it('a live process that started before the lock was written is its owner', () => {
    const info = { pid: process.ppid, host: hostname(), started_at: new Date().toISOString() };
    expect(lockOwnerAlive(info, processStartMs, bounceCommand)).toBe(true);
  });

  it.runIf(onLinux)('a lock that records its owner start time is owned only by the process that started then', () => {
    const started = processStartMs(process.ppid)!;
    const info = { pid: process.ppid, host: hostname(), started_at: new Date().toISOString(), proc_start: started };
    expect(lockOwnerAlive(info)).toBe(true);
    expect(lockOwnerAlive({ ...info, proc_start: started + 1_000 })).toBe(true); // within the 2 s a stepped clock moves boot time
    // A live process with that pid that started at another time only reuses it, even one that started before the lock.
    expect(lockOwnerAlive({ ...info, proc_start: started - 60_000 })).toBe(false);
    expect(lockOwnerAlive({ ...info, proc_start: started + 60_000 })).toBe(false);
  });

  it.runIf(onLinux)('a lock without a start time naming a live process that is no bounce (pid 1, a sleep) does not hold the run', () => {
    const info = { pid: process.ppid, host: hostname(), started_at: new Date().toISOString() };
    expect(lockOwnerAlive(info, processStartMs, () => 'sleep 1000')).toBe(false);
    expect(lockOwnerAlive(info, processStartMs, () => '/sbin/init')).toBe(false);
    expect(lockOwnerAlive(info, processStartMs, () => 'node /opt/tools/bin/bounce resume latest')).toBe(true);
    expect(lockOwnerAlive(info, processStartMs, () => null)).toBe(true); // no command line to read: the pid alone, as before
  });

  it('a lock naming pid 0, a negative pid or a fraction names no process: it is taken over', () => {
    for (const pid of [0, -1, 1.5]) {
      writeFileSync(lockPath(), JSON.stringify({ pid, host: hostname(), started_at: new Date().toISOString() }));
      const release = acquireLock(root);
      expect(readLock().pid).toBe(process.pid);
      release();
    }
  });

  it.runIf(onLinux)('the lock bounce writes records its own start time', () => {
    const release = acquireLock(root);
    expect(readLock()).toMatchObject({ pid: process.pid, proc_start: processStartMs(process.pid) });
    release();
  });

  it('without a start time to read (no /proc), a live pid counts as the owner, as before', () => {
    const info = { pid: process.ppid, host: hostname(), started_at: '2020-01-01T00:00:00.000Z' };
    expect(lockOwnerAlive(info, () => null)).toBe(true);
    expect(lockOwnerAlive(info, () => Date.parse('2021-01-01T00:00:00.000Z'), bounceCommand)).toBe(false);
    expect(lockOwnerAlive(info, () => Date.parse('2019-12-31T23:59:59.000Z'), bounceCommand)).toBe(true);
    // Within 30 s of the lock (whole-second boot time, a clock stepped forward): still the owner.
    expect(lockOwnerAlive(info, () => Date.parse('2020-01-01T00:00:20.000Z'), bounceCommand)).toBe(true);
    expect(lockOwnerAlive(info, () => Date.parse('2020-01-01T00:00:31.000Z'), bounceCommand)).toBe(false);
  });

  it('a refused lock names its live owner', () => {
    const since = new Date().toISOString();
    const procStart = processStartMs(process.ppid);
    writeFileSync(
      lockPath(),
      JSON.stringify({ pid: process.ppid, host: hostname(), started_at: since, ...(procStart === null ? {} : { proc_start: procStart }) }),
    );
    expect(bounceErrorOf(() => acquireLock(root)).message).toBe(`the run is in use by process ${process.ppid} (since ${since})`);
  });
});

describe('processStartMs', () => {
  it('reads field 22 of /proc/<pid>/stat after a command name with spaces and parentheses, plus btime', () => {
    const proc = join(root, 'proc');
    mkdirSync(join(proc, '42'), { recursive: true });
    writeFileSync(join(proc, 'stat'), 'cpu  1 2 3\nbtime 1700000000\nprocesses 9\n');
    // Fields 3 to 21 are filler; field 22 (starttime) is 12345 ticks.
    const filler = Array.from({ length: 19 }, (_, i) => String(i + 3)).join(' ');
    writeFileSync(join(proc, '42', 'stat'), `42 (a (b) c) ${filler} 12345 999 0\n`);
    expect(processStartMs(42, proc)).toBe(1_700_000_000_000 + 123_450);
  });

  it('is null where there is no /proc entry', () => {
    expect(processStartMs(42, join(root, 'none'))).toBeNull();
  });

  it.runIf(onLinux)('this process started before now and after boot', () => {
    const started = processStartMs(process.pid);
    expect(started).not.toBeNull();
    expect(started as number).toBeLessThanOrEqual(Date.now());
    expect(started as number).toBeGreaterThan(Date.now() - 1000 * 3600 * 24 * 365);
  });
});
