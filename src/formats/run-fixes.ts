/**
 * SARIF `fixes` from a converged run: a scanned document whose text is a run's original gets,
 * for each note the run resolved, the change the run made there (the hunk of original ->
 * final that removes the note's line), as an offset, a length and the text to put in.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { usageError } from '../errors.js';
import { loadRun } from '../store/load-run.js';
import { diffLines, hunks, splitLines } from '../text/line-diff.js';
import { withoutBom } from '../text/lines.js';
import type { FileFindings, Finding, RunFix } from './finding.js';

/** A converged run's two documents. */
export interface RunDocuments {
  runId: string;
  original: string;
  final: string;
}

/** `--fixes-from <run>`: each run's original and final document; a run that did not converge is a usage error. */
export function loadRunDocuments(runs: readonly string[], cwd: string): RunDocuments[] {
  return runs.map((run) => {
    const { dir, manifest } = loadRun(run, undefined, cwd);
    const final = join(dir, `final.${manifest.input.ext}`);
    if (manifest.status !== 'converged' || !existsSync(final))
      throw usageError(`run ${manifest.run_id} is ${manifest.status}, not converged: --fixes-from needs its final document`, 'name a converged run');
    return { runId: manifest.run_id, original: withoutBom(readFileSync(join(dir, manifest.original), 'utf8')), final: withoutBom(readFileSync(final, 'utf8')) };
  });
}

/** Offsets where each line starts, and the text's length after the last. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  if (starts.at(-1) === text.length && text.length > 0) starts.pop();
  starts.push(text.length);
  return starts;
}

/** The fix of each finding at a line the run changed, when `source` is the run's original. */
export function runFixes(source: string, run: RunDocuments, findings: readonly Finding[]): Map<Finding, RunFix> {
  const fixes = new Map<Finding, RunFix>();
  if (source !== run.original) return fixes;
  const a = lineStarts(run.original);
  const b = lineStarts(run.final);
  const changes = hunks(diffLines(splitLines(run.original), splitLines(run.final)), 0).filter((h) => h.aLines > 0);
  for (const n of findings) {
    const h = changes.find((c) => c.aStart <= n.line - 1 && n.line - 1 < c.aStart + c.aLines);
    if (!h) continue;
    const offset = a[h.aStart]!;
    const inserted = run.final.slice(b[h.bStart] ?? run.final.length, b[h.bStart + h.bLines] ?? run.final.length);
    fixes.set(n, { runId: run.runId, offset, length: (a[h.aStart + h.aLines] ?? run.original.length) - offset, inserted });
  }
  return fixes;
}

/** Sets `fix` on every note of `files` that one of `runs` resolved (the first run that did). */
export function addRunFixes(files: FileFindings[], sources: readonly string[], runs: readonly RunDocuments[]): void {
  for (const [i, f] of files.entries()) {
    for (const run of runs) {
      for (const [n, fix] of runFixes(sources[i]!, run, f.findings)) n.fix ??= fix;
    }
  }
}
