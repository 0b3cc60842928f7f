import { basename, resolve } from 'node:path';
import type { Io } from '../io.js';
import { fmtCost, fmtDuration, fmtTime, fmtTokens, summarize, table, type RunSummary } from '../report/format.js';
import { shownStatus } from '../store/lock.js';
import { listRuns } from '../store/resolve-run.js';
import { runLocationFlags } from '../store/run-location.js';
import { mockAgents } from '../ui/run-summary.js';

export interface RunsOptions {
  /** Absolute or cwd-relative; the CLI passes config runs_dir or `runs`. */
  runsDir?: string;
  /** --config as given: the hint to resume a crashed run carries it. */
  config?: string;
  json?: boolean;
}

type Listed = (RunSummary & { dir: string; error: null }) | { run_id: string; dir: string; status: 'unreadable'; error: string };

/** The STATUS column's mark of mock evidence: both agents mock, or one beside a live or external agent. */
const MOCK_MARK = { all: ' (mock)', one: ' (a mock)' } as const;

/** `bounce runs`: every run in the runs dir, newest first (a `running` run whose process is gone as `crashed`). Always exit 0. */
export async function runRuns(opts: RunsOptions, io: Io): Promise<number> {
  const root = resolve(io.cwd, opts.runsDir ?? 'runs');
  const entries = listRuns(root);
  const listed: Listed[] = entries.map((e) =>
    e.manifest
      ? { ...summarize(e.manifest), status: shownStatus(e.dir, e.manifest.status).status, dir: e.dir, error: null }
      : { run_id: basename(e.dir), dir: e.dir, status: 'unreadable', error: e.error ?? 'run.json cannot be read' },
  );
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
    return 0;
  }
  if (listed.length === 0) {
    io.stderr.write(`no runs in ${root}\n`);
    return 0;
  }
  const rows = [['ID', 'DOCUMENT', 'STATUS', 'PASSES', 'NOTES', 'ACTED/DISMISSED', 'TOKENS', 'COST', 'DURATION', 'STARTED']];
  for (const [i, r] of listed.entries()) {
    if (r.error !== null) {
      rows.push([r.run_id, '-', 'unreadable', '-', '-', '-', '-', '-', '-', `(${r.error})`]);
      continue;
    }
    const mock = mockAgents(entries[i]!.manifest!);
    const status = `${r.status}${mock === null ? '' : MOCK_MARK[mock]}`;
    rows.push([
      r.run_id,
      r.document,
      status,
      `${r.passes.run}/${r.passes.requested}`,
      `+${r.notes.added}/-${r.notes.resolved}`,
      r.notes.acted === null ? '-' : `${r.notes.acted}/${r.notes.dismissed}`,
      fmtTokens(r.tokens.total),
      fmtCost(r.cost_usd),
      fmtDuration(r.duration_ms),
      fmtTime(r.started_at),
    ]);
  }
  io.stdout.write(table(rows));
  const crashed = listed.filter((r) => r.status === 'crashed');
  // The hint works as printed: with --runs-dir (and --config) when the defaults would not find the run.
  const where = crashed.length ? runLocationFlags({ runsDir: root, config: opts.config }, io) : '';
  for (const r of crashed) io.stderr.write(`${r.run_id} crashed (its process is gone): bounce resume ${r.run_id}${where}\n`);
  return 0;
}
