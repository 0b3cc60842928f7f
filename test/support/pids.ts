import { spawnSync } from 'node:child_process';

/** The pid of a process that has exited (and been reaped): what a lock of a killed run names. */
export function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}
