import { hostname } from 'node:os';
import { processStartMs } from '../../src/store/process-start.js';

/** A lock as bounce writes it for a live owner `pid`: with the owner's start time where /proc has it. */
export function ownerLock(pid: number, startedAt = new Date().toISOString()): string {
  const procStart = processStartMs(pid);
  return JSON.stringify({ pid, host: hostname(), started_at: startedAt, ...(procStart === null ? {} : { proc_start: procStart }) });
}
