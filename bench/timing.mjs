// Whole-process timing for npm run bench: each command is started as a child of this node
// process and timed from spawn to exit, commands in turn (A B A B ...), so a drift in the
// machine's speed falls on both sides of a ratio alike.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/**
 * A command: `{ args, cwd, env, exit }` runs `node ...args`; `exit` is the code it must end
 * with (default 0). `after(stdout)` runs untimed once the child is gone (reading or
 * removing what it wrote) and its return value is kept beside the time.
 */
export function timeOnce(cmd) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, cmd.args, { cwd: cmd.cwd, env: cmd.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  if (r.status !== (cmd.exit ?? 0)) throw new Error(`node ${cmd.args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr.trim().split('\n').pop()}`);
  return { ms, extra: cmd.after?.(r.stdout) };
}

/** Runs the commands in turn for `rounds` rounds after one untimed round; returns one series per command. */
export function alternate(commands, rounds) {
  for (const cmd of commands) timeOnce(cmd);
  const series = commands.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, cmd] of commands.entries()) series[i].push(timeOnce(cmd));
  }
  return series;
}

/** Median of A, median of B and the median of the ratios A/B taken round by round. */
export function compare(a, b) {
  return { a: median(a.map((r) => r.ms)), b: median(b.map((r) => r.ms)), ratio: median(a.map((r, i) => r.ms / b[i].ms)) };
}
