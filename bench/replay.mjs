#!/usr/bin/env node
// Replay in npm run bench (or alone: npm run build, then node bench/replay.mjs; BENCH_ROUNDS
// sets the rounds): a recorded 10-pass run replayed against the same run made with the
// built-in mock (alternating, whole processes), and 20 recorded runs replayed as one batch.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { alternate, compare, median, timeOnce } from './timing.mjs';
import { document } from './document.mjs';

const BIN = fileURLToPath(new URL('../bin/bounce.js', import.meta.url));

function benchEnv() {
  const env = { ...process.env, NO_COLOR: '1' };
  delete env.BOUNCE_CONFIG;
  return env;
}

/** Runs `bounce <args>` in `dir` once, untimed, and returns its --json output. */
function once(dir, args) {
  const r = timeOnce({ args: [BIN, ...args, '--json', '--quiet'], cwd: dir, env: benchEnv(), after: (stdout) => JSON.parse(stdout) });
  return r.extra;
}

/** A replay of `runs` into a folder of its own, removed untimed after each round. */
function replayCmd(dir, runs) {
  const out = join(dir, 'replays');
  return {
    args: [BIN, 'replay', ...runs, '--runs-dir', out, '--json', '--quiet'],
    cwd: dir,
    env: benchEnv(),
    after: (stdout) => {
      const totals = JSON.parse(stdout).totals;
      if (totals.reproduced !== totals.runs) throw new Error(`bench replay did not reproduce: ${stdout}`);
      rmSync(out, { recursive: true, force: true });
      return totals;
    },
  };
}

/** Rows: [what, a, b, ratio, goal]. */
export function replayRows(document, rounds) {
  const dir = mkdtempSync(join(tmpdir(), 'bounce-bench-replay-'));
  try {
    writeFileSync(join(dir, 'doc.md'), document(40));
    const mock = ['refine', 'doc.md', '-p', '10', '-r', 'mock', '-c', 'mock', '--all-passes', '--runs-dir', 'recorded'];
    const recorded = once(dir, mock);
    const live = {
      args: [BIN, ...mock.slice(0, -1), 'live', '--json', '--quiet'],
      cwd: dir,
      env: benchEnv(),
      after: () => rmSync(join(dir, 'live'), { recursive: true, force: true }),
    };
    const ten = compare(...alternate([replayCmd(dir, [recorded.run_dir]), live], rounds));

    mkdirSync(join(dir, 'docs'));
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, 'docs', `page-${i}.md`), document(10 + i));
    once(dir, ['refine', 'docs', '-r', 'mock', '-c', 'mock', '--runs-dir', 'batch']);
    const runs = readdirSync(join(dir, 'batch'))
      .filter((n) => !n.startsWith('.'))
      .map((n) => join(dir, 'batch', n));
    const batchRounds = Math.max(3, Math.ceil(rounds / 2));
    const twenty = median(alternate([replayCmd(dir, runs)], batchRounds)[0].map((r) => r.ms));
    const ms = (x) => `${x.toFixed(0)} ms`;
    return [
      ['replay of a 10-pass run vs the same run, built-in mock', ms(ten.a), ms(ten.b), `${ten.ratio.toFixed(2)}x`, 'at most 1.2x'],
      [`replay of ${runs.length} recorded runs at once (median of ${batchRounds})`, ms(twenty), '', '', 'under 10 s'],
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rounds = Number(process.env.BENCH_ROUNDS || 7);
  console.log(`replay, ${rounds} rounds, alternating; ratio: the median of per-round ratios`);
  for (const [what, a, b, r, goal] of replayRows(document, rounds))
    console.log(`${what.padEnd(60)} ${a.padStart(9)} ${b.padStart(9)} ${r.padStart(6)}   ${goal}`.trimEnd());
}
