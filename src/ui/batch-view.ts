import { plural } from '../plural.js';
import { createColors } from 'picocolors';
import type { EngineEvent, EventSink } from '../engine/deps.js';
import type { RunResult } from '../engine/run-document.js';
import { EXIT } from '../errors.js';
import type { Io } from '../io.js';
import type { CostSource, FinalStatus } from '../vocabulary.js';
import { combineCostSources } from '../prices.js';
import { displayWidth, fitColumns, padColumns } from '../text/display-width.js';
import { fromCache, lastAcceptedDocument, newRunStep, offeredPasses, type RefineJson, runJson } from './run-summary.js';
import type { StepPlace } from '../store/run-location.js';
import { join } from 'node:path';
import { cacheHitsOf } from '../store/manifest.js';
import { maxOf } from '../arrays.js';

/** How a batch ended: the worst of its runs (interrupted, then failed, then not converged), or `empty` with no document. */
export type BatchStatus = FinalStatus | 'empty';

/** The batch's exit code: 130 if interrupted, else 3 if any run failed, else 1 if any did not converge, else 0. */
export function batchOutcome(statuses: readonly FinalStatus[]): { status: BatchStatus; exitCode: number } {
  if (statuses.length === 0) return { status: 'empty', exitCode: EXIT.ok };
  if (statuses.includes('interrupted')) return { status: 'interrupted', exitCode: EXIT.interrupted };
  if (statuses.includes('failed')) return { status: 'failed', exitCode: EXIT.agent };
  if (statuses.includes('not-converged')) return { status: 'not-converged', exitCode: EXIT.notConverged };
  return { status: 'converged', exitCode: EXIT.ok };
}

/** The one object `--json` prints for a batch (refine of several documents, resume of several runs). */
export interface BatchJson {
  batch_id: string | null;
  status: BatchStatus;
  exit_code: number;
  shard: { index: number; count: number } | null;
  concurrency: number;
  /** The per-document objects, as `--json` prints them for one run, in the batch's order. */
  runs: RefineJson[];
  totals: {
    documents: number;
    converged: number;
    not_converged: number;
    failed: number;
    interrupted: number;
    passes_run: number;
    dispatches: number;
    /** Of the dispatches, those the response cache answered (--cache): no agent called, cost 0. */
    cache_hits: number;
    input_tokens: number | null;
    output_tokens: number | null;
    cost_usd: number | null;
    /** The least certain source of the runs' costs (`unknown` over `table` over `provider`); with `unknown`, cost_usd is a lower bound. */
    cost_source: CostSource | null;
    /** Wall time of the whole batch. */
    duration_ms: number;
  };
  next: string | null;
}

export interface BatchFacts {
  batchId: string | null;
  shard: { index: number; count: number } | null;
  concurrency: number;
  durationMs: number;
  /** What a printed command needs where it is printed: the options that find the batch's runs, and max_passes (src/store/run-location.ts). */
  place: StepPlace;
}

const addOrNull = (a: number | null, b: number | null): number | null => (a === null && b === null ? null : (a ?? 0) + (b ?? 0));

export function batchJson(results: readonly RunResult[], facts: BatchFacts): BatchJson {
  const { status, exitCode } = batchOutcome(results.map((r) => r.status));
  const count = (s: FinalStatus): number => results.filter((r) => r.status === s).length;
  let input: number | null = null;
  let output: number | null = null;
  let cost: number | null = null;
  for (const r of results) {
    input = addOrNull(input, r.manifest.totals.input_tokens);
    output = addOrNull(output, r.manifest.totals.output_tokens);
    cost = addOrNull(cost, r.manifest.totals.cost_usd);
  }
  return {
    batch_id: facts.batchId,
    status,
    exit_code: exitCode,
    shard: facts.shard,
    concurrency: facts.concurrency,
    runs: results.map((r) => runJson(r, facts.place)),
    totals: {
      documents: results.length,
      converged: count('converged'),
      not_converged: count('not-converged'),
      failed: count('failed'),
      interrupted: count('interrupted'),
      passes_run: results.reduce((n, r) => n + r.manifest.passes.run, 0),
      dispatches: results.reduce((n, r) => n + r.manifest.totals.dispatches, 0),
      cache_hits: results.reduce((n, r) => n + cacheHitsOf(r.manifest), 0),
      input_tokens: input,
      output_tokens: output,
      cost_usd: cost,
      cost_source: results.reduce<CostSource | null>((src, r) => combineCostSources(src, r.manifest.totals.cost_source), null),
      duration_ms: facts.durationMs,
    },
    next: batchNext(results, facts.batchId, facts.place),
  };
}

/**
 * What to run next, commands joined by `; `: resume the batch's unfinished runs (interrupted
 * or failed; `--batch` finishes them all), then take each run that did not converge further
 * on its own (`--passes` takes one run at a time: docs/batch.md), within max_passes, or start
 * a new run from its last accepted document when it has had the most passes it may have
 * (offeredPasses); null when every run converged. Paths are as given: the batch's runs
 * folder, relative to where bounce ran or absolute.
 */
function batchNext(results: readonly RunResult[], batchId: string | null, place: StepPlace): string | null {
  const where = place.flags;
  const steps: string[] = [];
  const unfinished = results.filter((r) => r.status === 'interrupted' || r.status === 'failed');
  if (unfinished.length > 0)
    steps.push(batchId ? `bounce resume --batch ${batchId}${where}` : `bounce resume ${unfinished.map((r) => r.runId).join(' ')}${where}`);
  for (const r of results.filter((x) => x.status === 'not-converged')) {
    const offer = offeredPasses(r.manifest, place.maxPasses);
    steps.push(
      offer
        ? `bounce resume ${r.runId}${where} --passes ${offer.passes}`
        : newRunStep(r.manifest, join(r.runDir, lastAcceptedDocument(r.manifest)), where, place.maxPasses),
    );
  }
  return steps.length > 0 ? steps.join('; ') : null;
}

interface Row {
  label: string;
  pass: number | null;
  total: number;
  role: string;
  agent: string;
  notes: number | null;
  started: number;
  note: string | null;
}

const CLEAR_DOWN = '\u001b[J';
const up = (n: number): string => (n > 0 ? `\u001b[${n}A\r` : '\r');
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/**
 * A batch on stderr. On a terminal: a live table of the documents being refined (document,
 * pass, agent, elapsed, notes) under one line per finished document, redrawn every second.
 * Elsewhere (CI logs, pipes): one plain line per pass and per document. `--quiet`: nothing.
 */
export class BatchView {
  private readonly tty: boolean;
  private readonly c: ReturnType<typeof createColors>;
  private readonly rows = new Map<number, Row>();
  private drawn = 0;
  private done = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly io: Io,
    private readonly quiet: boolean,
    private readonly total: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tty = Boolean(io.stderr.isTTY);
    this.c = createColors(this.tty && !io.env.NO_COLOR);
  }

  /** The event sink of document `i` (`label` as the table shows it). */
  sink(i: number, label: string): EventSink {
    return (e) => this.on(i, label, e);
  }

  private on(i: number, label: string, e: EngineEvent): void {
    if (this.quiet) return;
    switch (e.type) {
      case 'run-started':
        this.rows.set(i, { label, pass: null, total: e.totalPasses, role: '', agent: '', notes: null, started: this.now(), note: null });
        if (!this.tty && e.resumedAfter !== null) this.line(`${label}: resuming ${e.runId} after pass ${e.resumedAfter}`);
        break;
      case 'pass-started': {
        const row = this.rows.get(i);
        if (row) Object.assign(row, { pass: e.pass, total: e.totalPasses, role: e.role, agent: e.agent, notes: e.notesIn, note: null });
        break;
      }
      case 'pass-finished': {
        const row = this.rows.get(i);
        if (!row) break;
        if (!this.tty) {
          const notes = e.notesAfter === null ? '' : `, ${row.notes ?? 0} -> ${plural(e.notesAfter, 'note')}`;
          this.line(`${label}: pass ${e.pass}/${row.total} ${row.role} ${row.agent}: ${e.outcome}${notes}`);
        }
        if (e.notesAfter !== null) row.notes = e.notesAfter;
        break;
      }
      case 'retry-scheduled': {
        const what = e.why === 'repair' ? 'repair requested' : e.why === 'empty' ? 'empty reply, resending' : `${e.message}; waiting ${secs(e.waitMs)}`;
        const row = this.rows.get(i);
        if (row) row.note = what;
        if (!this.tty) this.line(`${label}: pass ${e.pass}: ${what}`);
        break;
      }
      case 'warning': {
        const row = this.rows.get(i);
        if (row) row.note = `warning: ${e.message}`;
        if (!this.tty) this.line(`${label}: pass ${e.pass}: warning: ${e.message}`);
        break;
      }
      default:
        break;
    }
    if (this.tty) this.redraw();
  }

  /** Document `i` ended: a line that stays (status, passes, notes, time) and its row leaves the table. */
  finished(i: number, label: string, r: RunResult): void {
    this.done += 1;
    this.rows.delete(i);
    if (this.quiet) return;
    const m = r.manifest;
    const status = r.exitCode === EXIT.ok ? this.c.green(r.status) : this.c.red(r.status);
    const notes = r.notesLeft === null ? '' : `, ${plural(r.notesLeft, 'note')} left`;
    // An interruption needs no words per document: the batch's next step says how to go on.
    const why = r.error && (r.status === 'failed' || r.status === 'not-converged') ? `: ${r.error.message}` : '';
    this.line(`[${this.done}/${this.total}] ${label}: ${status}, ${m.passes.run}/${m.passes.requested} passes${notes}, ${secs(m.totals.duration_ms)}${why}`);
    if (this.tty) this.redraw();
  }

  /** A line above the live table (or a plain line). */
  private line(text: string): void {
    if (this.tty) {
      this.io.stderr.write(`${up(this.drawn)}${CLEAR_DOWN}${this.fit(text)}\n`);
      this.drawn = 0;
    } else this.io.stderr.write(`${text}\n`);
  }

  private fit(text: string): string {
    const columns = 'columns' in this.io.stderr ? Number((this.io.stderr as { columns?: number }).columns) : Number.NaN;
    return Number.isInteger(columns) && columns > 1 ? fitColumns(text, columns - 1) : text;
  }

  /** The live table: one row per document being refined, then how far the batch is. */
  private redraw(): void {
    if (!this.timer && this.rows.size > 0) {
      this.timer = setInterval(() => this.redraw(), 1000);
      this.timer.unref();
    }
    const lines: string[] = [];
    for (const row of this.rows.values()) {
      const pass = row.pass === null ? 'starting' : `pass ${row.pass}/${row.total} ${row.role}`;
      const notes = row.notes === null ? '' : `, ${plural(row.notes, 'note')}`;
      const note = row.note ? `, ${this.c.yellow(row.note)}` : '';
      lines.push(this.fit(`${row.label}  ${this.c.bold(pass)} ${this.c.cyan(row.agent)}  ${this.c.dim(secs(this.now() - row.started))}${notes}${note}`));
    }
    lines.push(this.fit(this.c.dim(`${this.done}/${this.total} done, ${this.rows.size} running`)));
    this.io.stderr.write(`${up(this.drawn)}${CLEAR_DOWN}${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }

  /** Stops redrawing and clears the live table. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.tty && this.drawn > 0 && !this.quiet) this.io.stderr.write(`${up(this.drawn)}${CLEAR_DOWN}`);
    this.drawn = 0;
  }
}

/** The summary table at the end: document, status, passes, notes, tokens, cost, time; then the totals and the next step. */
export function batchSummary(results: readonly RunResult[], labels: readonly string[], json: BatchJson, io: Io): string {
  const c = createColors(Boolean(io.stderr.isTTY) && !io.env.NO_COLOR);
  const head = ['document', 'status', 'passes', 'notes', 'tokens', 'cost', 'time'];
  const body = results.map((r, i) => {
    const t = r.manifest.totals;
    const tokens = addOrNull(t.input_tokens, t.output_tokens);
    return [
      labels[i] ?? r.runId,
      r.status,
      `${r.manifest.passes.run}/${r.manifest.passes.requested}`,
      r.notesLeft === null ? '-' : String(r.notesLeft),
      tokens === null ? '-' : String(tokens),
      t.cost_usd === null ? '-' : `$${t.cost_usd.toFixed(4)}`,
      secs(t.duration_ms),
    ];
  });
  const widths = head.map((h, k) =>
    maxOf(
      displayWidth(h),
      body.map((row) => displayWidth(row[k]!)),
    ),
  );
  const cells = (row: string[]): string => row.map((cell, k) => padColumns(cell, widths[k]!, k >= 2)).join('  ');
  const t = json.totals;
  const tokens = addOrNull(t.input_tokens, t.output_tokens);
  const outcome = json.exit_code === EXIT.ok ? c.green(json.status) : c.red(json.status);
  const facts = [
    `${t.converged} converged`,
    t.not_converged ? `${t.not_converged} not converged` : '',
    t.failed ? `${t.failed} failed` : '',
    t.interrupted ? `${t.interrupted} interrupted` : '',
  ].filter(Boolean);
  const lines = [
    c.bold(cells(head)),
    ...body.map(cells),
    `${outcome}: ${plural(t.documents, 'document')} (${facts.join(', ')}), ${plural(t.dispatches, 'dispatch', 'dispatches')}${fromCache(t.cache_hits)}, ${tokens === null ? 'tokens unknown' : `${tokens} tokens`}, ${t.cost_usd === null ? 'cost unknown' : `$${t.cost_usd.toFixed(4)}`}, ${secs(t.duration_ms)}`,
    ...(json.batch_id ? [`batch: ${json.batch_id}`] : []),
    ...(json.next ? [`next: ${json.next}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}
