/**
 * Signals for a child started in its own process group (detached): the child and whatever
 * it started die together. Used for adapter programs (host.ts) and the CLIs the built-in
 * adapters run (cli-run.ts).
 */
import type { ChildProcess } from 'node:child_process';

export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** SIGTERM to the whole group now, SIGKILL after `graceMs` for what ignored it. */
export function terminateGroup(pid: number | undefined, graceMs: number): void {
  signalGroup(pid, 'SIGTERM');
  setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs).unref();
}

/**
 * After the leader exits (on its own, or killed at the deadline), kill what it left in its
 * group: such a child can hold the pipes open, and the caller would wait for it until the
 * deadline. Then close our ends of the pipes: a grandchild that escaped the group (`setsid`)
 * may hold them open too, and no signal to the group reaches it. What the leader wrote
 * before it exited has been read by then.
 */
export function reapAfterExit(child: ChildProcess, graceMs: number): void {
  child.once('exit', () =>
    setTimeout(() => {
      signalGroup(child.pid, 'SIGKILL');
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
    }, graceMs).unref(),
  );
}
