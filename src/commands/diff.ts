import pc from 'picocolors';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import { unifiedDiff } from '../report/line-diff.js';
import { passChanges } from '../report/pass-docs.js';
import { loadRun } from './show.js';

export interface DiffOptions {
  run: string;
  /** Absolute or cwd-relative; the CLI passes config runs_dir or `runs`. */
  runsDir?: string;
  /** One pass (1-based); every pass when absent. */
  pass?: number;
  /** Force colour on or off; by default on when stdout is a TTY and NO_COLOR is unset. */
  color?: boolean;
}

/** `bounce diff <run> [--pass N]`: a unified diff of what each pass changed. */
export async function runDiff(opts: DiffOptions, io: Io): Promise<number> {
  const { dir, manifest } = loadRun(opts.run, opts.runsDir, io.cwd);
  const changes = passChanges(dir, manifest);
  // Select by pass number, not position: a resumed run may hold two records of one pass.
  const chosen = opts.pass === undefined ? changes : changes.filter((ch) => ch.record.pass === opts.pass);
  if (opts.pass !== undefined && chosen.length === 0) {
    const known = [...new Set(changes.map((ch) => ch.record.pass))];
    throw usageError(`run ${manifest.run_id} has no pass ${opts.pass}`, known.length ? `pass one of ${known.join(', ')}` : 'this run has no passes yet');
  }
  const color = opts.color ?? (Boolean(io.stdout.isTTY) && !io.env.NO_COLOR);
  const c = pc.createColors(color);
  const paint = { header: c.bold, hunk: c.cyan, delete: c.red, insert: c.green };
  const out: string[] = [];
  for (const ch of chosen) {
    const r = ch.record;
    out.push(c.bold(`# pass ${r.pass} ${r.role} ${r.agent}: ${ch.beforeFile} -> ${ch.afterFile ?? '(no document)'}`));
    if (ch.after === null) {
      out.push(r.document ? `(${r.document} is missing from the run folder)` : `(pass ${r.pass} produced no document: ${r.status})`);
      continue;
    }
    const text = unifiedDiff(ch.before, ch.after, { aName: `a/${ch.beforeFile}`, bName: `b/${ch.afterFile}`, paint });
    out.push(text === '' ? '(no changes)' : text.trimEnd());
  }
  if (chosen.length === 0) io.stderr.write(`run ${manifest.run_id} has no passes\n`);
  else io.stdout.write(`${out.join('\n')}\n`);
  return 0;
}
