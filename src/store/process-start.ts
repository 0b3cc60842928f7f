import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Clock ticks per second in /proc/<pid>/stat: USER_HZ, which Linux fixes at 100 for user
 * space on every architecture Node runs on (sysconf(_SC_CLK_TCK) answers 100).
 */
const CLK_TCK = 100;

/**
 * When a process started, in ms since the epoch, from /proc: field 22 of /proc/<pid>/stat
 * (clock ticks after boot) plus `btime` of /proc/stat (boot time in seconds). Null where there
 * is no /proc (macOS, Windows) or the process is gone: callers then go by the pid alone.
 */
export function processStartMs(pid: number, procRoot = '/proc'): number | null {
  try {
    const stat = readFileSync(join(procRoot, String(pid), 'stat'), 'utf8');
    // Field 2, the command name, is in parentheses and may hold spaces or parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the name, field 3 is the first: field 22 is the 20th.
    const ticks = Number(fields[19]);
    const btime = /^btime (\d+)$/m.exec(readFileSync(join(procRoot, 'stat'), 'utf8'))?.[1];
    if (!Number.isFinite(ticks) || btime === undefined) return null;
    return Number(btime) * 1000 + (ticks * 1000) / CLK_TCK;
  } catch {
    return null;
  }
}

/** A process's command line, its arguments joined by spaces, from /proc; null where there is no /proc or the process is gone. */
export function processCommandLine(pid: number, procRoot = '/proc'): string | null {
  try {
    return readFileSync(join(procRoot, String(pid), 'cmdline'), 'utf8')
      .split('\0')
      .join(' ')
      .trim();
  } catch {
    return null;
  }
}
