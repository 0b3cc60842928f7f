import pc from 'picocolors';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import { type UnifiedOptions, unifiedDiff } from '../text/line-diff.js';
import type { UnkeptDocument } from '../audit/run-notes.js';
import { netChange, passChanges } from '../report/pass-docs.js';
import { compareRuns, type RunComparison, type RunSide, sideFork } from '../report/run-compare.js';
import { fmtCost, fmtTokens, table } from '../report/format.js';
import { loadRun } from '../store/load-run.js';
import { resolveRunDir } from '../store/resolve-run.js';

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
  /** With two runs: one JSON object comparing them. */
  json?: boolean;
  /** git's plain word diff: changed lines word by word, `[-removed-]{+added+}`. */
  wordDiff?: boolean;
}

const PASS_NUMBER = /^[1-9]\d{0,8}$/;

/** The second argument read as a run to compare with: one that is no number and names one run; else null. */
function secondRun(arg: string | number | undefined, runsDir: string | undefined, cwd: string): string | null {
  const text = arg === undefined ? '' : String(arg).trim();
  // Run ids, their parts and paths carry a letter or a slash; a number (even a bad one such as -1) is a pass.
  if (text === '' || PASS_NUMBER.test(text) || !/[A-Za-z/]/.test(text)) return null;
  try {
    return resolveRunDir(text, runsDir ?? 'runs', cwd);
  } catch {
    return null; // not a run either: the pass error below names it
  }
}

const fate = (f: string | null): string => (f === null ? '(not raised)' : f);

function sideRows(s: RunSide): string[] {
  const n = s.notes;
  return [
    s.status,
    `${s.passes.run}/${s.passes.requested}`,
    s.agents.reviewer,
    s.agents.composer,
    `${fmtCost(s.cost_usd)}${s.cost_source ? ` (${s.cost_source})` : ''}`,
    fmtTokens(s.tokens),
    String(s.dispatches),
    `${n.raised} raised: ${n.acted ?? '?'} acted, ${n.dismissed ?? '?'} dismissed, ${n.left ?? '?'} left`,
    sideFork(s),
    `${s.final.file}${s.final.converged ? '' : ' (not converged: its last document)'}`,
  ];
}

const LABELS = ['status', 'passes', 'reviewer', 'composer', 'cost', 'tokens', 'dispatches', 'notes', 'fork', 'final'];

/** The text of `bounce diff <runA> <runB>`: the two runs side by side, the notes whose fate differs, and a diff of the final texts. */
function comparisonText(c: RunComparison, style: Pick<UnifiedOptions, 'paint' | 'words'>, bold: (s: string) => string): string {
  const [a, b] = [sideRows(c.a), sideRows(c.b)];
  const rows = [['', c.a.run_id, c.b.run_id], ...LABELS.map((label, i) => [label, a[i]!, b[i]!])];
  const out = [bold(`# runs: ${c.a.run_id} vs ${c.b.run_id}`), table(rows).trimEnd()];
  if (!c.same_input) out.push('(the two runs refined different inputs)');
  out.push('', bold(`# notes whose fate differs: ${c.notes.differing.length} (${c.notes.same} the same in both)`));
  for (const n of c.notes.differing) out.push(`  ${fate(n.a)} -> ${fate(n.b)}  ${n.text}`);
  out.push('', bold(`# final: ${c.a.run_id}/${c.a.final.file} -> ${c.b.run_id}/${c.b.final.file}`));
  const text = unifiedDiff(c.final.a, c.final.b, { aName: `a/${c.a.run_id}/${c.a.final.file}`, bName: `b/${c.b.run_id}/${c.b.final.file}`, ...style });
  out.push(text === '' ? '(the same text)' : text.trimEnd());
  return `${out.join('\n')}\n`;
}

/** Why a pass has no diff: it kept no document; the document of its last reply, if any, named as refused (or not judged), never as the pass's. */
function noDocument(pass: number, status: string, unkept: UnkeptDocument | null): string {
  if (!unkept) return `pass ${pass} produced no document: ${status}`;
  return `pass ${pass} kept no document: ${status}; its last reply, ${unkept.file}, was ${unkept.refused ? 'refused' : 'not judged'}`;
}

/**
 * `bounce diff <run> [pass]`: a unified diff of what each pass changed. `bounce diff <runA>
 * <runB>` compares two runs of a document instead: passes, cost, the notes and their fates,
 * and the final texts (`--json`: one object).
 */
export async function runDiff(opts: DiffOptions, io: Io): Promise<number> {
  const { dir, manifest } = loadRun(opts.run, opts.runsDir, io.cwd);
  const color = opts.color ?? (Boolean(io.stdout.isTTY) && !io.env.NO_COLOR);
  const c = pc.createColors(color);
  const style = { paint: { header: c.bold, hunk: c.cyan, delete: c.red, insert: c.green }, words: opts.wordDiff };
  const other = secondRun(opts.pass, opts.runsDir, io.cwd);
  if (other) {
    if (opts.net) throw usageError('--net is one run from its original to its final document', `drop --net to compare the two runs, or pass one run`);
    const comparison = compareRuns({ dir, manifest }, loadRun(other, undefined, io.cwd));
    io.stdout.write(opts.json ? `${JSON.stringify(comparison, null, 2)}\n` : comparisonText(comparison, style, c.bold));
    return 0;
  }
  if (opts.json)
    throw usageError('--json compares two runs: it takes a second run', `pass the run to compare with, e.g. bounce diff ${manifest.run_id} latest --json`);
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
  if (opts.net) {
    const net = netChange(dir, manifest);
    const head = c.bold(`# net: ${net.beforeFile} -> ${net.afterFile}${net.converged ? '' : ` (the run is ${manifest.status}: its last document)`}`);
    if (net.after === null) {
      io.stdout.write(`${head}\n(${net.afterFile} is missing from the run folder)\n`);
      return 0;
    }
    const text = unifiedDiff(net.before, net.after, { aName: `a/${net.beforeFile}`, bName: `b/${net.afterFile}`, ...style });
    io.stdout.write(`${head}\n${text === '' ? '(no changes)' : text.trimEnd()}\n`);
    return 0;
  }
  const out: string[] = [];
  for (const ch of chosen) {
    const r = ch.record;
    out.push(c.bold(`# pass ${r.pass} ${r.role} ${r.agent}: ${ch.beforeFile} -> ${ch.afterFile ?? '(no document)'}`));
    if (ch.after === null) {
      out.push(ch.afterFile ? `(${ch.afterFile} is missing from the run folder)` : `(${noDocument(r.pass, r.status, ch.unkept)})`);
      continue;
    }
    const text = unifiedDiff(ch.before, ch.after, { aName: `a/${ch.beforeFile}`, bName: `b/${ch.afterFile}`, ...style });
    out.push(text === '' ? '(no changes)' : text.trimEnd());
  }
  if (chosen.length === 0) io.stderr.write(`run ${manifest.run_id} has no passes\n`);
  else io.stdout.write(`${out.join('\n')}\n`);
  return 0;
}
