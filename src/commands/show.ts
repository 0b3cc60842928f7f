import { plural } from '../plural.js';
import type { Io } from '../io.js';
import { judgeLines } from '../ui/run-summary.js';
import { fmtCheckRun, fmtCost, fmtDuration, fmtRunCost, fmtTime, fmtTokenCount, forkPoint, replayOrigin, summarize, totalTokens } from '../report/format.js';
import type { AgentRecord, PassRecord } from '../store/manifest.js';
import { loadRun } from '../store/load-run.js';
import { checkRunsOf } from '../store/check-runs.js';
import type { CheckRunRecord } from '../store/record-schema.js';
import { shownStatus } from '../store/lock.js';
import type { NoteOrigin } from '../protocol/ledger.js';
import { type RunLedger, runLedger, unkeptDocument } from '../audit/run-notes.js';
import { type NetChange, netChange } from '../report/pass-docs.js';
import { pushAll } from '../arrays.js';
import { runHintFlags } from '../store/run-location.js';

export interface ShowOptions {
  run: string;
  /** Absolute or cwd-relative; the CLI passes config runs_dir or `runs`. */
  runsDir?: string;
  /** `--config FILE` as given; else the one the command was told to read (in-use.ts). */
  config?: string;
  json?: boolean;
}

function agentLine(role: string, a: AgentRecord): string {
  const evidence = a.evidence === 'mock' ? 'mock evidence, not a live result' : a.evidence;
  return `${role.padEnd(9)} ${a.spec} (adapter ${a.adapter}, model ${a.model ?? '-'}, version ${a.version ?? '-'}, ${evidence})`;
}

/** How a pass that kept no document ended, for the line naming its last reply's document. */
const ENDED: Record<PassRecord['status'], string> = { completed: 'completed', failed: 'failed', interrupted: 'was interrupted', running: 'is running' };

function passLines(p: PassRecord, ext: string, checks: ReadonlyMap<string, readonly CheckRunRecord[]>): string[] {
  const after = p.notes_after ?? '?';
  // A pass that kept no document: its counts after are its last reply's, which the run did not keep.
  const unkept = unkeptDocument(p, ext);
  const of = unkept ? ` in its ${unkept.refused ? 'refused' : 'last'} reply` : '';
  const words = `${p.words_before} -> ${p.words_after ?? '?'}`;
  const head = `pass ${p.pass}${p.final ? ' (final)' : ''}  ${p.role} ${p.agent}  ${p.status}${p.copied_from ? `  (copied from ${p.copied_from.run})` : ''}`;
  const lines = [
    head,
    `  notes     ${p.notes_before} -> ${after} (+${p.added ?? '?'}/-${p.resolved ?? '?'}${p.acted !== null && p.resolved ? `: ${p.acted} acted, ${p.dismissed} dismissed` : ''})${p.misplaced_after ? `, ${p.misplaced_after} misplaced` : ''}${of}`,
    `  words     ${words}`,
    ...(p.lens ? [`  lens      ${p.lens}`] : []),
    `  usage     ${fmtTokenCount(totalTokens(p.usage))}, ${fmtCost(p.usage.cost_usd)}, ${fmtDuration(p.duration_ms)}`,
    `  attempts  ${plural(p.retries, 'retry', 'retries')}, ${plural(p.repairs, 'repair')}`,
  ];
  if (p.status === 'completed' && p.document) lines.push(`  document  ${p.document}`);
  else if (unkept)
    lines.push(
      unkept.refused
        ? `  refused   ${unkept.file} (its last reply, not kept: the pass ${ENDED[p.status]})`
        : `  not kept  ${unkept.file} (its last reply, not judged: the pass ${ENDED[p.status]})`,
    );
  for (const e of p.errors) lines.push(`  error     ${e}`);
  for (const w of p.warnings) lines.push(`  warning   ${w}`);
  for (const f of p.fixes) lines.push(`  fix       ${f}`);
  for (const d of p.dispatches) {
    lines.push(
      `  dispatch  ${d.id} ${d.kind}${d.kind === 'pass' ? '' : ` ${d.index}`} ${d.status}${d.reason ? `: ${d.reason}` : ''} (${fmtDuration(d.duration_ms)})`,
    );
    // The check commands run on the document this dispatch's reply produced (docs/checks.md).
    for (const c of checks.get(d.id) ?? []) lines.push(`    check   ${fmtCheckRun(c)}`);
  }
  return lines;
}

const origin = (o: NoteOrigin): string => (o.pass === null ? 'input' : `pass ${o.pass} ${o.agent}`);
const NOTE_WIDTH = 100;

/** Every note of the run: its fate, who raised and who resolved it, its line, its text (shortened). */
function ledgerLines(l: RunLedger): string[] {
  const c = l.counts;
  const head = `notes     ${c.raised} raised: ${c.acted} acted, ${c.dismissed} dismissed, ${c.open} open${c.unjudged ? `, ${c.unjudged} resolved before bounce judged notes` : ''}`;
  const rows = l.notes.map((n) => {
    const fate = (n.fate ?? 'resolved').padEnd(9);
    const where = n.resolvedBy ? `${origin(n.raisedBy)} -> ${origin(n.resolvedBy)}, line ${n.resolvedLine}` : `${origin(n.raisedBy)}, line ${n.raisedLine}`;
    const text = n.text.length > NOTE_WIDTH ? `${n.text.slice(0, NOTE_WIDTH - 1)}…` : n.text;
    return `  ${fate} ${where}: ${text}`;
  });
  return [head, ...rows];
}

/** A run as `bounce show` reads it: its folder, run.json, its notes' ledger, its status as shown (a dead runner's run is `crashed`), its last document. */
function readShown(opts: ShowOptions, io: Io) {
  const { dir, manifest: m } = loadRun(opts.run, opts.runsDir, io.cwd);
  const shown = shownStatus(dir, m.status);
  return { dir, m, ledger: runLedger(dir, m), shown, s: { ...summarize(m), status: shown.status }, last: netChange(dir, m) };
}

/** The run's last document, as `bounce diff --net` and the report name it: final.<ext>, else the last completed pass's. */
function lastDocLine(last: NetChange, status: string, left: number | null): string {
  const missing = last.after === null ? '; missing from the run folder' : '';
  if (last.converged) return `${last.afterFile} (the converged document${missing})`;
  const what = last.afterFile === last.beforeFile ? 'no pass completed: the original' : "the last completed pass's document";
  return `${last.afterFile} (${status}: ${what}${left !== null ? `, ${plural(left, 'note')} left` : ''}${missing})`;
}

/** The object `bounce show --json` prints (and `bounce_show` returns, src/mcp/). */
export function showJson(opts: ShowOptions, io: Io) {
  const { dir, m, ledger, s, last } = readShown(opts, io);
  return { run_dir: dir, summary: s, last_document: last.afterFile, notes: ledger.notes, manifest: m };
}

/** `bounce show <run>`: the header of a run, what each pass did, and every note with its fate. */
export async function runShow(opts: ShowOptions, io: Io): Promise<number> {
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(showJson(opts, io), null, 2)}\n`);
    return 0;
  }
  const { dir, m, ledger, shown, s, last } = readShown(opts, io);
  const out = [
    `run       ${m.run_id}`,
    `dir       ${dir}`,
    `input     ${m.input.display} (${plural(m.input.words, 'word')}, ${plural(m.input.notes, 'note')}, sha256 ${m.input.sha256.slice(0, 12)})`,
    agentLine('reviewer', m.agents.reviewer),
    agentLine('composer', m.agents.composer),
    `status    ${shown.status}, exit code ${m.exit_code ?? '-'}${m.notes_left !== null ? `, ${plural(m.notes_left, 'note')} left` : ''}`,
    `passes    ${m.passes.run}/${m.passes.requested}${m.passes.all_passes ? ' (all passes)' : ''}`,
    `totals    ${fmtTokenCount(s.tokens.total)}, ${fmtRunCost(m.totals)}, ${fmtDuration(s.duration_ms)}, ${plural(m.totals.dispatches, 'dispatch', 'dispatches')}, started ${fmtTime(m.created_at)}`,
    `output    ${m.output.written ? (m.output.path ?? m.output.target) : 'not written'}`,
    `last doc  ${lastDocLine(last, shown.status, m.notes_left)}`,
  ];
  // How the passes were played: the review lenses in turn, the agents swapping roles.
  if (m.policy.lenses) out.push(`lenses    ${m.policy.lenses.map((l) => l.name).join(', ')} (the reviewer passes in turn)`);
  if (m.policy.alternate) out.push("alternate the agents swap roles every two passes (each reviews the other's work)");
  const fork = forkPoint(m);
  // Right under the run's id: what the totals below count depends on it.
  if (fork) out.splice(1, 0, `fork      ${fork}; totals are the fork's own`);
  const replay = replayOrigin(m);
  if (replay) out.splice(1, 0, `replay    ${replay}`);
  if (m.evidence !== 'live') out.push(`evidence  ${m.evidence}${m.evidence === 'mock' ? ': mock evidence, not a live result' : ''}`);
  if (m.error) out.push(`error     ${m.error.type}: ${m.error.message}`);
  if (shown.status === 'crashed')
    out.push(
      `crashed   run.json says running, but its process ${shown.lock?.pid} is gone`,
      `next      bounce resume ${m.run_id}${runHintFlags(dir, io, opts.config)}`,
    );
  if (m.breaker.open) out.push(`breaker   open: ${m.breaker.last_error ?? ''}`);
  if (m.judge)
    pushAll(
      out,
      judgeLines(m.judge)
        .trimEnd()
        .split('\n')
        .map((line, i) => `${i === 0 ? 'judge    ' : '         '} ${line.replace(/^judge /, '')}`),
    );
  if (m.policy.checks)
    out.push(`checks    ${m.policy.checks.map((c) => `\`${c.command}\` (${c.timeout_s}s)`).join(', ')} (every reply; the final pass must pass them)`);
  const checks = checkRunsOf(dir, m);
  for (const p of m.pass_records) pushAll(out, ['', ...passLines(p, m.input.ext, checks)]);
  pushAll(out, ['', ...ledgerLines(ledger)]);
  io.stdout.write(`${out.join('\n')}\n`);
  return 0;
}
