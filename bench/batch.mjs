// The batch rows of npm run bench: with an agent that answers each call after a fixed 1 s
// (bench/slow-model.mjs, an OpenAI-compatible server in its own process), a batch of
// two-pass documents at concurrency 1 (8 documents), 4 and 8 (48 documents) against
// (documents / concurrency) times one single-document run (a whole `bounce` process, the
// median of three). Goal: 48 documents at concurrency 8 within 1.2x of 6 single runs.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, timeOnce } from './timing.mjs';

const BIN = fileURLToPath(new URL('../bin/bounce.js', import.meta.url));
const SERVER = fileURLToPath(new URL('./slow-model.mjs', import.meta.url));
const DOCUMENTS = 48;

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.setEncoding('utf8');
    child.stdout.once('data', (port) => resolve({ port: Number(port.trim()), stop: () => child.kill('SIGTERM') }));
    child.once('error', reject);
  });
}

function env(port) {
  const e = { ...process.env, NO_COLOR: '1', OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` };
  delete e.BOUNCE_CONFIG;
  delete e.OPENAI_API_KEY;
  return e;
}

const AGENTS = ['-r', 'openai:bench-model', '-c', 'openai:bench-model', '-p', '2', '--all-passes', '--quiet'];

/** Milliseconds of one single-document run (a whole process), the median of three. */
function single(dir, port) {
  const times = [0, 1, 2].map(
    (i) => timeOnce({ args: [BIN, 'refine', join('docs', `d${i}.md`), ...AGENTS, '--runs-dir', 'runs-single'], cwd: dir, env: env(port) }).ms,
  );
  rmSync(join(dir, 'runs-single'), { recursive: true, force: true });
  return median(times);
}

function batch(dir, port, concurrency, documents) {
  const paths = Array.from({ length: documents }, (_, i) => join('docs', `d${i}.md`));
  const r = timeOnce({
    args: [BIN, 'refine', ...paths, ...AGENTS, '--concurrency', String(concurrency), '--runs-dir', 'runs-batch'],
    cwd: dir,
    env: env(port),
  });
  rmSync(join(dir, 'runs-batch'), { recursive: true, force: true });
  return r.ms;
}

/** Rows for the bench table: [label, value, goal]. */
export async function batchRows(rounds = 1) {
  const dir = mkdtempSync(join(tmpdir(), 'bounce-bench-batch-'));
  mkdirSync(join(dir, 'docs'));
  for (let i = 0; i < DOCUMENTS; i++)
    writeFileSync(join(dir, 'docs', `d${i}.md`), `# Document ${i}\n\nParagraph one of document ${i} says what part ${i} does.\n\nParagraph two says why.\n`);
  const server = await startServer();
  try {
    const rows = [];
    // Concurrency 1 takes 8 documents, not 48: it is the sequential case, and 48 would add 100 s.
    for (const [c, documents] of [
      [1, 8],
      [4, DOCUMENTS],
      [8, DOCUMENTS],
    ]) {
      const ratios = [];
      const times = [];
      for (let round = 0; round < rounds; round++) {
        const one = single(dir, server.port);
        const whole = batch(dir, server.port, c, documents);
        ratios.push(whole / ((documents / c) * one));
        times.push(whole);
      }
      rows.push([
        `batch of ${documents} at concurrency ${c} vs ${documents / c} single runs (1 s agent, 2 passes)`,
        `${(median(times) / 1000).toFixed(1)} s, ${median(ratios).toFixed(2)}x`,
        c === 8 ? 'at most 1.2x' : '-',
      ]);
    }
    return rows;
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [label, value, goal] of await batchRows(Number(process.env.BENCH_ROUNDS_BATCH || 1))) console.log(`${label}: ${value} (goal: ${goal})`);
}
