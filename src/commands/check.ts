import { dirname } from 'node:path';
import type { Io } from '../io.js';
import { EXIT } from '../errors.js';
import { loadConfig } from '../config/load.js';
import type { CheckResult } from '../adapters/contract.js';
import { checkAdapter } from '../adapters/host.js';
import { resolveAgent, type ResolvedAgent } from '../adapters/registry.js';
import { preflight } from '../runner/preflight.js';

interface Row {
  agent: string;
  adapter: string;
  source: 'configured' | 'default';
  found: boolean;
  version: string | null;
  config: 'ok' | 'problem';
  credentials: 'ok' | 'warning' | 'problem';
  problems: string[];
  warnings: string[];
  resolved: CheckResult['resolved'];
}

const CREDENTIAL = /key|login|logged|auth|credential|token|https|secret/i;

async function checkOne(agent: ResolvedAgent, env: NodeJS.ProcessEnv): Promise<CheckResult> {
  if (agent.adapter !== 'mock' && agent.adapter !== 'cmd') return checkAdapter(agent, 30_000, env);
  let base: CheckResult;
  try {
    const r = await preflight({ reviewer: agent, composer: agent }, env);
    base = { ok: true, version: r.reviewer.version, problems: [], warnings: [], resolved: r.reviewer.resolved };
  } catch (err) {
    return { ok: false, version: null, problems: [err instanceof Error ? err.message : String(err)], warnings: [], resolved: {} };
  }
  if (agent.adapter === 'mock') return base;
  // A cmd: program's own --check is asked too; one that does not answer it is only a warning.
  const own = await checkAdapter(agent, 30_000, env);
  if (own.problems.some((p) => p.includes('--check failed'))) return { ...base, warnings: ['does not answer --check (see docs/adapter-contract.md)'] };
  return { ...own, resolved: { ...base.resolved, ...own.resolved } };
}

/**
 * `bounce check`: runs every configured agent's and each default agent's `--check` (no
 * API call) and prints a table. Configured agents with problems fail the check; a default
 * CLI that is not installed only fails it when no usable agent is left at all.
 */
export async function runCheck(opts: { config?: string; json?: boolean }, io: Io): Promise<number> {
  const { config, path } = loadConfig(io.cwd, io.env, opts.config);
  const configDir = path ? dirname(path) : null;
  const specs = new Map<string, Row['source']>();
  for (const spec of [config.reviewer, config.composer, ...Object.keys(config.agents)]) if (spec) specs.set(spec, 'configured');
  for (const spec of ['claude', 'codex']) if (!specs.has(spec)) specs.set(spec, 'default');
  const rows: Row[] = await Promise.all(
    [...specs].map(async ([spec, source]) => {
      let agent: ResolvedAgent;
      try {
        agent = resolveAgent(spec, config, io.cwd, configDir);
      } catch (err) {
        return {
          agent: spec,
          adapter: '?',
          source,
          found: false,
          version: null,
          config: 'problem',
          credentials: 'ok',
          problems: [err instanceof Error ? err.message : String(err)],
          warnings: [],
          resolved: {},
        } satisfies Row;
      }
      const r = await checkOne(agent, io.env);
      const cred = r.problems.filter((p) => CREDENTIAL.test(p));
      return {
        agent: spec,
        adapter: agent.adapter,
        source,
        found: r.version !== null || agent.adapter === 'cmd',
        version: r.version,
        config: r.problems.length > cred.length ? 'problem' : 'ok',
        credentials: cred.length ? 'problem' : r.warnings.some((w) => CREDENTIAL.test(w)) ? 'warning' : 'ok',
        problems: r.problems,
        warnings: r.warnings,
        resolved: r.resolved,
      } satisfies Row;
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
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const out = [line(head), ...body.map(line)];
  for (const r of rows) {
    const resolved = Object.entries(r.resolved).filter(([, v]) => v !== null && v !== '');
    if (resolved.length) out.push(`${r.agent}: ${resolved.map(([k, v]) => `${k}=${String(v)}`).join(', ')}`);
    for (const p of r.problems) out.push(`problem: ${r.agent}: ${p}`);
    for (const w of r.warnings) out.push(`warning: ${r.agent}: ${w}`);
  }
  return `${out.join('\n')}\n`;
}
