/** What `bounce fork` decides before it runs: which passes it takes over from the original, and the plan it goes on with. */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { verifyRun } from '../audit/verify.js';
import { runsDirFor, loadConfig } from '../config/load.js';
import { outputTarget } from './output-target.js';
import type { RunPlan } from '../engine/plan.js';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import type { Probe } from '../kit/detect.js';
import { scanNotes } from '../protocol/scanner.js';
import { runReading } from '../audit/run-notes.js';
import { recordAnchor } from '../store/dispatch-record.js';
import type { PassRecord, RunManifest } from '../store/manifest.js';
import type { ForkBase } from '../store/recorder.js';
import { assertRunsDirWritable } from '../store/run-folder.js';
import { runHintFlags } from '../store/run-location.js';
import { budgetFromFlags } from './budget-flags.js';
import { contextForDocument, readContext, readGoal } from './context.js';
import { completePlan, requestFromManifest } from './plan-request.js';
import { editFormatFlag, intFlag, secondsFlag } from './refine-request.js';
import { readForResume } from './resume-request.js';

export interface ForkOptions {
  run: string;
  /** `--from-pass K`: the first pass the fork runs itself; passes 1..K-1 are the original's. */
  fromPass?: string | number;
  runsDir?: string;
  out?: string;
  json?: boolean;
  quiet?: boolean;
  config?: string;
  passes?: string | number;
  reviewer?: string;
  composer?: string;
  goal?: string;
  goalFile?: string;
  context?: string[];
  prompts?: string;
  editFormat?: string;
  timeout?: string | number;
  maxCostUsd?: string | number;
  maxTokens?: string | number;
  maxDispatches?: string | number;
}

/** A run id without its `-<yyyymmdd>-<hhmmss>-<id>` tail: the name a fork's id starts with too. */
export const runName = (runId: string): string => runId.replace(/-\d{8}-\d{6}-[0-9A-Za-z]{6}$/, '');

/** The passes a fork from pass K may take over: each of 1..K-1 must have completed in the original. */
export function forkPass(m: Pick<RunManifest, 'run_id' | 'pass_records'>, value: string | number | undefined): number {
  const completed = new Set(m.pass_records.filter((p) => p.status === 'completed').map((p) => p.pass));
  let done = 0;
  while (completed.has(done + 1)) done++;
  const range = done === 0 ? 'it has no completed pass, so only --from-pass 1' : `--from-pass 1 to ${done + 1}`;
  if (value === undefined) throw usageError('bounce fork needs --from-pass K: the first pass the fork runs itself', `for run ${m.run_id}, ${range}`, 'usage');
  const text = String(value).trim();
  const k = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(k) || k < 1 || k > done + 1)
    throw usageError(
      `--from-pass ${JSON.stringify(text)} is not a pass run ${m.run_id} can be forked from: passes 1 to ${done} completed`,
      `pass ${range}`,
      'usage',
    );
  return k;
}

/**
 * The original's pass records before `k`, as the fork keeps them: each names the run whose
 * folder holds its records (a fork of a fork keeps the oldest), and each record's sha256 as it
 * is now, so `bounce audit` of the fork finds a change made to the original afterwards.
 */
function copiedPasses(m: RunManifest, runDir: string, k: number): PassRecord[] {
  return m.pass_records
    .filter((p) => p.pass < k)
    .map((p) => {
      const from = p.copied_from ?? { run: m.run_id, dir: resolve(runDir) };
      const dispatches = p.dispatches.map((d) => {
        const path = d.record ? join(p.copied_from?.dir ?? runDir, d.record) : null;
        const sha = d.record_sha256 ?? (path && existsSync(path) ? recordAnchor(readFileSync(path)) : undefined);
        return { ...d, ...(sha ? { record_sha256: sha } : {}) };
      });
      return { ...structuredClone(p), copied_from: from, dispatches };
    });
}

/** What the fork's folder starts with: the copied passes and their documents, read from the original. */
export function forkBase(m: RunManifest, runDir: string, k: number): ForkBase {
  const passes = copiedPasses(m, runDir, k);
  const files = [...new Set(passes.flatMap((p) => (p.status === 'completed' && p.document ? [p.document] : [])))];
  const documents = files.map((file) => ({ file, text: readFileSync(join(runDir, file), 'utf8') }));
  const last = [...passes].reverse().find((p) => p.status === 'completed' && p.document);
  const lastText = last ? documents.find((d) => d.file === last.document)!.text : readFileSync(join(runDir, m.original), 'utf8');
  return {
    origin: { run: m.run_id, pass: k, dir: resolve(runDir) },
    passes,
    documents,
    notesLeft: scanNotes(lastText, runReading(m)).length,
  };
}

/** A fork acts only on an original that is what its records say: what it copies must be what was recorded. */
function refuseUnverified(m: RunManifest, runDir: string, io: Io, config: string | undefined): void {
  const { problems } = verifyRun(runDir);
  const first = problems[0];
  if (!first) return;
  const more = problems.length > 1 ? ` and ${problems.length - 1} more` : '';
  throw usageError(
    `run ${m.run_id} does not match its records: ${first.message} (${first.file})${more}`,
    `a fork copies only what bounce recorded; bounce audit ${m.run_id}${runHintFlags(runDir, io, config)} lists every problem`,
    'tampered',
  );
}

/** Reads and checks the original, and returns the fork's plan and what it takes over. Every refusal is exit 2, before anything is written. */
export async function forkPlan(runDir: string, opts: ForkOptions, io: Io, probe: Probe): Promise<{ plan: RunPlan; base: ForkBase; original: RunManifest }> {
  const budget = budgetFromFlags(opts);
  const m = readForResume(runDir);
  const k = forkPass(m, opts.fromPass);
  if (m.status === 'running')
    throw usageError(
      `run ${m.run_id} is still running (or crashed)`,
      `wait for it to end, or finish it with bounce resume ${m.run_id}${runHintFlags(runDir, io, opts.config)}, then fork it`,
      'usage',
    );
  refuseUnverified(m, runDir, io, opts.config);
  const agents = { ...(opts.reviewer !== undefined ? { reviewer: opts.reviewer } : {}), ...(opts.composer !== undefined ? { composer: opts.composer } : {}) };
  const { request, config } = requestFromManifest(m, runDir, io, { ...opts, timeoutS: secondsFlag(opts.timeout), budget, agents });
  request.passes = intFlag('--passes', opts.passes, Math.max(m.passes.requested, k), 1, config.max_passes);
  if (request.passes < k) throw usageError(`--passes ${request.passes} ends before pass ${k}, where the fork begins`, `pass --passes ${k} or more`, 'usage');
  // The fork is a run of its own: its output goes to its folder unless --out says otherwise, never over the input.
  request.output = outputTarget({ out: opts.out, json: opts.json }, m.input.path, io.cwd);
  request.runsDir = opts.runsDir !== undefined ? runsDirFor(io.cwd, loadConfig(io.cwd, io.env, opts.config), opts.runsDir) : request.runsDir;
  request.name = runName(m.run_id);
  delete request.batchId;
  if (opts.prompts !== undefined) request.promptsDir = resolve(io.cwd, opts.prompts);
  if (opts.editFormat !== undefined) {
    delete request.replyMode;
    request.editFormat = editFormatFlag(opts.editFormat);
  }
  if (opts.goal !== undefined || opts.goalFile !== undefined) request.goal = readGoal(opts, undefined, io.cwd);
  if (opts.context !== undefined)
    request.context = contextForDocument(await readContext(opts.context, io.cwd, io.cwd, config.context_max_bytes), request.input, config.context_max_bytes);
  assertRunsDirWritable(request.runsDir);
  const { plan } = await completePlan(request, config, io.env, { checkAgents: true, probe });
  return { plan, base: forkBase(m, runDir, k), original: m };
}
