import { resolve } from 'node:path';
import { verifyRun } from '../audit/verify.js';
import { EXIT } from '../errors.js';
import type { Io } from '../io.js';
import { resolveRunDir } from '../store/resolve-run.js';

export interface AuditOptions {
  run: string;
  /** Absolute or cwd-relative; the CLI passes config runs_dir or `runs`. */
  runsDir?: string;
  json?: boolean;
}

/**
 * `bounce audit <run>`: 0 when every record parses, every sha matches its artifact, the
 * counts agree with run.json and the chain of records binds it; 1 naming each problem; 2
 * (thrown) when the run is not found. A run made by an older bounce, whose records bind
 * nothing, is said to be unbound (a note, not a problem).
 */
export async function runAudit(opts: AuditOptions, io: Io): Promise<number> {
  const runDir = resolveRunDir(opts.run, opts.runsDir ?? 'runs', io.cwd);
  const result = verifyRun(runDir);
  const ok = result.problems.length === 0;
  if (opts.json) {
    const out = { run_id: result.runId, run_dir: resolve(runDir), ok, problems: result.problems, records: result.records, unbound: result.unbound };
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    for (const p of result.problems) io.stdout.write(`problem: ${p.message} (${p.file})\n`);
    if (result.unbound) io.stderr.write(`note: ${result.runId} is ${result.unbound}\n`);
    const summary = ok
      ? `audit ok: ${result.runId}: ${result.records} dispatch record${result.records === 1 ? '' : 's'} checked\n`
      : `audit failed: ${result.runId}: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'} in ${result.records} record${result.records === 1 ? '' : 's'}\n`;
    io.stderr.write(summary);
  }
  return ok ? EXIT.ok : EXIT.problems;
}
