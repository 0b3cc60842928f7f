/**
 * Runs one check command on a file, under the rules of an agent's process (src/contract/
 * process-group.ts): argv without a shell, in a process group of its own guarded by the
 * watchdog, the whole group sent SIGTERM at the check's time limit and SIGKILL shortly after,
 * what it leaves in its group killed once it exits, no stdin, its output bounded. A check
 * that cannot start or runs out of time is a value, never a throw.
 */
import { performance } from 'node:perf_hooks';
import { stripAnsi } from '../contract/host.js';
import { endGroup, reapAfterExit, spawnGuarded, terminateGroup } from '../contract/process-group.js';
import type { CheckStatus } from '../vocabulary.js';
import { type CheckSpec, checkArgv } from './command.js';

/** The most output of one check run that is kept (stdout and stderr together, in the order they came); the rest is counted, not kept. */
export const CHECK_OUTPUT_MAX_BYTES = 256 * 1024;
/** After the time limit's SIGTERM, SIGKILL to the check's group this much later. */
const KILL_GRACE_MS = 1500;
/** What the check left running in its group is killed this long after it exits. */
const EXIT_GRACE_MS = 250;

/** One run of a check. */
export interface CheckRun {
  /** `passed` (exit 0), `failed` (another exit, or a signal), `not-started` (no such program, not executable), `timed-out`. */
  status: CheckStatus;
  /** Null when it did not start, ran out of time, or ended by a signal. */
  exitCode: number | null;
  /** Its stdout and stderr as they came, ANSI escapes stripped, at most CHECK_OUTPUT_MAX_BYTES; for `not-started`, why. */
  output: string;
  /** Bytes of output beyond the bound, not kept. */
  droppedBytes: number;
  durationMs: number;
}

/** Where and with what a check runs: the folder (the command's working directory) and the environment (without the agents' keys). */
export interface CheckPlace {
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** Runs `check` with `{file}` standing for `file` (an absolute path); resolves when it and its group are done. */
export function runCheck(check: CheckSpec, file: string, place: CheckPlace): Promise<CheckRun> {
  const { program, args } = checkArgv(check, file);
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let dropped = 0;
    let timedOut = false;
    let child: ReturnType<typeof spawnGuarded>;
    try {
      child = spawnGuarded(program, args, { cwd: place.cwd, env: place.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ status: 'not-started', exitCode: null, output: startProblem(program, err), droppedBytes: 0, durationMs: elapsed() });
      return;
    }
    const take = (data: Buffer): void => {
      const room = CHECK_OUTPUT_MAX_BYTES - kept;
      if (room > 0) chunks.push(data.subarray(0, room));
      kept += Math.min(room, data.length);
      dropped += Math.max(0, data.length - Math.max(0, room));
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    const timer = setTimeout(() => {
      timedOut = true;
      terminateGroup(child.pid, KILL_GRACE_MS);
    }, check.timeout_s * 1000);
    const onAbort = (): void => endGroup(child.pid);
    place.signal?.addEventListener('abort', onAbort, { once: true });
    if (place.signal?.aborted) onAbort();
    reapAfterExit(child, EXIT_GRACE_MS);
    let done = false;
    const finish = (run: Omit<CheckRun, 'durationMs' | 'droppedBytes'>): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      place.signal?.removeEventListener('abort', onAbort);
      endGroup(child.pid); // whatever it left running in its group
      resolve({ ...run, droppedBytes: dropped, durationMs: elapsed() });
    };
    const output = (): string => stripAnsi(Buffer.concat(chunks).toString('utf8'));
    child.on('error', (err) => finish({ status: 'not-started', exitCode: null, output: startProblem(program, err) }));
    child.on('close', (code) => {
      if (timedOut) finish({ status: 'timed-out', exitCode: null, output: output() });
      else finish({ status: code === 0 ? 'passed' : 'failed', exitCode: code, output: output() });
    });
  });
}

/** Why a check's program did not start, in a few words. */
function startProblem(program: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT') return `${program}: no such program (not on PATH, or no such file)`;
  if (code === 'EACCES') return `${program}: not executable`;
  return `${program} could not start: ${err instanceof Error ? err.message : String(err)}`;
}
