// The whole-process half of npm run bench: start-up, the fixed cost of a run, per-pass
// overhead and whole runs, each timed as `node bin/bounce.js ...` from spawn to exit.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { alternate, compare, median } from './timing.mjs';

const BIN = fileURLToPath(new URL('../bin/bounce.js', import.meta.url));
const INSTANT = fileURLToPath(new URL('./instant-adapter.mjs', import.meta.url));

/** The environment of every timed command: no colour, and no config file reached through BOUNCE_CONFIG. */
function benchEnv() {
  const env = { ...process.env, NO_COLOR: '1' };
  delete env.BOUNCE_CONFIG;
  return env;
}

/** Milliseconds spent inside agent calls, from the run's run.json (null if it cannot be read). */
function agentMs(runDir) {
  try {
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    return manifest.pass_records.flatMap((p) => p.dispatches).reduce((sum, d) => sum + (d.duration_ms ?? 0), 0);
  } catch {
    return null;
  }
}

/** A refine run in `dir` on `doc`; its run folder is read for agent time and then removed, untimed. */
function refine(dir, doc, passes, reviewer, composer) {
  const args = [BIN, 'refine', doc, '-p', String(passes), '-r', reviewer, '-c', composer, '--all-passes', '--json', '--quiet', '--runs-dir', 'runs'];
  const after = (stdout) => {
    const runDir = JSON.parse(stdout).run_dir;
    const ms = agentMs(runDir);
    rmSync(runDir, { recursive: true, force: true });
    return ms;
  };
  return { args, cwd: dir, env: benchEnv(), after };
}

/** (T4 − T2) / 2 round by round: the cost of one more pass, whole and outside the agent calls. */
function perPass(two, four) {
  const whole = median(four.map((r, i) => (r.ms - two[i].ms) / 2));
  const known = four.every((r, i) => r.extra !== null && two[i].extra !== null);
  const bounce = known ? median(four.map((r, i) => (r.ms - r.extra - (two[i].ms - two[i].extra)) / 2)) : null;
  return { whole, bounce };
}

export function wholeRuns(document, rounds) {
  const dir = mkdtempSync(join(tmpdir(), 'bounce-bench-proc-'));
  try {
    writeFileSync(join(dir, 'small.md'), document(9)); // about 1 KB
    writeFileSync(join(dir, 'big.md'), document(15_000).slice(0, 1_900_000));
    const env = benchEnv();
    const bare = { args: ['-e', ''], cwd: dir, env };
    const [version, bare1] = alternate([{ args: [BIN, '--version'], cwd: dir, env }, bare], rounds);
    const [scan, bare2] = alternate([{ args: [BIN, 'scan', 'small.md'], cwd: dir, env }, bare], rounds);
    const [one, two, four] = alternate(
      [1, 2, 4].map((p) => refine(dir, 'small.md', p, 'mock', 'mock')),
      rounds,
    );
    // Half the rounds for the 1.9 MB runs: each takes a second or two.
    const bigRounds = Math.max(3, Math.ceil(rounds / 2));
    const [bigTwo, bigFour] = alternate(
      [2, 4].map((p) => refine(dir, 'big.md', p, 'mock', 'mock')),
      bigRounds,
    );
    const instant = `cmd:${INSTANT}`;
    const [cmd, mock] = alternate([refine(dir, 'small.md', 2, instant, instant), refine(dir, 'small.md', 2, 'mock', 'mock')], rounds);
    return {
      rounds,
      bigRounds,
      version: compare(version, bare1),
      scan: compare(scan, bare2),
      fixed: median(one.map((r) => r.ms)),
      small: perPass(two, four),
      big: perPass(bigTwo, bigFour),
      cmdVsMock: compare(cmd, mock),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
