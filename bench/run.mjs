#!/usr/bin/env node
// npm run bench: runner overhead per pass with an instant adapter, model calls per run,
// scanner speed on large documents, then whole processes: start-up, the fixed cost of a run,
// per-pass overhead and whole runs (whole-runs.mjs). A benchmark, not a test: it reports, it
// does not fail on a slow machine (goals are printed next to the numbers). docs/benchmark.md
// says what each row means.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { main } from '../dist/src/cli.js';
import { scanNotes } from '../dist/src/protocol/scanner.js';
import { median } from './timing.mjs';
import { document } from './document.mjs';
import { wholeRuns } from './whole-runs.mjs';
import { hostileRows } from './scanner-hostile.mjs';
import { realClis } from './real-clis.mjs';
import { verifyPerDocument } from './verify.mjs';

const RUNS = Number(process.env.BENCH_RUNS || 15);
/** Rounds of each whole-process comparison. */
const ROUNDS = Number(process.env.BENCH_ROUNDS || 7);

function fakeIo(cwd) {
  const sink = {
    text: '',
    write(s) {
      this.text += s;
      return true;
    },
    isTTY: false,
  };
  const stdin = new PassThrough();
  stdin.end();
  return { cwd, env: { ...process.env, NO_COLOR: '1' }, stdout: sink, stderr: { ...sink, text: '' }, stdin, signal: new AbortController().signal };
}

async function runnerOverhead() {
  const dir = mkdtempSync(join(tmpdir(), 'bounce-bench-'));
  writeFileSync(join(dir, 'doc.md'), document(40));
  const overheads = [];
  let calls = 0;
  for (let i = 0; i < RUNS; i++) {
    const io = fakeIo(dir);
    const t0 = performance.now();
    const code = await main(['node', 'bounce', 'refine', 'doc.md', '--reviewer', 'mock', '--composer', 'mock', '--quiet', '--name', `bench-${i}`], io);
    const wall = performance.now() - t0;
    if (code !== 0) throw new Error(`bench run failed with exit ${code}: ${io.stderr.text}`);
    const runId = readdirSync(join(dir, 'runs')).filter((n) => n.startsWith(`bench-${i}-`))[0];
    const manifest = JSON.parse(readFileSync(join(dir, 'runs', runId, 'run.json'), 'utf8'));
    const adapterMs = manifest.pass_records.flatMap((p) => p.dispatches).reduce((sum, d) => sum + (d.duration_ms ?? 0), 0);
    calls = manifest.totals.dispatches;
    overheads.push((wall - adapterMs) / manifest.passes.run);
  }
  rmSync(dir, { recursive: true, force: true });
  return { perPass: median(overheads), calls };
}

function scannerSpeed() {
  const lines = [];
  let i = 0;
  while (lines.join('\n').length < 2_000_000) {
    lines.push(
      `Paragraph ${i} with \`code [CONTESTED] span\` and text.`,
      i % 10 === 0 ? '[CLARIFY] Which one? (A) this (B) that' : '',
      '```',
      '[CONTESTED] inside a fence',
      '```',
      '',
    );
    i++;
  }
  const text = lines.join('\n');
  const times = [];
  let notes = 0;
  for (let k = 0; k < 5; k++) {
    const t0 = performance.now();
    notes = scanNotes(text, { syntax: 'markdown' }).length;
    times.push(performance.now() - t0);
  }
  return { ms: median(times), bytes: text.length, notes };
}

function timeScan(text) {
  const times = [];
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    scanNotes(text, { syntax: 'markdown' });
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** Peak memory of a whole run on a document near max_bytes, measured in a fresh process. */
function peakMemory() {
  const dir = mkdtempSync(join(tmpdir(), 'bounce-bench-mem-'));
  writeFileSync(join(dir, 'big.md'), document(15_000).slice(0, 1_900_000));
  const cli = new URL('../dist/src/cli.js', import.meta.url).href;
  const code = `const { main } = await import(${JSON.stringify(cli)});
const code = await main(['node', 'bounce', 'refine', 'big.md', '--reviewer', 'mock', '--composer', 'mock', '--quiet', '--out', 'out.md']);
process.stdout.write(JSON.stringify({ code, maxRssKb: process.resourceUsage().maxRSS }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: dir, encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  const out = JSON.parse(r.stdout.split('\n').filter(Boolean).pop());
  if (out.code !== 0) throw new Error(`memory run failed: ${r.stderr}`);
  return out.maxRssKb / 1024;
}

const overhead = await runnerOverhead();
const memoryMb = peakMemory();
const scan = scannerSpeed();
const quoted = timeScan('> line [CLARIFY] x\n'.repeat(100_000));
const noMarkers = timeScan(document(20_000).slice(0, 2_000_000));
const rows = [
  ['model calls, 2-pass converged run', String(overhead.calls), 'target: 2'],
  ['runner overhead per pass (median)', `${overhead.perPass.toFixed(1)} ms`, 'target: < 50 ms'],
  [`scan of ${(scan.bytes / 1e6).toFixed(1)} MB markdown (${scan.notes} notes)`, `${scan.ms.toFixed(0)} ms`, 'target: < 1000 ms'],
  ['scan of one 1.9 MB quoted paragraph, 100k notes', `${quoted.toFixed(0)} ms`, 'target: < 1000 ms'],
  ['scan of 2 MB markdown without markers', `${noMarkers.toFixed(0)} ms`, 'target: < 50 ms'],
  ['verify, per document (10 attested 2-pass runs)', `${(await verifyPerDocument(RUNS)).toFixed(1)} ms`, 'target: < 100 ms'],
  ['peak memory of a run on a 1.9 MB document', `${memoryMb.toFixed(0)} MB`, 'target: < 300 MB'],
  // Hostile documents must not stall a CI gate: time stays linear in the size.
  ...hostileRows([1_000_000]),
];
for (const [what, value, target] of rows) console.log(`${what.padEnd(56)} ${value.padStart(10)}   ${target}`);

// scan at scale (bench/scan-scale.mjs): many small files beside a commonmark.js parse of them, and memory on one long line.
const { scaleRows, markerLineMemory } = await import('./scan-scale.mjs');
console.log(`\n${ROUNDS} rounds, alternating; ratio: the median of per-round ratios to the commonmark.js parse`);
for (const [what, a, b, r, goal] of scaleRows(ROUNDS)) console.log(`${what.padEnd(78)} ${a.padStart(8)} ${b.padStart(8)} ${r.padStart(6)}   ${goal}`);
for (const [what, value, ratio, goal] of await markerLineMemory()) console.log(`${what.padEnd(78)} ${value.padStart(8)} ${ratio.padStart(15)}   ${goal}`);

const whole = wholeRuns(document, ROUNDS);
const ms = (x) => (x === null ? '?' : `${x.toFixed(0)} ms`);
const ratio = (c) => `${c.ratio.toFixed(2)}x`;
const onePass = (p) => `${ms(p.whole)} (${ms(p.bounce)} outside agent calls)`;
const table = [
  ['whole process, medians of alternating runs', 'bounce', 'baseline', 'ratio', 'goal'],
  ["bounce --version vs node -e ''", ms(whole.version.a), ms(whole.version.b), ratio(whole.version), 'within 2x'],
  ["bounce scan <1 KB file> vs node -e ''", ms(whole.scan.a), ms(whole.scan.b), ratio(whole.scan), ''],
  ['fixed cost: a 1-pass run, mock agent', ms(whole.fixed), '', '', ''],
  ['per pass at 1 KB: (4-pass - 2-pass) / 2, mock', onePass(whole.small), '', '', '< 50 ms'],
  ['per pass at 1.9 MB: (4-pass - 2-pass) / 2, mock', onePass(whole.big), '', '', '< 50 ms'],
  ['2-pass run: cmd: instant adapter vs mock', ms(whole.cmdVsMock.a), ms(whole.cmdVsMock.b), ratio(whole.cmdVsMock), ''],
];
console.log(`\n${whole.rounds} rounds (the 1.9 MB runs ${whole.bigRounds}); baseline: the command after "vs"; ratio: the median of per-round ratios`);
for (const [what, a, b, r, goal] of table) console.log(`${what.padEnd(48)} ${a.padStart(36)} ${b.padStart(9)} ${r.padStart(6)}   ${goal}`.trimEnd());

// Replay (bench/replay.mjs): a recorded run answered from its records, against making it with the mock.
{
  const { replayRows } = await import('./replay.mjs');
  console.log(`\nreplay, ${ROUNDS} rounds, alternating; ratio: the median of per-round ratios`);
  for (const [what, a, b, r, goal] of replayRows(document, ROUNDS))
    console.log(`${what.padEnd(60)} ${a.padStart(9)} ${b.padStart(9)} ${r.padStart(6)}   ${goal}`.trimEnd());
}

// Batches, against an agent that answers after 1 s (bench/batch.mjs); BENCH_BATCH=0 leaves them out.
if (process.env.BENCH_BATCH !== '0') {
  const { batchRows } = await import('./batch.mjs');
  console.log('\nbatch refine (an OpenAI-compatible server that answers every call after 1 s)');
  for (const [what, value, goal] of await batchRows()) console.log(`${what.padEnd(80)} ${value.padStart(14)}   ${goal}`);
}

// A whole run with the real CLIs against the scripted model server, beside the two bare CLI calls.
// BENCH_COMPARE_BIN: other bin/bounce.js files (a build of an earlier commit, say), separated by ':'.
// BENCH_REFERENCE: the reference shell script (agent-bouncer.sh), timed in the same alternation.
const compareBins = (process.env.BENCH_COMPARE_BIN ?? '').split(':').filter(Boolean);
const clis = await realClis(ROUNDS, compareBins, process.env.BENCH_REFERENCE || null);
if (clis === null) console.log('\nreal CLIs: test/agents/node_modules/.bin/claude or codex is missing (npm test installs them); skipped');
else {
  console.log(`\n${clis.rounds} rounds, alternating; ratio: the median of per-round ratios to the bare calls`);
  const rows = [
    ['2-pass run, real claude + codex CLIs (scripted model)', ms(clis.bounce.ms), `${clis.bounce.ratio.toFixed(2)}x`, 'goal: <= 1.14 s; moonshot <= 1.1x'],
    ['  bare: one claude -p + one codex exec', ms(clis.bare), '1.00x', ''],
    ...clis.others.map((o) => [`  the same run with ${o.bin}`, ms(o.ms), `${o.ratio.toFixed(2)}x`, '']),
    ...(clis.reference
      ? [
          ['  reference: agent-bouncer.sh, 2 passes (BENCH_REFERENCE)', ms(clis.reference.ms), `${clis.reference.ratio.toFixed(2)}x`, ''],
          ['  bounce / reference (median of per-round ratios)', '', `${clis.reference.bounceRatio.toFixed(2)}x`, 'goal: <= 0.75x'],
        ]
      : []),
  ];
  for (const [what, a, r, goal] of rows) console.log(`${what.padEnd(70)} ${a.padStart(9)} ${r.padStart(6)}   ${goal}`.trimEnd());
}
if (process.env.BENCH_EDITS !== '0') (await import('./edits.mjs')).printEditRows(); // edit vs whole replies on long documents
await (await import('./context.mjs')).printContextRows();
