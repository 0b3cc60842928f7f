/**
 * Signals for a child started in its own process group (detached): the child and whatever
 * it started die together. Used for adapter programs (host.ts), the CLIs the built-in
 * adapters run and their offline probes (cli-run.ts, detect.ts).
 *
 * Every such group is also registered with this process's watchdog (guardGroup): a `sh`
 * started once per bounce process, in a session of its own, that reads the groups from a
 * pipe and kills the ones still registered when the pipe closes. The kernel closes the pipe
 * however bounce ends, SIGKILL included, so no agent's process tree outlives bounce. The
 * watchdog is running before a guarded child is spawned (readyWatchdog, spawnGuarded) and
 * each group is in its pipe as soon as its spawn returns (a synchronous write): a child that
 * cannot be guarded is not started.
 */
import { randomBytes } from 'node:crypto';
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { accessSync, constants, statSync, writeSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';
import { BounceError, EXIT } from '../errors.js';

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
 * The variable every agent bounce starts carries, set to this process's tag, and that their
 * children inherit: a process that left its group (setsid, a daemon's double fork) still has
 * it, so the watchdog finds it by its environment. A nested bounce (an agent that is itself a
 * bounce) gives its own agents its own tag.
 */
export const AGENT_TAG_VAR = 'BOUNCE_AGENT_TAG';
/** This process's tag: its pid and 16 random hex digits (fixed length, so no tag is the prefix of another). */
const agentTag = `${process.pid}.${randomBytes(8).toString('hex')}`;

/**
 * The watchdog: a line `+ <pgid>` registers a group, `- <pgid>` forgets it; at the end of its
 * input it SIGKILLs what is left, then, where there is a /proc, every process whose
 * environment holds this bounce's tag ($1): an agent's helper that left its group with setsid
 * dies too. It ignores the terminal's signals (they are bounce's to handle), and its own
 * session keeps it out of a kill of bounce's process group.
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
[ -n "$1" ] && [ -d /proc/self ] || exit 0
for f in $(grep -l -a -F "${AGENT_TAG_VAR}=$1" /proc/[0-9]*/environ 2>/dev/null); do
  p=\${f#/proc/}; p=\${p%/environ}
  [ "$p" = "$$" ] || kill -KILL "$p" 2>/dev/null
done
`;

/** The groups this process started and has not killed for good yet: group id -> when it started (ms since the epoch). */
const live = new Map<number, number>();
const listeners = new Set<(groups: ReadonlyMap<number, number>) => void>();

/** The watchdog running now, and the file descriptor of bounce's end of its pipe. */
interface Watchdog {
  child: ChildProcess;
  fd: number;
}
let watchdog: Watchdog | null = null;

/**
 * Why bounce starts no agent: it could not start the watchdog that would kill the agent's
 * process tree should bounce die. A dispatch (or a probe) that meets it is refused, nothing started.
 */
export class NoWatchdogError extends BounceError {
  constructor(why: string) {
    super(`bounce could not start the watchdog that kills an agent's processes if bounce dies (/bin/sh: ${why}), so it starts no agent`, {
      exitCode: EXIT.agent,
      code: 'agent',
      hint: 'check that /bin/sh runs and that the process limit (ulimit -u) is not reached, then try again',
    });
    this.name = 'NoWatchdogError';
  }
}

function startWatchdog(): Watchdog {
  let child: ChildProcess;
  try {
    child = spawn('/bin/sh', ['-c', WATCHDOG, 'bounce-watchdog', agentTag], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  } catch (err) {
    throw new NoWatchdogError(err instanceof Error ? err.message : String(err));
  }
  child.on('error', () => {});
  child.stdin?.on('error', () => {});
  // bounce's end of the pipe, written with writeSync: a line is in the pipe before the agent it names can outlive bounce.
  const fd = (child.stdin as unknown as { _handle?: { fd?: unknown } } | null)?._handle?.fd;
  if (child.pid === undefined || typeof fd !== 'number' || fd < 0) {
    signalGroup(child.pid, 'SIGKILL');
    child.stdin?.destroy();
    throw new NoWatchdogError(child.pid === undefined ? 'it did not start' : 'no pipe to it');
  }
  const started: Watchdog = { child, fd };
  child.once('exit', () => {
    if (watchdog === started) watchdog = null;
  });
  // Neither the watchdog nor its pipe keeps bounce running; the pipe closes when bounce exits.
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  return started;
}

/**
 * Puts `text` into the watchdog's pipe before it returns; false when the watchdog is gone
 * (EPIPE). Should the pipe ever be full, the rest goes through the stream, in order.
 */
function send(w: Watchdog, text: string): boolean {
  const stdin = w.child.stdin;
  if (!stdin || stdin.destroyed) return false;
  if (stdin.writableLength > 0) {
    stdin.write(text);
    return true;
  }
  let bytes = Buffer.from(text);
  try {
    while (bytes.length > 0) bytes = bytes.subarray(writeSync(w.fd, bytes));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return false;
    stdin.write(bytes);
    return true;
  }
}

const running = (w: Watchdog | null): w is Watchdog => w !== null && w.child.exitCode === null && w.child.signalCode === null;

/** A new watchdog, told every live group; throws NoWatchdogError. */
function restart(): Watchdog {
  const w = startWatchdog();
  watchdog = w;
  if (live.size > 0 && !send(w, [...live.keys()].map((g) => `+ ${g}\n`).join(''))) throw new NoWatchdogError('it stopped reading at once');
  return w;
}

/**
 * Makes sure a watchdog runs, starting one if none does; throws NoWatchdogError when none
 * can. Called before each spawn of a process to guard (spawnGuarded, callAdapter), so that a
 * dispatch that could not be guarded is refused before anything starts.
 */
export function readyWatchdog(): void {
  if (!running(watchdog)) restart();
}

/** Tells the watchdog a change (`live` has it already); one that is gone is started again and told every live group. False when none runs. */
function tell(line: string): boolean {
  if (running(watchdog) && send(watchdog, line)) return true;
  try {
    restart();
    return true;
  } catch {
    return false;
  }
}

function guarded(): void {
  for (const listener of listeners) listener(live);
}

/**
 * Registers a child's group, just after it was spawned (after readyWatchdog): if bounce dies,
 * the watchdog kills it. The line is in the watchdog's pipe when this returns. Should no
 * watchdog run any more (it died and cannot be started again), the group is killed at once:
 * nothing runs unguarded.
 */
export function guardGroup(pid: number | undefined): void {
  if (!pid || live.has(pid)) return;
  live.set(pid, Date.now());
  if (!tell(`+ ${pid}\n`)) {
    live.delete(pid);
    signalGroup(pid, 'SIGKILL');
    return;
  }
  guarded();
}

/**
 * Spawns a child in a process group of its own (detached), guarded by the watchdog from the
 * moment it exists. Throws NoWatchdogError, nothing started, when no watchdog can run; a
 * failed spawn throws or emits `error` as `spawn` does.
 *
 * The child is started behind a gate (spawnGated) that bounce opens only once the child's
 * group is in the watchdog's pipe: should bounce be killed between the spawn and that line
 * (on a loaded machine the spawn can return many milliseconds after the child exists), the
 * gate reads the end of its pipe and the program never runs.
 */
export function spawnGuarded(program: string, args: readonly string[], options: Omit<SpawnOptions, 'detached'>): ChildProcess {
  readyWatchdog();
  const { child, open } = spawnGated(program, args, options);
  guardGroup(child.pid);
  open();
  return child;
}

/**
 * The gate: `/bin/sh` waits for one line on file descriptor 3, closes it, and only then
 * becomes the program (`exec`: the same process, pid and group, with the program's exit code
 * and signals). If the line never comes (bounce died first), the pipe's end makes `read` fail
 * and sh exits 1 without running anything.
 */
const GATE = 'IFS= read -r go <&3 && [ "$go" = go ] || exit 1; exec 3<&-; exec "$0" "$@"';

/**
 * Starts `program` behind the gate; `open()` lets it run (a synchronous write into the gate's
 * pipe, then closes bounce's end). A program that cannot be found or run (ENOENT, EACCES)
 * is spawned directly instead, so the caller gets the same `error` as from `spawn`: there is
 * no process then, nothing to guard.
 */
export function spawnGated(program: string, args: readonly string[], options: Omit<SpawnOptions, 'detached'>): { child: ChildProcess; open: () => void } {
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env), [AGENT_TAG_VAR]: agentTag };
  options = { ...options, env };
  const cwd = typeof options.cwd === 'string' ? options.cwd : process.cwd();
  if (!executable(program, env.PATH, cwd)) return { child: spawn(program, args, { ...options, detached: true }), open: () => {} };
  const stdio =
    typeof options.stdio === 'string'
      ? [options.stdio, options.stdio, options.stdio]
      : [...((options.stdio as unknown[] | undefined) ?? ['pipe', 'pipe', 'pipe'])];
  const child = spawn('/bin/sh', ['-c', GATE, program, ...args], {
    ...options,
    stdio: [...stdio.slice(0, 3), 'pipe'] as SpawnOptions['stdio'],
    detached: true,
  });
  const gate = child.stdio[3] as (NodeJS.WritableStream & { _handle?: { fd?: unknown }; destroy(): void }) | null | undefined;
  return {
    child,
    open: () => {
      if (!gate) return;
      const fd = gate._handle?.fd;
      try {
        if (typeof fd === 'number' && fd >= 0) writeSync(fd, 'go\n');
        else gate.write('go\n');
      } catch {
        // The gate is gone (its sh was killed): there is nothing to let run.
      }
      gate.destroy();
    },
  };
}

/** Whether `program` (looked up on PATH when it has no slash, as exec does) exists and may be run. */
function executable(program: string, path: string | undefined, cwd: string): boolean {
  const runnable = (file: string): boolean => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (program.includes('/')) return runnable(resolve(cwd, program));
  return (path ?? '').split(delimiter).some((dir) => runnable(resolve(cwd, dir === '' ? '.' : dir, program)));
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
