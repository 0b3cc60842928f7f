import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { writeFileAtomic } from '../atomic.js';
import { loadConfigKeys, runsDirFor } from '../config/load.js';
import { EXIT, usageError } from '../errors.js';
import { gradesPath, writeGrades } from '../grade/grades-file.js';
import { type AgentStats, collectStats, type StatsResult } from '../grade/stats.js';
import type { Io } from '../io.js';
import { ageMs } from '../option-values.js';
import { plural } from '../plural.js';
import { fmtCost, fmtDuration, fmtTokens, table } from '../report/format.js';
import { renderScorecard } from '../report/scorecard.js';
import { listRuns } from '../store/resolve-run.js';
import type { RunManifest } from '../store/manifest.js';

export interface StatsOptions {
  runsDir?: string;
  config?: string;
  /** Only runs made since: a date (2026-05-01, or a full ISO time) or an age (30d, 12h, 90m). */
  since?: string;
  json?: boolean;
  /** Write the grades file (`--grades FILE`, else .bounce/grades.yaml beside the config). */
  write?: boolean;
  grades?: string;
  /** Write the scorecard page to FILE. */
  html?: string;
}

/** `--since` as a time in ms: an age back from now, or a date. */
export function sinceMs(value: string, now = Date.now()): number {
  if (/^\s*\d+\s*[a-z]\s*$/i.test(value)) return now - ageMs(value, '--since');
  const t = /^\d{4}-\d{2}-\d{2}$/.test(value.trim()) ? Date.parse(`${value.trim()}T00:00:00Z`) : Date.parse(value);
  if (Number.isNaN(t))
    throw usageError(`--since ${JSON.stringify(value)} is neither a date nor an age`, 'give a date (--since 2026-05-01) or an age (--since 30d)');
  return t;
}

const pct = (x: number | null): string => (x === null ? '-' : `${(x * 100).toFixed(0)}%`);
const ratio = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(2));

function textReport(r: StatsResult, runsDir: string, since: string | undefined): string {
  const head = [
    'AGENT',
    'RUNS',
    'DISPATCHES',
    'RAISED',
    'ACTED',
    'DISMISSED',
    'OPEN',
    'GRADED',
    'PRECISION',
    'REPAIRS/PASS',
    'FAILURES/PASS',
    'TOKENS/DOC',
    'COST/DOC',
    'MEDIAN PASS',
    'TREND',
  ];
  const rows = r.agents.map((a) => [
    a.agent,
    String(a.runs),
    String(a.dispatches),
    String(a.notes.raised),
    String(a.notes.acted),
    String(a.notes.dismissed),
    String(a.notes.open),
    String(a.graded.accepted + a.graded.rejected),
    pct(a.precision),
    ratio(a.repairs_per_pass),
    ratio(a.failures_per_pass),
    a.tokens_per_converged === null ? '-' : fmtTokens(Math.round(a.tokens_per_converged)),
    fmtCost(a.cost_usd_per_converged),
    fmtDuration(a.median_pass_ms),
    a.trend ?? '-',
  ]);
  const left = [
    r.skipped.unreadable ? `${r.skipped.unreadable} unreadable` : '',
    r.skipped.before_since ? `${r.skipped.before_since} made before --since` : '',
  ].filter(Boolean);
  const lines = [
    `${plural(r.runs, 'run')} in ${runsDir}${since ? ` since ${since}` : ''}${left.length ? ` (left out: ${left.join(', ')})` : ''}`,
    ...(rows.length ? [table([head, ...rows]).trimEnd()] : ['no agent took a pass in these runs']),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * `bounce stats` (docs/grading.md, "Stats"): per agent and role across the runs of a runs
 * folder, what they did and how their graded notes fared; `--write` writes the grades file,
 * `--html` a scorecard page.
 */
export async function runStats(opts: StatsOptions, io: Io): Promise<number> {
  const loaded = loadConfigKeys(io.cwd, io.env, opts.config, ['runs_dir']);
  const runsDir = runsDirFor(io.cwd, loaded, opts.runsDir);
  const since = opts.since === undefined ? null : sinceMs(opts.since);
  const runs: { dir: string; manifest: RunManifest }[] = [];
  const skipped = { unreadable: 0, before_since: 0 };
  for (const e of listRuns(runsDir)) {
    if (!e.manifest) skipped.unreadable += 1;
    else if (since !== null && Date.parse(e.manifest.created_at) < since) skipped.before_since += 1;
    else runs.push({ dir: e.dir, manifest: e.manifest });
  }
  const agents: AgentStats[] = collectStats(runs);
  const result: StatsResult = { runs: runs.length, skipped, agents };
  const written: { grades?: string; html?: string } = {};
  if (opts.write) {
    written.grades = gradesPath(io.cwd, loaded.path, opts.grades);
    writeGrades(written.grades, agents);
  } else if (opts.grades !== undefined) throw usageError('--grades names the file --write writes', 'add --write, or leave --grades out');
  if (opts.html !== undefined) {
    written.html = resolve(io.cwd, opts.html);
    mkdirSync(dirname(written.html), { recursive: true });
    writeFileAtomic(written.html, renderScorecard(result, { runsDir, since: opts.since ?? null }), 0o644);
  }
  if (opts.json)
    io.stdout.write(`${JSON.stringify({ runs_dir: runsDir, since: since === null ? null : new Date(since).toISOString(), ...result, written }, null, 2)}\n`);
  else {
    io.stdout.write(textReport(result, runsDir, opts.since));
    if (written.grades) io.stderr.write(`wrote ${written.grades}\n`);
    if (written.html) io.stderr.write(`wrote ${written.html}\n`);
  }
  return EXIT.ok;
}
