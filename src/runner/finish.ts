import { createColors } from 'picocolors';
import { EXIT, isBounceError } from '../errors.js';
import { writeManifest } from '../store/manifest.js';
import type { LoopResult } from './loop.js';
import { displayPath, writeOutput } from './output.js';
import type { RunState } from './state.js';

export const EXIT_FOR_STATUS = {
  converged: EXIT.ok,
  'not-converged': EXIT.notConverged,
  failed: EXIT.agent,
  interrupted: EXIT.interrupted,
} as const;

/** The one object `--json` prints, for every exit. */
export interface RefineJson {
  run_id: string | null;
  run_dir: string | null;
  status: string;
  exit_code: number;
  notes_left: number | null;
  output: string | null;
  passes_run: number;
  /** One entry per pass attempted: wall time, notes left, tokens. */
  passes: { pass: number; role: string; agent: string; status: string; duration_ms: number | null; notes_after: number | null; tokens: number | null }[];
  duration_ms: number;
  usage: { input_tokens: number | null; output_tokens: number | null };
  cost_usd: number | null;
  evidence: string | null;
  error: { type: string; message: string } | null;
}

/**
 * Ends a run: on convergence writes final.<ext> and the requested output; records the
 * status; prints the output path (or the document) on stdout and a summary on stderr.
 */
export function finishRun(state: RunState, result: LoopResult, opts: { json?: boolean; quiet?: boolean }): { exitCode: number; json: RefineJson } {
  const { plan, folder, manifest, io } = state;
  let exitCode: number = EXIT_FOR_STATUS[result.status];
  let error = result.error;
  let outputPath: string | null = null;
  if (result.status === 'converged' && result.document !== null) {
    const finalName = `final.${plan.input.ext}`;
    folder.write(finalName, result.document);
    outputPath = folder.path(finalName);
    try {
      const written = writeOutput(plan.output, result.document, plan.input.sha256, io.stdout);
      if (written.path) outputPath = written.path;
      if (plan.output.kind === 'stdout') outputPath = null;
      manifest.output = { ...manifest.output, written: true, sha256: written.sha256, path: written.path ?? (plan.output.kind === 'run' ? finalName : null) };
    } catch (err) {
      if (!isBounceError(err)) throw err;
      exitCode = err.exitCode;
      error = { type: err.code, message: err.line };
    }
  }
  manifest.status = result.status;
  manifest.exit_code = exitCode;
  manifest.error = error;
  manifest.notes_left = result.notesLeft;
  manifest.finished_at = new Date().toISOString();
  writeManifest(folder.dir, manifest);
  folder.log(`run ${result.status}, exit ${exitCode}${error ? `: ${error.message}` : ''}`);
  const json: RefineJson = {
    run_id: manifest.run_id,
    run_dir: folder.dir,
    status: result.status,
    exit_code: exitCode,
    notes_left: result.notesLeft,
    output: outputPath,
    passes_run: manifest.passes.run,
    passes: manifest.pass_records.map((p) => ({
      pass: p.pass,
      role: p.role,
      agent: p.agent,
      status: p.status,
      duration_ms: p.duration_ms,
      notes_after: p.notes_after,
      tokens: p.usage.input_tokens === null && p.usage.output_tokens === null ? null : (p.usage.input_tokens ?? 0) + (p.usage.output_tokens ?? 0),
    })),
    duration_ms: manifest.totals.duration_ms,
    usage: { input_tokens: manifest.totals.input_tokens, output_tokens: manifest.totals.output_tokens },
    cost_usd: manifest.totals.cost_usd,
    evidence: manifest.evidence,
    error,
  };
  if (opts.json) io.stdout.write(`${JSON.stringify(json)}\n`);
  else if (outputPath && exitCode === EXIT.ok) io.stdout.write(`${displayPath(outputPath, io.cwd)}\n`);
  if (!opts.quiet || exitCode !== EXIT.ok) io.stderr.write(summaryLine(state, result, exitCode, error));
  return { exitCode, json };
}

function summaryLine(state: RunState, result: LoopResult, exitCode: number, error: { message: string } | null): string {
  const { manifest, io } = state;
  const c = createColors(Boolean(io.stderr.isTTY) && !io.env.NO_COLOR);
  const t = manifest.totals;
  const tokens = t.input_tokens === null && t.output_tokens === null ? 'tokens unknown' : `${(t.input_tokens ?? 0) + (t.output_tokens ?? 0)} tokens`;
  const cost = t.cost_usd === null ? 'cost unknown' : `$${t.cost_usd.toFixed(4)}`;
  const head = exitCode === EXIT.ok ? c.green(result.status) : c.red(result.status);
  const anyMock =
    manifest.evidence === 'mock' || (manifest.evidence === 'mixed' && [manifest.agents.reviewer, manifest.agents.composer].some((a) => a.evidence === 'mock'));
  const mock = anyMock ? c.yellow(' (mock agents: not a live result)') : '';
  const facts = `${manifest.passes.run}/${manifest.passes.requested} passes, ${t.dispatches} dispatches, ${tokens}, ${cost}, ${(t.duration_ms / 1000).toFixed(1)}s`;
  const perPass = manifest.pass_records.map((p) => `${p.pass} ${p.role} ${((p.duration_ms ?? 0) / 1000).toFixed(1)}s`).join(', ');
  const lines = [`${head}${mock}: ${facts}`, ...(perPass ? [`pass times: ${perPass}`] : []), `run folder: ${displayPath(state.folder.dir, io.cwd)}`];
  if (error) lines.push(`${c.red('error')}: ${error.message}`);
  return `${lines.join('\n')}\n`;
}
