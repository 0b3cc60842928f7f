/** Helpers for the tests of callAdapter and callAgent: results, and processes (Linux only: /proc). */
import { readFileSync } from 'node:fs';
import type { HostResult } from '../../src/contract/host.js';

export function failure(result: HostResult): Extract<HostResult, { ok: false }> {
  if (result.ok) throw new Error(`expected a failure, got a success: ${result.stdout}`);
  return result;
}

export function success(result: HostResult): Extract<HostResult, { ok: true }> {
  if (!result.ok) throw new Error(`expected a success, got ${result.error.type}: ${result.error.message}`);
  return result;
}

/** Whether a process exists and is not a zombie, from /proc/<pid>/stat. */
export function running(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/** The pids a fixture wrote to `file` (space-separated), or [] while it has not written them. */
export function pidsIn(file: string): number[] {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return text ? text.split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
}

const EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit'] as const;

/** How many listeners `process` has for the signals and `exit`. */
export function processListeners(): Record<(typeof EVENTS)[number], number> {
  return Object.fromEntries(EVENTS.map((e) => [e, process.listenerCount(e)])) as Record<(typeof EVENTS)[number], number>;
}
