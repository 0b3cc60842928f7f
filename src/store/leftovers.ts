/**
 * What a runner killed outright leaves in its run folder besides its records: staged files
 * of atomic writes it never renamed, and the process groups of the agents it was running.
 * The recorder keeps `processes.json` up to date while agents run (trackGroups) and clears
 * the leftovers when it takes a run over for a resume (clearLeftovers), under the run's lock.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { guardedGroups, onGuardedGroups } from '../contract/process-group.js';
import { stagedBy, writeFileAtomic } from '../atomic.js';
import { alive } from './lock.js';
import { RUN_FILE_MODE } from './run-folder.js';

export const PROCESSES_FILE = 'processes.json';

/** How far a group leader's start, as the kernel reports it, may be from the time recorded just after its spawn. */
const START_TOLERANCE_MS = 3000;

interface ProcessesFile {
  /** The runner that started the groups. */
  pid: number;
  /** Each agent's process group: its id (the leader's pid) and when it was started. */
  groups: Array<{ pgid: number; started_at: string }>;
}

/**
 * Keeps `<run>/processes.json` naming the agent process groups this process has running,
 * written each time one starts (groups that ended since may still be named until the next
 * write: a resume checks each), from now until the returned stop, which removes the file. A
 * write that fails (a read-only folder) is skipped: the file only helps a later resume.
 */
export function trackGroups(runDir: string): () => void {
  const path = join(runDir, PROCESSES_FILE);
  let written = false;
  const write = (groups: ReadonlyMap<number, number>): void => {
    const file: ProcessesFile = {
      pid: process.pid,
      groups: [...groups].map(([pgid, at]) => ({ pgid, started_at: new Date(at).toISOString() })),
    };
    try {
      writeFileAtomic(path, `${JSON.stringify(file)}\n`, { mode: RUN_FILE_MODE, sync: false });
      written = true;
    } catch {
      // Nothing to do: the watchdog still kills these groups if this process dies.
    }
  };
  if (guardedGroups().size > 0) write(guardedGroups());
  const unsubscribe = onGuardedGroups(write);
  return () => {
    unsubscribe();
    try {
      if (written) rmSync(path, { force: true });
    } catch {
      // A folder that became read-only keeps the file: a later resume finds the groups gone.
    }
  };
}

export interface Leftovers {
  /** Staged files removed, relative to the run folder. */
  temps: string[];
  /** Process groups killed. */
  groups: number[];
}

/**
 * Removes the staged files of atomic writes whose writer is gone, and kills the agent
 * groups `processes.json` names when the runner that wrote it is gone (each one only if its
 * leader is still the process that was started then: an id may have been reused since).
 * Called with the run's lock held, so no live runner of this run is writing.
 */
export function clearLeftovers(runDir: string): Leftovers {
  return { temps: removeStaleTemps(runDir), groups: reapGroups(runDir) };
}

function removeStaleTemps(runDir: string): string[] {
  const removed: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(runDir, { recursive: true, encoding: 'utf8' });
  } catch {
    return removed;
  }
  for (const rel of entries) {
    const pid = stagedBy(rel.slice(rel.lastIndexOf('/') + 1));
    if (pid === null || (pid !== process.pid && alive(pid))) continue;
    try {
      rmSync(join(runDir, rel), { force: true });
      removed.push(rel);
    } catch {
      // A folder that cannot be written keeps it; every command ignores such files.
    }
  }
  return removed;
}

function reapGroups(runDir: string): number[] {
  const path = join(runDir, PROCESSES_FILE);
  let file: ProcessesFile;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as ProcessesFile;
  } catch {
    return [];
  }
  if (!Number.isInteger(file.pid) || !Array.isArray(file.groups) || (file.pid !== process.pid && alive(file.pid))) return [];
  const killed: number[] = [];
  for (const { pgid, started_at } of file.groups) {
    // A group this process runs now is another run's (a file of this pid is an earlier process's that had it).
    if (!Number.isInteger(pgid) || pgid <= 1 || guardedGroups().has(pgid) || !isLeaderStartedAt(pgid, Date.parse(started_at))) continue;
    try {
      process.kill(-pgid, 'SIGKILL');
      killed.push(pgid);
    } catch {
      // Gone meanwhile.
    }
  }
  rmSync(path, { force: true });
  return killed;
}

/**
 * Whether process `pgid` is alive, still leads group `pgid`, and started at `at` (within
 * START_TOLERANCE_MS), from /proc. Where there is no /proc the answer is no: no group is
 * killed that cannot be told from a stranger's.
 */
function isLeaderStartedAt(pgid: number, at: number): boolean {
  if (Number.isNaN(at)) return false;
  try {
    const stat = readFileSync(`/proc/${pgid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces and parentheses: state, ppid, pgrp, ... starttime (field 22).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || Number(fields[2]) !== pgid) return false;
    const bootS = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    // starttime is in clock ticks since boot; Linux reports them at 100 a second (USER_HZ).
    const startedMs = (bootS + Number(fields[19]) / 100) * 1000;
    return Math.abs(startedMs - at) <= START_TOLERANCE_MS;
  } catch {
    return false;
  }
}
