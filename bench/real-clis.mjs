// The real-CLI half of npm run bench: a whole 2-pass `bounce refine` with the real Claude
// Code and Codex CLIs (the pinned ones of test/agents) against the scripted model server of the tests,
// beside one bare `claude -p` plus one bare `codex exec` against the same server. The server
// runs in this process, so every command is spawned asynchronously. Nothing reaches a
// provider: the CLIs are pointed at 127.0.0.1 as the end-to-end tests point them.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median } from './timing.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/bounce.js');
// Where test/support/agents.ts (the owner of this path) has the pinned CLIs installed; npm test installs them.
const BIN_DIR = join(ROOT, 'test/agents/node_modules/.bin');
const DOC = '# Launch checklist\n\nWe launch on Monday after the load test passes.\n\nSupport is staffed by two people during launch week.\n';

/** The scripted model server is TypeScript test support: transpiled (no type check) into `dir` and imported. */
async function loadModelServer(dir) {
  const ts = (await import('typescript')).default;
  for (const name of ['model-server', 'model-turn', 'model-wire']) {
    const source = readFileSync(join(ROOT, 'test/support', `${name}.ts`), 'utf8');
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    writeFileSync(join(dir, `${name}.js`), outputText);
  }
  return import(join(dir, 'model-server.js'));
}

/** Runs `program args` with `input` on stdin, asynchronously; resolves to its wall time in ms (`prepare` runs first, untimed). */
function timeOnce({ program, args, input = '', cwd, env, exit = 0, prepare }) {
  prepare?.();
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(program, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code !== exit) reject(new Error(`${program} ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').pop()}`));
      else resolve(ms);
    });
    child.stdin.end(input);
  });
}

/** A sequence of commands timed as one figure. */
async function timeAll(commands) {
  let ms = 0;
  for (const c of commands) ms += await timeOnce(c);
  return ms;
}

/**
 * `extraBins`: other `bin/bounce.js` files to time the same run with (BENCH_COMPARE_BIN, say
 * a build of an earlier commit), alternated with the rest. `reference`: the reference shell
 * script (`agent-bouncer.sh` of the co-evolution project, BENCH_REFERENCE), run as
 * `bash <script> <doc> 2 claude codex` on a copy of the document in the same alternation.
 * The server answers its prompts (which carry no bounce document) with the document and one
 * [CONTESTED] note, so that it makes both passes.
 */
export async function realClis(rounds, extraBins = [], reference = null) {
  if (!existsSync(join(BIN_DIR, 'claude')) || !existsSync(join(BIN_DIR, 'codex'))) return null;
  const dir = mkdtempSync(join(tmpdir(), 'bounce-bench-clis-'));
  const { startModelServer } = await loadModelServer(dir);
  const server = await startModelServer({ plainReply: `${DOC}\n[CONTESTED] Name the Monday.\n` });
  try {
    const home = join(dir, 'home');
    mkdirSync(join(home, 'codex'), { recursive: true });
    mkdirSync(join(home, 'claude'), { recursive: true });
    const toml = ['model_provider = "bounce-test"', 'model = "mock-model"', '', '[model_providers.bounce-test]', 'name = "Bounce test"'];
    toml.push(`base_url = "${server.url}/v1"`, 'wire_api = "responses"', 'env_key = "BOUNCE_TEST_CODEX_KEY"', '');
    writeFileSync(join(home, 'codex', 'config.toml'), toml.join('\n'));
    const work = join(dir, 'work');
    mkdirSync(work);
    const doc = DOC;
    writeFileSync(join(work, 'doc.md'), doc);
    const env = {
      PATH: `${BIN_DIR}:${process.env.PATH}`,
      HOME: home,
      XDG_CACHE_HOME: join(home, 'cache'),
      CLAUDE_CONFIG_DIR: join(home, 'claude'),
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-ant-bench-0000000000',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CODEX_HOME: join(home, 'codex'),
      BOUNCE_TEST_CODEX_KEY: 'sk-bench-0000000000',
      NO_COLOR: '1',
    };
    const refine = (bin) => [
      {
        program: process.execPath,
        args: [bin, 'refine', 'doc.md', '--reviewer', 'claude', '--composer', 'codex', '--all-passes', '--quiet', '--runs-dir', 'runs'],
        cwd: work,
        env,
      },
    ];
    const bare = [
      { program: join(BIN_DIR, 'claude'), args: ['-p'], input: doc, cwd: work, env },
      { program: join(BIN_DIR, 'codex'), args: ['exec', '--skip-git-repo-check', '-'], input: doc, cwd: work, env },
    ];
    // The reference refines its document in place: each round starts from a fresh copy.
    const referenceSide = reference
      ? [
          {
            program: 'bash',
            args: [reference, 'ref-doc.md', '2', 'claude', 'codex'],
            cwd: work,
            env,
            prepare: () => writeFileSync(join(work, 'ref-doc.md'), doc),
          },
        ]
      : null;
    const sides = [refine(BIN), bare, ...extraBins.map(refine), ...(referenceSide ? [referenceSide] : [])];
    // One untimed round: the CLIs' first start, and bounce's cache of their versions, as on a machine in use.
    for (const side of sides) await timeAll(side);
    const series = sides.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (const [i, side] of sides.entries()) series[i].push(await timeAll(side));
      rmSync(join(work, 'runs'), { recursive: true, force: true });
    }
    const [a, b, ...rest] = series;
    const others = rest.slice(0, extraBins.length);
    const ref = referenceSide ? rest[extraBins.length] : null;
    const vsBare = (xs) => ({ ms: median(xs), ratio: median(xs.map((x, i) => x / b[i])) });
    return {
      rounds,
      bounce: vsBare(a),
      bare: median(b),
      others: others.map((xs, i) => ({ bin: extraBins[i], ...vsBare(xs) })),
      // bounce's time over the reference's, the median of per-round ratios.
      reference: ref ? { ...vsBare(ref), bounceRatio: median(a.map((x, i) => x / ref[i])) } : null,
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
