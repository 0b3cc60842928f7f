import pc from 'picocolors';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import { unifiedDiff } from '../text/line-diff.js';
import { netChange, passChanges } from '../report/pass-docs.js';
import { loadRun } from '../store/load-run.js';

export interface DiffOptions {
  run: string;
  /** Absolute or cwd-relative; the CLI passes config runs_dir or `runs`. */
  runsDir?: string;
  /** One pass (1-based), as a number or as typed; every pass when absent. */
  pass?: number | string;
  /** Force colour on or off; by default on when stdout is a TTY and NO_COLOR is unset. */
  color?: boolean;
  /** One diff from the original to the final document (the last one when the run did not converge). */
  net?: boolean;
}

/** `bounce diff <run> [--pass N]`: a unified diff of what each pass changed. */
export async function runDiff(opts: DiffOptions, io: Io): Promise<number> {
  const { dir, manifest } = loadRun(opts.run, opts.runsDir, io.cwd);
  if (opts.net && opts.pass !== undefined) throw usageError('--net is the whole run: it takes no pass', `drop the pass ${opts.pass}, or drop --net`);
  const changes = passChanges(dir, manifest);
  const known = [...new Set(changes.map((ch) => ch.record.pass))];
  const choose = known.length ? `pass one of ${known.join(', ')}, or none for every pass` : 'this run has no passes yet';
  const text = opts.pass === undefined ? undefined : String(opts.pass).trim();
  if (text !== undefined && !/^[1-9]\d{0,8}$/.test(text)) throw usageError(`the pass must be a pass number such as 1, not ${JSON.stringify(text)}`, choose);
  const pass = text === undefined ? undefined : Number(text);
  // Select by pass number, not position: a resumed run may hold two records of one pass.
  const chosen = pass === undefined ? changes : changes.filter((ch) => ch.record.pass === pass);
  if (pass !== undefined && chosen.length === 0) throw usageError(`run ${manifest.run_id} has no pass ${pass}`, choose);
  const color = opts.color ?? (Boolean(io.stdout.isTTY) && !io.env.NO_COLOR);
  const c = pc.createColors(color);
  const paint = { header: c.bold, hunk: c.cyan, delete: c.red, insert: c.green };
  if (opts.net) {
    const net = netChange(dir, manifest);
    const text = unifiedDiff(net.before, net.after ?? net.before, { aName: `a/${net.beforeFile}`, bName: `b/${net.afterFile}`, paint });
    io.stdout.write(
      `${c.bold(`# net: ${net.beforeFile} -> ${net.afterFile}${net.converged ? '' : ` (the run is ${manifest.status}: its last document)`}`)}\n${text === '' ? '(no changes)' : text.trimEnd()}\n`,
    );
    return 0;
  }
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
