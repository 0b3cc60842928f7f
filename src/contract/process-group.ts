/**
 * Signals for a child started in its own process group (detached): the child and whatever
 * it started die together. Used for adapter programs (host.ts) and the CLIs the built-in
 * adapters run (cli-run.ts).
 *
 * Every such group is also registered with this process's watchdog (guardGroup): a `sh`
 * started once per bounce process, in a session of its own, that reads the groups from a
 * pipe and kills the ones still registered when the pipe closes. The kernel closes the pipe
 * however bounce ends, SIGKILL included, so no agent's process tree outlives bounce.
 */
import { type ChildProcess, spawn } from 'node:child_process';

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
  setTimeout(() => endGroup(pid), graceMs).unref();
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
      endGroup(child.pid);
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
    }, graceMs).unref(),
  );
}

/**
 * The watchdog: a line `+ <pgid>` registers a group, `- <pgid>` forgets it; at the end of its
 * input it SIGKILLs what is left. It ignores the terminal's signals (they are bounce's to
 * handle), and its own session keeps it out of a kill of bounce's process group.
 */
const WATCHDOG = `# bounce watchdog: kills the agents' process groups once bounce is gone
trap '' INT TERM HUP
groups=
while read -r op pgid; do
  case $op in
    +) groups="$groups $pgid" ;;
    -) kept=; for g in $groups; do [ "$g" = "$pgid" ] || kept="$kept $g"; done; groups=$kept ;;
  esac
done
for g in $groups; do kill -KILL -"$g" 2>/dev/null; done
`;

/** The groups this process started and has not killed for good yet: group id -> when it started (ms since the epoch). */
const live = new Map<number, number>();
const listeners = new Set<(groups: ReadonlyMap<number, number>) => void>();
let watchdog: ChildProcess | null = null;

function startWatchdog(): ChildProcess | null {
  let child: ChildProcess;
  try {
    child = spawn('/bin/sh', ['-c', WATCHDOG], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  } catch {
    return null;
  }
  child.on('error', () => {});
  child.stdin?.on('error', () => {});
  if (child.pid === undefined || !child.stdin) return null;
  child.once('exit', () => {
    if (watchdog === child) watchdog = null;
  });
  // Neither the watchdog nor its pipe keeps bounce running; the pipe closes when bounce exits.
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  return child;
}

/** Tells the watchdog; one that is gone (or not started yet) is started and told every live group. */
function tell(line: string): void {
  if (watchdog?.stdin?.writable && watchdog.exitCode === null && watchdog.signalCode === null) {
    watchdog.stdin.write(line);
    return;
  }
  watchdog = startWatchdog();
  if (watchdog && live.size > 0) watchdog.stdin?.write([...live.keys()].map((g) => `+ ${g}\n`).join(''));
}

function guarded(): void {
  for (const listener of listeners) listener(live);
}

/** Registers a child's group, just after it was spawned: if bounce dies, the watchdog kills it. */
export function guardGroup(pid: number | undefined): void {
  if (!pid || live.has(pid)) return;
  live.set(pid, Date.now());
  tell(`+ ${pid}\n`);
  guarded();
}

/** The group's last signal: SIGKILL to whatever is left in it, and the watchdog forgets it (its id may be reused from now on). */
export function endGroup(pid: number | undefined): void {
  signalGroup(pid, 'SIGKILL');
  if (!pid || !live.delete(pid)) return;
  tell(`- ${pid}\n`);
}

/** The groups guarded now (group id -> start, ms since the epoch). */
export function guardedGroups(): ReadonlyMap<number, number> {
  return live;
}

/**
 * Calls `listener` with the guarded groups each time one is added (not when one ends: that
 * comes between two passes, where nothing should wait for a write); returns the unsubscribe.
 */
export function onGuardedGroups(listener: (groups: ReadonlyMap<number, number>) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
