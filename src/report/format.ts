import type { PassRecord, RunManifest, UsageTotals } from '../store/manifest.js';
import type { CheckRunRecord } from '../store/record-schema.js';
import { ledgerPasses } from '../audit/run-notes.js';
import { displayWidth, padColumns } from '../text/display-width.js';

/** Shared summaries of a run for `runs`, `show` and the HTML report. */
export interface RunSummary {
  run_id: string;
  document: string;
  status: string;
  exit_code: number | null;
  evidence: string;
  passes: { run: number; requested: number };
  /** `raised`, `acted`, `dismissed`: see noteCounts. */
  notes: { added: number; resolved: number; left: number | null } & NoteCounts;
  tokens: { input: number | null; output: number | null; total: number | null };
  cost_usd: number | null;
  duration_ms: number | null;
  started_at: string;
}

export function totalTokens(u: Pick<UsageTotals, 'input_tokens' | 'output_tokens'> | null | undefined): number | null {
  if (!u || (u.input_tokens === null && u.output_tokens === null)) return null;
  return (u.input_tokens ?? 0) + (u.output_tokens ?? 0);
}

/**
 * The time the run's sessions took, as the recorder keeps it (`totals.duration_ms`) and as
 * refine and resume print it: not the wall time from creation to finish, which for a resumed
 * run counts the hours no session ran.
 */
export function runDuration(m: RunManifest): number | null {
  return m.totals.duration_ms;
}

/**
 * The ledger's counts for a run, from its ledger passes (ledgerPasses): `raised` is the input's notes plus
 * those the passes added, `acted` and `dismissed` how the passes resolved theirs (null in a run
 * made before bounce judged notes). A converged run has raised = acted + dismissed.
 */
export interface NoteCounts {
  raised: number;
  acted: number | null;
  dismissed: number | null;
}

export function noteCounts(m: {
  status: string;
  input: { notes: number };
  pass_records: readonly Pick<PassRecord, 'status' | 'final' | 'document' | 'added' | 'acted' | 'dismissed'>[];
}): NoteCounts {
  const done = ledgerPasses(m);
  const judged = done.every((p) => p.acted !== null && p.dismissed !== null);
  const sum = (f: (p: (typeof done)[number]) => number | null): number => done.reduce((n, p) => n + (f(p) ?? 0), 0);
  return {
    raised: m.input.notes + sum((p) => p.added),
    acted: judged ? sum((p) => p.acted) : null,
    dismissed: judged ? sum((p) => p.dismissed) : null,
  };
}

export function summarize(m: RunManifest): RunSummary {
  const sum = (f: (p: RunManifest['pass_records'][number]) => number | null): number => ledgerPasses(m).reduce((n, p) => n + (f(p) ?? 0), 0);
  return {
    run_id: m.run_id,
    document: m.input.display,
    status: m.status,
    exit_code: m.exit_code,
    evidence: m.evidence,
    passes: { run: m.passes.run, requested: m.passes.requested },
    notes: { added: sum((p) => p.added), resolved: sum((p) => p.resolved), left: m.notes_left, ...noteCounts(m) },
    tokens: { input: m.totals.input_tokens, output: m.totals.output_tokens, total: totalTokens(m.totals) },
    cost_usd: m.totals.cost_usd,
    duration_ms: runDuration(m),
    started_at: m.created_at,
  };
}

export function fmtDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function fmtTokens(n: number | null | undefined): string {
  if (n === null || n === undefined) return '-';
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** A token count and its noun: `1 token`, `12.3k tokens`, `- tokens` when unknown. */
export function fmtTokenCount(n: number | null | undefined): string {
  return n === 1 ? '1 token' : `${fmtTokens(n)} tokens`;
}

export function fmtCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return '-';
  return usd === 0 ? '$0' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** A run's total cost with what it is: a subscription login's cost is the list price of what it used, not a charge. */
export function fmtRunCost(totals: { cost_usd: number | null; cost_source?: string | null }): string {
  return `${fmtCost(totals.cost_usd)}${totals.cost_usd !== null && totals.cost_source === 'subscription' ? ' (list price)' : ''}`;
}

/** `2026-05-14 12:34` in UTC: runs are named in UTC too. */
export function fmtTime(iso: string | null | undefined): string {
  if (!iso) return '-';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toISOString().slice(0, 16).replace('T', ' ');
}

/** Left-aligned columns separated by two spaces, padded to terminal columns (a CJK name takes two a character); the last column is not padded. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, displayWidth(cell));
  return `${rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : padColumns(cell, widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

/** What a replay replays, in words (`bounce show`, the report); null for a run that is no replay. */
export function replayOrigin(m: Pick<RunManifest, 'replay_of'>): string | null {
  return m.replay_of ? `a replay of ${m.replay_of}: every reply came from its records, no agent was called` : null;
}

/** Where a fork came from, in words (`bounce show`, the report, `bounce diff`); null for a run that is no fork. */
export function forkPoint(m: Pick<RunManifest, 'forked_from'>): string | null {
  const f = m.forked_from;
  if (!f) return null;
  const copied = f.pass === 1 ? 'no pass copied' : f.pass === 2 ? 'pass 1 copied' : `passes 1 to ${f.pass - 1} copied`;
  return `forked from ${f.run} at pass ${f.pass} (${copied}, run live from pass ${f.pass} on)`;
}

/** One check run in a line: `failed  markdownlint-cli2 {file} (exit 1, 412ms): pass-2-....check-1.log`. */
export function fmtCheckRun(c: Pick<CheckRunRecord, 'status' | 'command' | 'exit_code' | 'duration_ms' | 'timeout_s' | 'output'>): string {
  const how =
    c.status === 'timed-out'
      ? `killed at its ${c.timeout_s}s limit`
      : c.exit_code === null
        ? c.status === 'not-started'
          ? 'not started'
          : 'a signal'
        : `exit ${c.exit_code}`;
  return `${c.status.padEnd(11)} ${c.command} (${how}, ${fmtDuration(c.duration_ms)}): ${c.output.path}`;
}
