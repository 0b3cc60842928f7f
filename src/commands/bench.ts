/**
 * `bounce bench` (docs/defect-bench.md): scores reviewer/composer pairs on a corpus of
 * documents with planted defects. Each pair refines every document as one batch (the batch
 * machinery of `bounce refine`, handed in by the CLI: a command imports no other command);
 * the pairs run at once. Scores come from the run folders alone, so `--score-runs` scores
 * the same runs, or their replays, again. Not to be confused with `npm run bench`, the
 * project's own speed benchmark (bench/).
 *
 * `bounce bench plant DOC --out DIR`: a copy of DOC with defects planted, and its answer key.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ulid } from 'ulid';
import { BUILTIN_NAMES } from '../adapters/builtins.js';
import { writeFileAtomic } from '../atomic.js';
import { loadConfig, runsDirFor } from '../config/load.js';
import { type Corpus, readCorpus } from '../defects/corpus.js';
import { benchHtml } from '../defects/html.js';
import { answerKeyYaml, keyNameFor } from '../defects/key.js';
import { benchJson, benchTable, type PairRow, pairRow } from '../defects/leaderboard.js';
import { type Pair, parsePairs } from '../defects/pairs.js';
import { DEFAULT_PLANT_COUNT, plantDefects } from '../defects/plant.js';
import { type RunScore, scoreRun } from '../defects/run-score.js';
import { displayPath } from '../documents.js';
import { BounceError, EXIT, isBounceError, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { plural } from '../plural.js';
import { intFlag } from '../request/refine-request.js';
import { listRuns, resolveRunDir } from '../store/resolve-run.js';
import { readManifest, type RunManifest } from '../store/manifest.js';
import { assertRunsDirWritable } from '../store/run-folder.js';

/** The batch refine a bench calls once per pair: `bounce refine <docs...>` in this process (src/commands/batch.ts). */
export type RefineBatch = (opts: { docs: string[] } & Record<string, unknown>, io: Io) => Promise<number>;

export interface BenchOptions {
  corpus?: string;
  pairs?: string[];
  /** Score these batches (ids) or runs (folders, ids) instead of running anything. */
  scoreRuns?: string[];
  passes?: string | number;
  timeout?: string | number;
  maxRepairs?: string | number;
  maxCostUsd?: string | number;
  maxTokens?: string | number;
  maxDispatches?: string | number;
  lint?: string;
  editFormat?: string;
  concurrency?: string | number;
  runsDir?: string;
  config?: string;
  json?: boolean;
  html?: string;
  quiet?: boolean;
}

/** The limits every pair is run with, the same for each: only these flags reach a pair's batch. */
const SHARED_LIMITS = ['passes', 'timeout', 'maxRepairs', 'maxCostUsd', 'maxTokens', 'maxDispatches', 'lint', 'editFormat', 'concurrency', 'config'] as const;

const sink = { write: () => true };

function corpusFacts(corpus: Corpus, label: string) {
  return { label, documents: corpus.documents.length, defects: corpus.documents.reduce((n, d) => n + d.defects.length, 0) };
}

/** A run of the runs folder by id, for a replay's recording; null when it is not there. */
function recordingOf(m: RunManifest, runsDir: string, cwd: string): RunManifest | null {
  if (!m.replay_of) return null;
  try {
    return readManifest(resolveRunDir(m.replay_of, runsDir, cwd));
  } catch {
    return null;
  }
}

/** Scores each run folder; two runs of one pair on one document are refused (score one bench at a time). */
function scoreDirs(dirs: readonly string[], corpus: Corpus, runsDir: string, cwd: string): RunScore[] {
  const scores: RunScore[] = [];
  for (const dir of dirs) {
    let m: RunManifest;
    try {
      m = readManifest(dir);
    } catch (err) {
      throw usageError(
        `${displayPath(dir, cwd, 'absolute')} is not a run folder bounce can read (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
        'name run folders, run ids or batch ids',
        'input',
      );
    }
    const s = scoreRun(dir, m, corpus.documents, recordingOf(m, runsDir, cwd));
    const twice = scores.find((x) => x.pair === s.pair && x.document === s.document);
    if (twice)
      throw usageError(
        `runs ${twice.runId} and ${s.runId} both refined ${s.document} with ${s.pair}`,
        'score the runs of one bench at a time (its batch ids, or the replays of them)',
        'input',
      );
    scores.push(s);
  }
  return scores;
}

/** The run folders `--score-runs` names: each a batch id (every run of it), else a run folder or id. */
function selectScored(args: readonly string[], runsDir: string, cwd: string): string[] {
  const all = listRuns(runsDir);
  const dirs: string[] = [];
  for (const arg of args) {
    const batch = all.filter((e) => e.manifest?.batch_id === arg).map((e) => e.dir);
    for (const d of batch.length ? batch.reverse() : [resolveRunDir(arg, runsDir, cwd)]) if (!dirs.includes(d)) dirs.push(d);
  }
  return dirs;
}

interface PairOutcome {
  pair: Pair;
  batchId: string | null;
  runDirs: string[];
  notRun: string | null;
  exitCode: number;
}

/** One pair's batch: every staged document, quiet, its --json object read back for the runs it made. */
async function runPair(pair: Pair, docs: string[], opts: BenchOptions, runsDir: string, io: Io, refineBatch: RefineBatch): Promise<PairOutcome> {
  let out = '';
  const capture = {
    write: (chunk: string): boolean => {
      out += chunk;
      return true;
    },
  };
  const pairIo: Io = { ...io, stdout: capture, stderr: sink };
  const limits = Object.fromEntries(SHARED_LIMITS.filter((k) => opts[k] !== undefined).map((k) => [k, opts[k]]));
  try {
    const exitCode = await refineBatch({ docs, ...limits, reviewer: pair.reviewer, composer: pair.composer, runsDir, json: true, quiet: true }, pairIo);
    const json = JSON.parse(out) as { batch_id: string | null; runs: { run_dir: string | null }[] };
    return { pair, batchId: json.batch_id, runDirs: json.runs.map((r) => r.run_dir).filter((d): d is string => d !== null), notRun: null, exitCode };
  } catch (err) {
    // A pair whose agents cannot run here (not installed, no credentials, a bad name) is not run: not a zero.
    if (isBounceError(err) && err.exitCode === EXIT.usage) return { pair, batchId: null, runDirs: [], notRun: err.line, exitCode: err.exitCode };
    throw err;
  }
}

/** Known agent names, to split `REVIEWER/COMPOSER`: the built-ins, `cmd`, and the config's agents. */
function agentNames(io: Io, config?: string): string[] {
  return [...BUILTIN_NAMES, 'cmd', ...Object.keys(loadConfig(io.cwd, io.env, config).config.agents)];
}

export async function runBench(opts: BenchOptions, io: Io, refineBatch: RefineBatch): Promise<number> {
  if (opts.corpus === undefined)
    throw usageError('bounce bench needs --corpus DIR', 'pass the folder of NAME.md documents and their NAME.defects.yaml answer keys');
  const corpus = readCorpus(opts.corpus, io.cwd);
  const facts = corpusFacts(corpus, opts.corpus);
  const runsDir = runsDirFor(io.cwd, loadConfig(io.cwd, io.env, opts.config), opts.runsDir);
  const pairs = opts.pairs?.length ? parsePairs(opts.pairs, agentNames(io, opts.config)) : [];
  if (opts.concurrency !== undefined) intFlag('--concurrency', opts.concurrency, 1, 1, 64);
  const runsDirFlag = opts.runsDir === undefined ? '' : ` --runs-dir ${opts.runsDir}`;
  let rows: PairRow[];
  let rescore: string | null;
  if (opts.scoreRuns?.length) {
    const scores = scoreDirs(selectScored(opts.scoreRuns, runsDir, io.cwd), corpus, runsDir, io.cwd);
    const named = pairs.length ? pairs : [...new Map(scores.map((s) => [s.pair, { pair: s.pair, reviewer: s.reviewer, composer: s.composer }])).values()];
    rows = named.map((p) =>
      pairRow(
        { ...p, batchId: null, notRun: null },
        scores.filter((s) => s.reviewer === p.reviewer && s.composer === p.composer),
        corpus,
      ),
    );
    rescore = `bounce bench --corpus ${opts.corpus} --score-runs ${opts.scoreRuns.join(' ')}${runsDirFlag}`;
  } else {
    if (pairs.length === 0)
      throw usageError('bounce bench needs --pairs REVIEWER/COMPOSER[,...] (or --score-runs)', 'name the pairs to run, e.g. --pairs claude/codex,codex/claude');
    assertRunsDirWritable(runsDir);
    if (!opts.quiet)
      io.stderr.write(
        `bench: ${plural(facts.documents, 'document')}, ${plural(facts.defects, 'defect')}; ${plural(pairs.length, 'pair')} at once: ${pairs.map((p) => p.pair).join(', ')}\n`,
      );
    // The agents get copies of the documents alone, in a folder of their own: never an answer key.
    const staging = join(runsDir, `.bench-${ulid()}`);
    mkdirSync(staging, { recursive: true, mode: 0o700 });
    let outcomes: PairOutcome[];
    try {
      const docs = corpus.documents.map((d) => {
        const path = join(staging, d.file);
        writeFileAtomic(path, readFileSync(d.path));
        return displayPath(path, io.cwd, 'absolute');
      });
      outcomes = await Promise.all(
        pairs.map(async (p) => {
          const o = await runPair(p, docs, opts, runsDir, io, refineBatch);
          if (!opts.quiet)
            io.stderr.write(
              o.notRun
                ? `bench: ${p.pair}: not run: ${o.notRun}\n`
                : `bench: ${p.pair}: batch ${o.batchId} ended (${plural(o.runDirs.length, 'run')}, exit ${o.exitCode})\n`,
            );
          return o;
        }),
      );
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    if (io.signal.aborted) {
      const ids = outcomes.map((o) => o.batchId).filter(Boolean);
      throw new BounceError(`bench interrupted: ${ids.map((id) => `bounce resume --batch ${id}`).join('; ')} finishes its runs`, {
        exitCode: EXIT.interrupted,
        code: 'interrupted',
        hint: ids.length ? `then bounce bench --corpus ${opts.corpus} --score-runs ${ids.join(' ')}${runsDirFlag} scores them` : undefined,
      });
    }
    rows = outcomes.map((o) =>
      pairRow({ ...o.pair, batchId: o.batchId, notRun: o.notRun }, o.notRun ? [] : scoreDirs(o.runDirs, corpus, runsDir, io.cwd), corpus),
    );
    const ids = outcomes.map((o) => o.batchId).filter((id): id is string => id !== null);
    rescore = ids.length ? `bounce bench --corpus ${opts.corpus} --score-runs ${ids.join(' ')}${runsDirFlag}` : null;
  }
  const json = benchJson(facts, rows, rescore);
  if (opts.html !== undefined) {
    const path = resolve(io.cwd, opts.html);
    writeFileAtomic(path, benchHtml(json, new Date().toISOString()));
    if (!opts.quiet) io.stderr.write(`bench page: ${displayPath(path, io.cwd, 'absolute')}\n`);
  }
  io.stdout.write(opts.json ? `${JSON.stringify(json)}\n` : benchTable(json));
  return rows.some((r) => r.status === 'not-run') ? EXIT.notConverged : EXIT.ok;
}

export interface PlantOptions {
  out?: string;
  seed?: string | number;
  count?: string | number;
  json?: boolean;
  quiet?: boolean;
}

/** `bounce bench plant DOC --out DIR`: DIR/NAME.md with defects planted, and DIR/NAME.defects.yaml; nothing is overwritten. */
export async function runBenchPlant(doc: string, opts: PlantOptions, io: Io): Promise<number> {
  if (opts.out === undefined) throw usageError('bounce bench plant needs --out DIR', 'name the folder to write the planted copy and its answer key into');
  const seed = intFlag('--seed', opts.seed, 1, 0, 2 ** 31 - 1);
  const count = intFlag('--count', opts.count, DEFAULT_PLANT_COUNT, 1, 50);
  const source = resolve(io.cwd, doc);
  if (!/\.md$/i.test(source)) throw usageError(`${doc} is not a Markdown document (NAME.md)`, 'plant defects in a .md file', 'input');
  if (!existsSync(source)) throw usageError(`${doc} does not exist`, 'check the path', 'input');
  const text = readFileSync(source, 'utf8');
  const planted = plantDefects(text, { seed, count });
  if (planted.defects.length === 0)
    throw usageError(
      `${doc}: no place to plant a defect (no number stated twice, no "Long Name (ABBR)", no numbered list of three steps, no step or section reference)`,
      'plant by hand: write NAME.defects.yaml yourself (docs/defect-bench.md)',
      'input',
    );
  const dir = resolve(io.cwd, opts.out);
  const docOut = join(dir, basename(source));
  const keyOut = join(dir, keyNameFor(basename(source)));
  for (const p of [docOut, keyOut])
    if (existsSync(p)) throw usageError(`${displayPath(p, io.cwd)} exists already`, 'pick another --out folder: bench plant overwrites nothing', 'input');
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(docOut, planted.text);
  writeFileAtomic(keyOut, answerKeyYaml(planted.defects));
  if (opts.json) io.stdout.write(`${JSON.stringify({ document: docOut, answer_key: keyOut, seed, defects: planted.defects })}\n`);
  else io.stdout.write(`${displayPath(docOut, io.cwd)}\n${displayPath(keyOut, io.cwd)}\n`);
  if (!opts.quiet && !opts.json)
    io.stderr.write(`planted ${plural(planted.defects.length, 'defect')} (seed ${seed}): ${planted.defects.map((d) => d.kind).join(', ')}\n`);
  return EXIT.ok;
}
