/**
 * The bench's rows, one per reviewer/composer pair, and how they are shown: the leaderboard
 * table, the `--json` object (docs/defect-bench.md). Only live rows are ranked; mock, `cmd:`
 * and unverified rows are shown apart, and a pair that was not run is `not-run`, never zeros.
 */
import { plural } from '../plural.js';
import type { Corpus } from './corpus.js';
import { DEFECT_KINDS, type DefectKind } from './key.js';
import type { RowEvidence, RunScore } from './run-score.js';
import { fraction, rates } from './score.js';

export interface PairRow {
  pair: string;
  reviewer: string;
  composer: string;
  /** `run`: scored from its runs; `not-run`: no run of it exists (its agent was unavailable, say), so it has no numbers. */
  status: 'run' | 'not-run';
  /** Why it was not run, or why its evidence is not live. */
  reason: string | null;
  /** Null for a pair not run. */
  evidence: RowEvidence | null;
  /** The batch the bench ran it as; null when scored from run folders. */
  batch_id: string | null;
  runs: string[];
  /** Corpus documents with no run of this pair: their defects count as planted, not found, not fixed. */
  missing: string[];
  converged: number;
  passes: number | null;
  defects: number;
  found: number | null;
  fixed: number | null;
  notes: number | null;
  /** Notes that point at no planted defect. */
  stray_notes: number | null;
  lint_failures: number | null;
  recall: number | null;
  fix_rate: number | null;
  precision: number | null;
  dismissal_rate: number | null;
  cost_usd: number | null;
  duration_ms: number | null;
  cost_per_found_usd: number | null;
  ms_per_found: number | null;
  by_kind: Record<DefectKind, { defects: number; found: number; fixed: number }> | null;
  /** Whether its runs are replays (`bounce replay`): cost, time and evidence are the recordings'. */
  replayed: boolean;
}

const EVIDENCE_ORDER: RowEvidence[] = ['mock', 'cmd', 'unverified', 'live'];

/** A pair's row from its runs' scores; `pair` with no score is `not-run`. */
export function pairRow(
  pair: { pair: string; reviewer: string; composer: string; batchId: string | null; notRun: string | null },
  scores: readonly RunScore[],
  corpus: Corpus,
): PairRow {
  const allDefects = corpus.documents.reduce((n, d) => n + d.defects.length, 0);
  const empty = {
    pair: pair.pair,
    reviewer: pair.reviewer,
    composer: pair.composer,
    batch_id: pair.batchId,
    runs: [],
    missing: [],
    converged: 0,
    passes: null,
    defects: allDefects,
    found: null,
    fixed: null,
    notes: null,
    stray_notes: null,
    lint_failures: null,
    recall: null,
    fix_rate: null,
    precision: null,
    dismissal_rate: null,
    cost_usd: null,
    duration_ms: null,
    cost_per_found_usd: null,
    ms_per_found: null,
    by_kind: null,
    replayed: false,
  };
  if (scores.length === 0) return { ...empty, status: 'not-run', reason: pair.notRun ?? 'no run of this pair was found', evidence: null };
  const missing = corpus.documents.filter((d) => !scores.some((s) => s.document === d.name));
  const r = rates([
    ...scores.map((s) => s.score),
    ...missing.map((d) => ({ defects: d.defects.length, found: [], fixed: [], notes: 0, near: 0, stray: 0, lintFailures: 0, acted: 0, dismissed: 0 })),
  ]);
  const worst = EVIDENCE_ORDER.find((e) => scores.some((s) => s.evidence === e)) ?? 'unverified';
  const costs = scores.map((s) => s.costUsd);
  const cost = costs.some((c) => c === null) ? null : costs.reduce<number>((n, c) => n + (c ?? 0), 0);
  const duration = scores.reduce((n, s) => n + s.durationMs, 0);
  const byKind = Object.fromEntries(DEFECT_KINDS.map((k) => [k, { defects: 0, found: 0, fixed: 0 }])) as NonNullable<PairRow['by_kind']>;
  for (const d of corpus.documents) {
    const s = scores.find((x) => x.document === d.name)?.score;
    for (const defect of d.defects) {
      const k = byKind[defect.kind];
      k.defects++;
      if (s?.found.includes(defect.id)) k.found++;
      if (s?.fixed.includes(defect.id)) k.fixed++;
    }
  }
  const passes = [...new Set(scores.map((s) => s.passes))];
  return {
    ...empty,
    status: 'run',
    reason: scores.find((s) => s.evidence === worst)?.why ?? null,
    evidence: worst,
    runs: scores.map((s) => s.runId),
    missing: missing.map((d) => d.name),
    converged: scores.filter((s) => s.status === 'converged').length,
    passes: passes.length === 1 ? passes[0]! : null,
    defects: r.defects,
    found: r.found,
    fixed: r.fixed,
    notes: r.notes,
    stray_notes: r.stray,
    lint_failures: r.lint_failures,
    recall: r.recall,
    fix_rate: r.fix_rate,
    precision: r.precision,
    dismissal_rate: r.dismissal_rate,
    cost_usd: cost,
    duration_ms: duration,
    cost_per_found_usd: cost === null ? null : fraction(cost, r.found),
    ms_per_found: fraction(duration, r.found),
    by_kind: byKind,
    replayed: scores.some((s) => s.replayOf !== null),
  };
}

/** Live rows ranked: fix rate, then recall, then precision (none counts below any), then the pair's name. */
export function leaderboard(rows: readonly PairRow[]): PairRow[] {
  const key = (v: number | null): number => v ?? -1;
  return rows
    .filter((r) => r.status === 'run' && r.evidence === 'live')
    .sort((a, b) => key(b.fix_rate) - key(a.fix_rate) || key(b.recall) - key(a.recall) || key(b.precision) - key(a.precision) || a.pair.localeCompare(b.pair));
}

export interface BenchJson {
  corpus: string;
  documents: number;
  defects: number;
  /** Every pair asked for (or found in the runs scored), live or not, run or not. */
  pairs: PairRow[];
  /** The live pairs, best first; mock, cmd: and unverified rows never appear here. */
  leaderboard: string[];
  /** The command that scores the same runs again (or their replays, named by run). */
  rescore: string | null;
}

export function benchJson(corpus: { label: string; documents: number; defects: number }, rows: PairRow[], rescore: string | null): BenchJson {
  return {
    corpus: corpus.label,
    documents: corpus.documents,
    defects: corpus.defects,
    pairs: rows,
    leaderboard: leaderboard(rows).map((r) => r.pair),
    rescore,
  };
}

export const percent = (v: number | null): string => (v === null ? '-' : `${Math.round(v * 100)}%`);
export const usd = (v: number | null): string => (v === null ? '-' : `$${v.toFixed(4)}`);
export const seconds = (ms: number | null): string => (ms === null ? '-' : `${(ms / 1000).toFixed(1)}s`);

/** The cells of one row, in the order of TABLE_HEADER. */
export function rowCells(r: PairRow, rank: string): string[] {
  if (r.status === 'not-run') return [rank, r.pair, 'not-run', 'not-run', 'not-run', 'not-run', '-', '-', '-', '-', '-', '-'];
  return [
    rank,
    r.pair,
    r.evidence ?? '-',
    percent(r.recall),
    percent(r.fix_rate),
    percent(r.precision),
    String(r.stray_notes ?? '-'),
    String(r.lint_failures ?? '-'),
    percent(r.dismissal_rate),
    usd(r.cost_per_found_usd),
    seconds(r.ms_per_found),
    `${r.converged}/${r.runs.length + r.missing.length}`,
  ];
}

export const TABLE_HEADER = ['#', 'pair', 'evidence', 'recall', 'fix rate', 'precision', 'stray', 'lint', 'dismissed', 'cost/found', 'time/found', 'converged'];

function table(rows: string[][]): string {
  const widths = TABLE_HEADER.map((_, i) => Math.max(...[TABLE_HEADER, ...rows].map((r) => r[i]!.length)));
  return [TABLE_HEADER, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The leaderboard as a person reads it: the live rows ranked, then every other row, unranked. */
export function benchTable(json: BenchJson): string {
  const ranked = leaderboard(json.pairs);
  const others = json.pairs.filter((r) => !ranked.includes(r));
  const out = [`corpus ${json.corpus}: ${plural(json.documents, 'document')}, ${plural(json.defects, 'defect')}`, ''];
  out.push('live leaderboard (fix rate, then recall, then precision):');
  out.push(
    ranked.length
      ? table(ranked.map((r, i) => rowCells(r, String(i + 1))))
      : '  no live rows: no pair ran with a concrete model, an output-token limit and provider-reported usage',
  );
  if (others.length) {
    out.push('', 'not live, never ranked (mock, cmd:, unverified, not-run):');
    out.push(table(others.map((r) => rowCells(r, '-'))));
    for (const r of others) if (r.reason) out.push(`  ${r.pair}: ${r.status === 'not-run' ? 'not run: ' : ''}${r.reason}`);
  }
  if (json.rescore) out.push('', `score again: ${json.rescore}`);
  return `${out.join('\n')}\n`;
}
