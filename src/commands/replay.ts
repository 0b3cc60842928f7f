import { loadConfig, runsDirFor } from '../config/load.js';
import { displayPath } from '../documents.js';
import { runDocument } from '../engine/run-document.js';
import { BounceError, EXIT, isBounceError } from '../errors.js';
import type { Io } from '../io.js';
import { plural } from '../plural.js';
import { replayDifferences } from '../replay/compare.js';
import { attemptName, type Drift, driftMessage, replayDispatcher } from '../replay/dispatcher.js';
import { engineDeps } from '../request/engine-deps.js';
import { perRole, runProbe } from '../request/plan-request.js';
import { readForResume, resumePlan } from '../request/resume-request.js';
import type { RunExtension } from '../store/manifest.js';
import { type ReplayOptions, replayPlan } from '../request/replay-request.js';
import { selectRunDirs } from '../store/resolve-run.js';
import { unifiedDiff } from '../text/line-diff.js';
import { promptNonces } from '../cache/key.js';
import type { AttemptKind } from '../vocabulary.js';

export type { ReplayOptions } from '../request/replay-request.js';

/** How one replay ended: `reproduced` (every pass, note, the ledger and the final document as recorded), or why not. */
export type ReplayOutcome = 'reproduced' | 'drift' | 'differs' | 'not-replayable' | 'interrupted';

export interface ReplayReport {
  run: string;
  run_dir: string;
  outcome: ReplayOutcome;
  replay_id: string | null;
  replay_dir: string | null;
  /** The replay's own status (the recording's, when reproduced). */
  status: string | null;
  dispatches: number;
  drift: { pass: number; kind: AttemptKind; index: number; recorded: string | null; accepted: boolean; prompt_diff: string | null }[];
  differences: string[];
  error: string | null;
}

/** Lines of a prompt diff shown without --diff-prompts. */
const DIFF_LINES = 40;

/** A prompt with its frame nonces written as `<nonce>`, so that a diff shows what changed, not the nonces that always do. */
function readable(prompt: string): string {
  let out = prompt;
  for (const n of promptNonces(prompt)) out = out.split(n).join('<nonce>');
  return out;
}

function promptDiff(d: Drift): string | null {
  if (!d.recorded) return null;
  return unifiedDiff(readable(d.recorded.prompt), readable(d.prompt), { aName: `recorded prompt (dispatch ${d.recorded.id})`, bName: 'prompt of the replay' });
}

async function replayOne(runDir: string, opts: ReplayOptions, io: Io, quiet: boolean): Promise<ReplayReport> {
  const report: ReplayReport = {
    run: runDir.split(/[\\/]/).pop() ?? runDir,
    run_dir: runDir,
    outcome: 'not-replayable',
    replay_id: null,
    replay_dir: null,
    status: null,
    dispatches: 0,
    drift: [],
    differences: [],
    error: null,
  };
  const probe = runProbe(io);
  let planned: Awaited<ReturnType<typeof replayPlan>>;
  try {
    planned = await replayPlan(runDir, opts, io, probe);
  } catch (err) {
    if (!isBounceError(err) || err.exitCode !== EXIT.usage) throw err;
    report.error = err.line;
    return report;
  }
  const { plan, original, calls } = planned;
  report.run = original.run_id;
  const extensions = original.extensions ?? [];
  const replaced = extensions.find((e) => Object.keys(e.agents).length > 0);
  if (replaced) {
    report.error = `run ${original.run_id} cannot be replayed: a resume at pass ${replaced.after_pass} gave it other agents, and a replay follows only a run's extensions to more passes`;
    return report;
  }
  const drifts: Drift[] = [];
  const deps = {
    ...engineDeps(io, quiet, probe, plan),
    dispatch: replayDispatcher(calls, original.run_id, { acceptDrift: Boolean(opts.acceptDrift), onDrift: (d) => drifts.push(d) }),
    // Nothing to start ahead, no backoff to wait out: every answer is on disk.
    warm: undefined,
    retryBaseMs: 0,
  };
  // An extended run is replayed as it was made: its first passes with the pass budget it began
  // with (the prompts say "pass 1 of 2" and which pass is final), then each `resume --passes N`.
  let result = await runDocument(extensions.length ? { ...plan, passes: (extensions[0] as RunExtension).passes.from } : plan, deps);
  for (const ext of extensions) {
    if (result.status === 'interrupted' || drifts.some((d) => !d.accepted)) break;
    const m = result.manifest;
    const recorded = { versions: perRole((r) => m.agents[r].version), resolved: perRole((r) => m.agents[r].resolved) };
    const next = await resumePlan(readForResume(result.runDir), result.runDir, { passes: ext.passes.to, quiet: true }, io, probe, recorded);
    result = await runDocument({ ...next, budget: {}, replayOf: original.run_id }, deps, { runDir: result.runDir, extend: true });
  }
  Object.assign(report, {
    replay_id: result.runId,
    replay_dir: result.runDir,
    status: result.status,
    dispatches: result.manifest.totals.dispatches,
    drift: drifts.map((d) => ({
      pass: d.pass,
      kind: d.kind,
      index: d.index,
      recorded: d.recorded?.id ?? null,
      accepted: d.accepted,
      prompt_diff: promptDiff(d),
    })),
  });
  if (result.status === 'interrupted' && io.signal.aborted) report.outcome = 'interrupted';
  else if (drifts.some((d) => !d.accepted)) report.outcome = 'drift';
  else {
    report.differences = replayDifferences({ dir: runDir, manifest: original }, { dir: result.runDir, manifest: result.manifest });
    report.outcome = report.differences.length ? 'differs' : 'reproduced';
  }
  const stop = drifts.find((d) => !d.accepted);
  if (stop) report.error = driftMessage(stop, original.run_id);
  return report;
}

/** The exit code of several replays: the worst of them (interrupted, then a run that cannot be replayed, then a drift or a difference). */
function exitOf(reports: readonly ReplayReport[]): number {
  if (reports.some((r) => r.outcome === 'interrupted')) return EXIT.interrupted;
  if (reports.some((r) => r.outcome === 'not-replayable')) return EXIT.usage;
  if (reports.some((r) => r.outcome === 'drift' || r.outcome === 'differs')) return EXIT.notConverged;
  return EXIT.ok;
}

function totals(reports: readonly ReplayReport[]) {
  const count = (o: ReplayOutcome): number => reports.filter((r) => r.outcome === o).length;
  return {
    runs: reports.length,
    reproduced: count('reproduced'),
    drift: count('drift'),
    differs: count('differs'),
    not_replayable: count('not-replayable'),
    interrupted: count('interrupted'),
    accepted_drift: reports.reduce((n, r) => n + r.drift.filter((d) => d.accepted).length, 0),
    dispatches: reports.reduce((n, r) => n + r.dispatches, 0),
    cost_usd: 0,
  };
}

/** The lines a person reads for one replay. */
function reportLines(r: ReplayReport, io: Io, full: boolean): string {
  const where = r.replay_dir ? ` as ${r.replay_id} (${displayPath(r.replay_dir, io.cwd, 'absolute')})` : '';
  const lines: string[] = [];
  const accepted = r.drift.filter((d) => d.accepted);
  switch (r.outcome) {
    case 'reproduced':
      lines.push(
        `replayed ${r.run}${where}: reproduced, ${r.status}, ${plural(r.dispatches, 'dispatch', 'dispatches')} answered from the recording, cost 0${accepted.length ? `, ${plural(accepted.length, 'prompt')} drifted (accepted)` : ''}`,
      );
      break;
    case 'differs':
      lines.push(`replayed ${r.run}${where}: differs from the recording: ${r.differences.join('; ')}`);
      break;
    case 'not-replayable':
      lines.push(`bounce: ${r.error}`);
      break;
    case 'interrupted':
      lines.push(`replay of ${r.run} interrupted${where}`);
      break;
    case 'drift':
      lines.push(`bounce: replay of ${r.run} stopped${where}: ${r.error}`);
      break;
  }
  for (const d of r.drift) {
    if (!d.prompt_diff) continue;
    const diff = d.prompt_diff.replace(/\n$/, '').split('\n');
    const shown = full ? diff : diff.slice(0, DIFF_LINES);
    lines.push(`${d.accepted ? 'accepted drift' : 'drift'} at ${attemptName(d)}:`, ...shown);
    if (shown.length < diff.length) lines.push(`... ${plural(diff.length - shown.length, 'more line')} (--diff-prompts prints the whole diff)`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * `bounce replay <run...>`: each run again with its recorded replies (no agent called, at no
 * cost), to a new run folder that must come out as the recording did. A prompt that differs
 * from the recorded one (`--prompts`, another bounce) stops the replay there, with a diff.
 */
export async function runReplay(opts: ReplayOptions, io: Io): Promise<number> {
  const {
    exit,
    runs,
    totals: t,
    selected,
  } = await replayRuns(opts, io, (report) => {
    if (!opts.json && (!opts.quiet || report.outcome !== 'reproduced')) io.stderr.write(reportLines(report, io, Boolean(opts.diffPrompts)));
  });
  if (opts.json) io.stdout.write(`${JSON.stringify({ exit_code: exit, runs, totals: t })}\n`);
  else if (selected > 1 && !opts.quiet) {
    io.stderr.write(
      `${plural(t.runs, 'run')} replayed: ${t.reproduced} reproduced, ${t.drift} drifted, ${t.differs} differ, ${t.not_replayable} could not be replayed; ${plural(t.dispatches, 'dispatch', 'dispatches')}, cost 0\n`,
    );
  }
  for (const r of runs) if (r.outcome === 'reproduced' && !opts.json) io.stdout.write(`${displayPath(r.replay_dir as string, io.cwd, 'absolute')}\n`);
  return exit;
}

/**
 * The replays, printing nothing on stdout (`onReport` is told each one as it ends): what
 * `bounce_replay` (src/mcp/) calls. What `--json` prints, as an object.
 */
export async function replayRuns(opts: ReplayOptions, io: Io, onReport: (r: ReplayReport) => void = () => {}) {
  const runsDir = runsDirFor(io.cwd, loadConfig(io.cwd, io.env, opts.config), opts.runsDir);
  const dirs = selectRunDirs({ runs: opts.runs.length || opts.batch !== undefined ? opts.runs : ['latest'], batch: opts.batch }, runsDir, io.cwd, 'replays');
  const several = dirs.length > 1;
  const reports: ReplayReport[] = [];
  for (const dir of dirs) {
    if (io.signal.aborted) break;
    const report = await replayOne(dir, opts, io, Boolean(opts.quiet) || several || Boolean(opts.json));
    reports.push(report);
    onReport(report);
  }
  if (reports.length === 0 && io.signal.aborted)
    throw new BounceError('interrupted before the replay started', { exitCode: EXIT.interrupted, code: 'interrupted' });
  return { exit: exitOf(reports), runs: reports, totals: totals(reports), selected: dirs.length };
}
