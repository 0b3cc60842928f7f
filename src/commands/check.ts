import { dirname } from 'node:path';
import { checkAgent } from '../adapters/check-agent.js';
import { type CheckProblem, type CheckResult, problemLine } from '../adapters/contract.js';
import { createProbe } from '../adapters/detect.js';
import { resolveAgent } from '../adapters/registry.js';
import { loadConfig } from '../config/load.js';
import { EXIT, isBounceError } from '../errors.js';
import type { Io } from '../io.js';
import type { CheckProblemKind } from '../vocabulary.js';

type Level = 'ok' | 'warning' | 'problem';

interface Row {
  agent: string;
  adapter: string;
  source: 'configured' | 'default';
  found: boolean;
  version: string | null;
  config: Level;
  credentials: Level;
  problems: CheckProblem[];
  warnings: CheckProblem[];
  resolved: CheckResult['resolved'];
}

/** Which column of the table each kind of problem belongs to. */
const COLUMN: Record<CheckProblemKind, 'found' | 'version' | 'config' | 'credentials'> = {
  not_found: 'found',
  version: 'version',
  credentials: 'credentials',
  login_unverified: 'credentials',
  config: 'config',
  unreachable: 'config',
  no_check: 'config',
};

function level(r: Pick<CheckResult, 'problems' | 'warnings'>, column: 'config' | 'credentials'): Level {
  if (r.problems.some((p) => COLUMN[p.kind] === column)) return 'problem';
  return r.warnings.some((w) => COLUMN[w.kind] === column) ? 'warning' : 'ok';
}

function row(agent: string, adapter: string, source: Row['source'], r: CheckResult): Row {
  return {
    agent,
    adapter,
    source,
    found: !r.problems.some((p) => COLUMN[p.kind] === 'found'),
    version: r.version,
    config: level(r, 'config'),
    credentials: level(r, 'credentials'),
    problems: r.problems,
    warnings: r.warnings,
    resolved: r.resolved,
  };
}

/**
 * `bounce check`: checks every configured agent and each default agent (no API call) and
 * prints a table, then each problem and warning with its fix. Configured agents with
 * problems fail the check; a default CLI that is not installed only fails it when no
 * usable agent is left at all.
 */
export async function runCheck(opts: { config?: string; json?: boolean }, io: Io): Promise<number> {
  const { config, path } = loadConfig(io.cwd, io.env, opts.config);
  const configDir = path ? dirname(path) : null;
  const specs = new Map<string, Row['source']>();
  for (const spec of [config.reviewer, config.composer, ...Object.keys(config.agents)]) if (spec) specs.set(spec, 'configured');
  for (const spec of ['claude', 'codex']) if (!specs.has(spec)) specs.set(spec, 'default');
  const probe = createProbe();
  const rows: Row[] = await Promise.all(
    [...specs].map(async ([spec, source]) => {
      let agent: ReturnType<typeof resolveAgent>;
      try {
        agent = resolveAgent(spec, config, io.cwd, configDir);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const hint = isBounceError(err) ? err.hint : undefined;
        const problem: CheckProblem = { kind: 'config', message, ...(hint ? { fix: hint } : {}) };
        return row(spec, '?', source, { ok: false, version: null, problems: [problem], warnings: [], resolved: {} });
      }
      return row(spec, agent.adapter, source, await checkAgent(agent, io.env, { probe }));
    }),
  );
  const usable = rows.some((r) => r.problems.length === 0);
  const failing = rows.filter((r) => r.problems.length > 0 && (r.source === 'configured' || !usable));
  const exitCode = failing.length ? EXIT.notConverged : EXIT.ok;
  if (opts.json) io.stdout.write(`${JSON.stringify({ ok: exitCode === 0, agents: rows })}\n`);
  else io.stdout.write(table(rows));
  return exitCode;
}

function table(rows: Row[]): string {
  const head = ['AGENT', 'ADAPTER', 'SOURCE', 'FOUND', 'VERSION', 'CONFIG', 'CREDENTIALS'];
  const body = rows.map((r) => [r.agent, r.adapter, r.source, r.found ? 'yes' : 'no', r.version ?? '-', r.config, r.credentials]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]?.length ?? 0)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const out = [line(head), ...body.map(line)];
  for (const r of rows) {
    const resolved = Object.entries(r.resolved).filter(([, v]) => v !== null && v !== '');
    if (resolved.length) out.push(`${r.agent}: ${resolved.map(([k, v]) => `${k}=${String(v)}`).join(', ')}`);
    for (const p of r.problems) out.push(`problem: ${r.agent}: ${problemLine(p)}`);
    for (const w of r.warnings) out.push(`warning: ${r.agent}: ${problemLine(w)}`);
  }
  return `${out.join('\n')}\n`;
}
