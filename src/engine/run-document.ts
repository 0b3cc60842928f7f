import { readFileSync } from 'node:fs';
import { nextTurn } from './backoff.js';
import { EXIT, isBounceError, storageCause, usageError } from '../errors.js';
import { cacheHitsOf, type RunExtension } from '../store/manifest.js';
import { type ForkBase, type ManifestView, RecorderCrashed, RunRecorder } from '../store/recorder.js';
import type { FinalStatus, RunErrorType } from '../vocabulary.js';
import { BudgetAccount, hasLimit, spentOf } from './budget.js';
import { type Clock, systemClock } from './clock.js';
import type { EngineDeps } from './deps.js';
import { agentRecord, evidenceOf, openingOf } from './opening.js';
import { policyOf } from './policy.js';
import { writeOutput } from './output.js';
import { NoteOrigins } from '../protocol/ledger.js';
import { diffNotes } from '../protocol/scanner.js';
import { replayOrigins } from './notes-ledger.js';
import { resumePoint } from './resume-point.js';
import { type Current, type RunContext, runPass, scan } from './pass.js';
import { type RunPlan, roleForPass, seatForPass } from './plan.js';
import { countWords } from '../text/words.js';

export const EXIT_FOR_STATUS: Readonly<Record<FinalStatus, number>> = {
  converged: EXIT.ok,
  'not-converged': EXIT.notConverged,
  failed: EXIT.agent,
  interrupted: EXIT.interrupted,
};

/** How a run ended. The engine prints nothing: commands turn this into output. */
export interface RunResult {
  runId: string;
  runDir: string;
  status: FinalStatus;
  exitCode: number;
  /** The converged document, when there is one. */
  document: string | null;
  /** Where the converged document was written (final.<ext>, --out FILE or the input); null for --out - or no output. */
  outputPath: string | null;
  notesLeft: number | null;
  error: { type: RunErrorType; message: string; resets_at?: string | null } | null;
  /** run.json as the run left it. */
  manifest: ManifestView;
}

/** Where to pick a run up again: its folder (the plan is the recorded one, rebuilt). */
export interface ResumeFrom {
  runDir: string;
  /** The folder was made by `createRun` for this very session: the run's first, not a resume. */
  fresh?: boolean;
  /**
   * The release of the run's lock, which this process holds already (`createRun` kept it, or a
   * batch's resume took it when it checked the run): the run takes it over instead of taking
   * the lock again, so a run waiting for its turn is never unlocked (a `kill -9` then shows it `crashed`).
   */
  lock?: () => void;
  /**
   * `bounce resume --passes N` (`--reviewer`, `--composer`): the plan's pass budget, agents and
   * policy replace the recorded ones (run.json's `extensions` says so), and the run goes on from
   * its last completed pass even when that one had converged.
   */
  extend?: boolean;
}

/**
 * Makes a new run's folder (pass 1 not yet begun) and lets go of it, but not of its lock;
 * `runDocument(plan, deps, from)` then runs it, taking the lock over (`from.lock`: call it to
 * release the lock of a run that will not be run). A batch makes every document's folder before
 * its first dispatch, so a batch stopped at any moment leaves each document a run that
 * `bounce resume` continues, and killed, a run that `bounce runs` shows `crashed`.
 */
export function createRun(plan: RunPlan, deps: Pick<EngineDeps, 'clock' | 'recorder'>, fork?: ForkBase): ResumeFrom & { runId: string; lock: () => void } {
  // A fork's folder holds the passes it took over: `runDocument` goes on after them, as after a resume's.
  const { rec } = open(plan, deps.clock ?? systemClock, deps.recorder, fork);
  return { runDir: rec.dir, runId: rec.manifest.run_id, fresh: true, lock: rec.handOver() };
}

interface LoopEnd {
  status: FinalStatus;
  document: string | null;
  notesLeft: number | null;
  error: { type: RunErrorType; message: string; resets_at?: string | null } | null;
}

/**
 * Runs one document from a plan to a result: a new run folder, or with `from` the recorded
 * run continued after its last completed pass. Everything outside comes through `deps`.
 */
export async function runDocument(plan: RunPlan, deps: EngineDeps, from?: ResumeFrom): Promise<RunResult> {
  const clock: Clock = deps.clock ?? systemClock;
  const full = { ...deps, clock, events: deps.events ?? (() => {}), retryBaseMs: deps.retryBaseMs ?? 1000 };
  // Not under a budget, which may refuse the first dispatch: a CLI is started ahead only for a certain one.
  if (!from && deps.warm && !hasLimit(plan.budget) && !(deps.budgets ?? []).some((b) => hasLimit(b.limits))) {
    // The first pass's CLI loads while the run folder is made; one turn of the event loop starts it.
    deps.warm.start(plan.agents[roleForPass(1)]);
    await nextTurn();
  }
  let opened: ReturnType<typeof open> | ReturnType<typeof reopen>;
  try {
    opened = from ? reopen(plan, from, full.recorder) : open(plan, clock, full.recorder);
  } catch (err) {
    deps.warm?.close();
    throw err;
  }
  const { rec, current, resumedAfter, origins } = opened;
  let ctx: RunContext | null = null;
  const release = new AbortController();
  try {
    const started = clock.now();
    const base = rec.manifest.totals.duration_ms;
    // The run's own budget counts what earlier sessions of a resumed run spent.
    const budgets = [new BudgetAccount(plan.budget ?? {}, spentOf(rec.manifest.totals, cacheHitsOf(rec.manifest))), ...(deps.budgets ?? [])];
    ctx = {
      plan,
      deps: full,
      rec,
      current,
      breaker: { ...rec.manifest.breaker },
      budgets,
      runMs: () => base + (clock.now() - started),
      origins,
      released: release.signal,
    };
    full.events({
      type: 'run-started',
      runId: rec.manifest.run_id,
      runDir: rec.dir,
      resumedAfter: from?.fresh ? null : resumedAfter,
      totalPasses: plan.passes,
    });
    const end = await loop(ctx, resumedAfter ?? 0);
    const result = finish(ctx, end);
    if (deps.afterRun && result.status === 'converged' && result.document !== null)
      await deps.afterRun({ plan, rec, finalFile: `final.${plan.input.ext}`, document: result.document, budgets, released: release.signal });
    return result;
  } catch (err) {
    const cause = storageProblem(err);
    if (cause && ctx) return storageFailure(ctx, cause);
    recordCrash(rec, err, ctx?.runMs() ?? rec.manifest.totals.duration_ms);
    throw err;
  } finally {
    rec.close();
    deps.warm?.close();
    release.abort();
  }
}

/** A file-system failure bounce cannot work around (disk full, read-only): its cause in words, else null. */
export function storageProblem(err: unknown): string | null {
  if (err instanceof RecorderCrashed) return null;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? storageCause(code) : null;
}

/**
 * The run folder could not be written: the run ends `failed` with that cause. Writing run.json
 * may fail for the same reason; then it still says `running`, and either way the run resumes
 * once the folder can be written. A failure here never hides the first one.
 */
function storageFailure(ctx: RunContext, cause: string): RunResult {
  const { rec } = ctx;
  const error = { type: 'storage' as const, message: `cannot write to the run folder ${rec.dir}: ${cause}` };
  try {
    rec.finishRun({ status: 'failed', exit_code: EXIT.agent, error, notes_left: rec.manifest.notes_left, output: null }, ctx.runMs());
  } catch {
    // The same cause, most likely: run.json keeps its last good state.
  }
  ctx.deps.events({ type: 'run-finished', runId: rec.manifest.run_id, status: 'failed', exitCode: EXIT.agent });
  return {
    runId: rec.manifest.run_id,
    runDir: rec.dir,
    status: 'failed',
    exitCode: EXIT.agent,
    document: null,
    outputPath: null,
    notesLeft: rec.manifest.notes_left,
    error,
    manifest: rec.manifest,
  };
}

/**
 * An exception the engine did not expect (a bug) ends the run `failed` with error type
 * `internal` and exit code 70, so run.json never says `running` with no process behind it, and
 * `show` and `resume` name a next step; the exception then goes on to the command, which prints
 * it. A fault injected into the recorder (a simulated kill) records nothing, nor does a
 * recorder that cannot write: run.json keeps its last state, which a resume reconciles.
 */
function recordCrash(rec: RunRecorder, err: unknown, runMs: number): void {
  if (err instanceof RecorderCrashed) return;
  const what = isBounceError(err) ? err.line : err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const error: { type: RunErrorType; message: string } = {
    type: isBounceError(err) ? err.code : 'internal',
    message: rec.redact(`${isBounceError(err) ? '' : 'internal error (a bug; please report it): '}${what}`),
  };
  try {
    rec.finishRun(
      { status: 'failed', exit_code: isBounceError(err) ? err.exitCode : EXIT.internal, error, notes_left: rec.manifest.notes_left, output: null },
      runMs,
    );
  } catch {
    // The recorder itself failed: the first exception is the one to report.
  }
}

type Opened = { rec: RunRecorder; current: Current; origins: NoteOrigins };

function open(plan: RunPlan, clock: Clock, opts: EngineDeps['recorder'], fork?: ForkBase): Opened & { resumedAfter: null } {
  const notes = scan(plan, plan.input.text);
  const opening = { ...openingOf(plan, new Date(clock.now()), notes.length), ...(fork ? { fork } : {}) };
  let rec: RunRecorder;
  try {
    rec = RunRecorder.create(plan.runsDir, opening, opts);
  } catch (err) {
    const cause = storageProblem(err);
    if (!cause) throw err;
    throw usageError(`cannot create a run folder in ${plan.runsDir}: ${cause}`, 'free some space, or pass a writable folder with --runs-dir', 'storage');
  }
  return {
    rec,
    current: { text: plan.input.text, file: opening.original, notes, words: opening.input.words },
    resumedAfter: null,
    origins: new NoteOrigins(notes),
  };
}

function reopen(plan: RunPlan, from: ResumeFrom, opts: EngineDeps['recorder']): Opened & { resumedAfter: number } {
  const timeoutS = { reviewer: plan.timeoutMs.reviewer / 1000, composer: plan.timeoutMs.composer / 1000 };
  const extension = from.extend
    ? {
        passes: plan.passes,
        agents: { reviewer: agentRecord(plan, 'reviewer'), composer: agentRecord(plan, 'composer') },
        evidence: evidenceOf(plan),
        policy: policyOf(plan),
      }
    : undefined;
  const { recorder: rec, reconciled } = RunRecorder.reopen(from.runDir, { timeoutS, ...(extension ? { extension } : {}) }, opts, from.lock);
  try {
    const m = rec.manifest;
    // What to redo: src/engine/resume-point.ts.
    const last = resumePoint(m.pass_records, (f) => rec.factsOf(f).sha256);
    const text = last?.document ? readFileSync(rec.path(last.document), 'utf8') : plan.input.text;
    const file = last?.document ?? m.original;
    if (!from.fresh)
      rec.log(
        `resume: continuing after pass ${last?.pass ?? 0}${reconciled.length ? `; ${reconciled.length} dispatch record(s) reconciled with run.json` : ''}`,
      );
    const ext = from.extend ? m.extensions?.at(-1) : undefined;
    if (ext) rec.log(`resume: extended from ${ext.passes.from} to ${ext.passes.to} passes${agentChanges(ext)}`);
    const origins = replayOrigins(
      m,
      last?.pass ?? 0,
      (t) => scan(plan, t),
      (f) => (f === file ? text : readFileSync(rec.path(f), 'utf8')),
    );
    return { rec, current: { text, file, notes: scan(plan, text), words: countWords(text) }, resumedAfter: last?.pass ?? 0, origins };
  } catch (err) {
    if (!isBounceError(err)) recordCrash(rec, err, rec.manifest.totals.duration_ms);
    rec.close();
    throw err;
  }
}

function agentChanges(ext: RunExtension): string {
  const changed = Object.entries(ext.agents).map(([role, c]) => `, ${role} ${c.from} -> ${c.to}`);
  return changed.join('');
}

/**
 * Runs passes from the first one not yet completed to the budget, stopping early on zero
 * notes (unless --all-passes).
 */
async function loop(ctx: RunContext, done: number): Promise<LoopEnd> {
  const { plan, deps } = ctx;
  // An extension made after this pass asks for more passes, even after one that converged.
  // So does a fork that has not yet run its first pass, whatever the document it took over holds.
  const forkStart = (ctx.rec.manifest.forked_from?.pass ?? 0) > done;
  const extending = (ctx.rec.manifest.extensions?.at(-1)?.after_pass ?? -1) >= done || forkStart;
  // A run that stopped after converging but before it was closed (a crash, say) is done. With
  // check commands, only after its final pass: an earlier pass's document may have been kept
  // failing a check (which ends no run), and the next pass must check its successor.
  const unchecked = (plan.checks?.length ?? 0) > 0 && done < plan.passes;
  if (done > 0 && ctx.current.notes.length === 0 && !plan.allPasses && !extending && !unchecked)
    return { status: 'converged', document: ctx.current.text, notesLeft: 0, error: null };
  for (let pass = done + 1; pass <= plan.passes; pass++) {
    const outcome = await runPass(ctx, pass);
    switch (outcome.kind) {
      case 'accepted': {
        const { added, resolved } = diffNotes(ctx.current.notes, outcome.current.notes);
        ctx.origins.advance(resolved, added, { pass, agent: plan.agents[seatForPass(plan, pass)].spec });
        ctx.current = outcome.current;
        const left = outcome.current.notes.length;
        deps.events({ type: 'pass-finished', pass, notesAfter: left, outcome: 'done' });
        // A document that fails a check is no end: the next pass's reply is checked again.
        if (left === 0 && !outcome.current.failsChecks && (!plan.allPasses || pass === plan.passes))
          return { status: 'converged', document: outcome.current.text, notesLeft: 0, error: null };
        break;
      }
      case 'not-converged':
        deps.events({ type: 'pass-finished', pass, notesAfter: outcome.notes.length, outcome: 'not converged' });
        return { status: 'not-converged', document: null, notesLeft: outcome.notes.length, error: { type: 'not-converged', message: outcome.reason } };
      case 'failed':
        deps.events({ type: 'pass-finished', pass, notesAfter: null, outcome: 'failed' });
        return {
          status: 'failed',
          document: null,
          notesLeft: ctx.rec.manifest.notes_left,
          error: { type: outcome.type, message: outcome.message, ...(outcome.resetsAt ? { resets_at: outcome.resetsAt } : {}) },
        };
      case 'interrupted':
        deps.events({ type: 'pass-finished', pass, notesAfter: null, outcome: 'interrupted' });
        return {
          status: 'interrupted',
          document: null,
          notesLeft: ctx.rec.manifest.notes_left,
          error: { type: 'interrupted', message: 'interrupted by the user; run `bounce resume` to finish it' },
        };
    }
  }
  // Every pass ran and the last one accepted a document: by rule 3 it has no notes.
  return { status: 'converged', document: ctx.current.text, notesLeft: 0, error: null };
}

/** Ends a run: on convergence writes final.<ext> and the requested output, then records the status. */
function finish(ctx: RunContext, end: LoopEnd): RunResult {
  const { plan, rec } = ctx;
  let exitCode = EXIT_FOR_STATUS[end.status];
  let error = end.error;
  let outputPath: string | null = null;
  let output: { written: boolean; sha256: string | null; path: string | null } | null = null;
  if (end.status === 'converged' && end.document !== null) {
    const finalName = rec.artifact(`final.${plan.input.ext}`, end.document);
    outputPath = rec.path(finalName);
    try {
      // An extended run's input may hold what its earlier convergence wrote there: that is no one else's edit.
      const prior = rec.manifest.output;
      const inputNow = plan.output.kind === 'in-place' && prior.target === 'in-place' && prior.written && prior.sha256 ? prior.sha256 : plan.input.sha256;
      const written = writeOutput(plan.output, end.document, inputNow, { keptAt: rec.path(finalName) });
      if (written.path) outputPath = written.path;
      if (plan.output.kind === 'stdout') outputPath = null;
      output = { written: true, sha256: written.sha256, path: written.path ?? (plan.output.kind === 'run' ? finalName : null) };
    } catch (err) {
      const cause = storageProblem(err);
      if (!isBounceError(err) && !cause) throw err;
      // The run converged and final.<ext> holds the document; only the requested output is missing.
      exitCode = isBounceError(err) ? err.exitCode : EXIT.usage;
      error = isBounceError(err)
        ? { type: err.code, message: err.line }
        : { type: 'storage', message: `cannot write ${outputName(plan)}: ${cause}; the converged document is in ${rec.path(finalName)}` };
    }
  }
  if (error) error = { ...error, message: rec.redact(error.message) };
  rec.finishRun({ status: end.status, exit_code: exitCode, error, notes_left: end.notesLeft, output }, ctx.runMs());
  ctx.deps.events({ type: 'run-finished', runId: rec.manifest.run_id, status: end.status, exitCode });
  return {
    runId: rec.manifest.run_id,
    runDir: rec.dir,
    status: end.status,
    exitCode,
    document: end.document,
    outputPath,
    notesLeft: end.notesLeft,
    error,
    manifest: rec.manifest,
  };
}

function outputName(plan: RunPlan): string {
  return 'path' in plan.output ? plan.output.path : 'the output';
}
