import { dirname } from 'node:path';
import { checkAgent, reachAgent } from '../preflight/check-agent.js';
import { type CheckProblem, type CheckResult, problemLine } from '../contract/contract.js';
import { createProbe } from '../kit/detect.js';
import { answers } from '../kit/endpoint.js';
import { type ResolvedAgent, resolveAgent } from '../adapters/registry.js';
import { adapterInfo, cliFacts, DEFAULT_CLIS } from '../adapters/builtins.js';
import { invokedAs } from '../adapters/invoked-as.js';
import { loadConfig } from '../config/load.js';
import { configInUse } from '../config/in-use.js';
import { EXIT, isBounceError } from '../errors.js';
import type { Io } from '../io.js';
import type { CheckProblemKind } from '../vocabulary.js';
import { maxOf } from '../arrays.js';
import { precisionWarnings } from '../grade/grades-file.js';
import { loadTemplates } from '../engine/prompt.js';
import type { GateResult } from '../gate/live.js';
import { gateAgents, gateLine } from '../request/gate-request.js';

/** `unknown`: not examined (the program is missing, say); `-`: does not apply (mock, an HTTP API's version). */
type Level = 'ok' | 'warning' | 'problem' | 'unknown' | '-';
/** null: not known (the agent could not be resolved). */
type Found = boolean | null;

interface Row {
  agent: string;
  adapter: string;
  source: 'configured' | 'default';
  found: Found;
  version: string | null;
  config: Level;
  credentials: Level;
  problems: CheckProblem[];
  warnings: CheckProblem[];
  resolved: CheckResult['resolved'];
  /** `--live`: the live gate's result; null when it was not run (no --live, or the agent has a problem already). */
  live?: GateResult | null;
}

/** Which column of the table each kind of finding belongs to. */
const COLUMN: Record<CheckProblemKind, 'found' | 'version' | 'config' | 'credentials'> = {
  not_found: 'found',
  unreachable: 'found',
  version: 'version',
  credentials: 'credentials',
  login_unverified: 'credentials',
  config: 'config',
  no_check: 'config',
};

/** The fix a finding gets when its adapter gave none: every problem printed names one. */
const defaultFix = (kind: CheckProblemKind): string =>
  ({
    not_found: `install it, or fix the path in ${configInUse()}`,
    unreachable: `start the server, or fix base_url in ${configInUse()}`,
    version: 'reinstall it',
    credentials: 'set the key variable the agent names (see bounce check --json)',
    login_unverified: 'run the CLI once and log in',
    config: `fix the agent's entry in ${configInUse()} (see bounce adapters)`,
    no_check: 'answer --check as docs/adapter-contract.md describes',
  })[kind];

const withFix = (p: CheckProblem): CheckProblem => (p.fix ? p : { ...p, fix: defaultFix(p.kind) });

function level(r: Pick<CheckResult, 'problems' | 'warnings'>, column: 'config' | 'credentials'): Level {
  if (r.problems.some((p) => COLUMN[p.kind] === column)) return 'problem';
  return r.warnings.some((w) => COLUMN[w.kind] === column) ? 'warning' : 'ok';
}

/**
 * One row. The columns say what was established: a missing program has unknown
 * credentials, a mock needs none, an HTTP agent has no version and is found when it answers.
 */
function row(agent: string, resolved: ResolvedAgent | null, source: Row['source'], r: CheckResult): Row {
  const problems = r.problems.map(withFix);
  const warnings = r.warnings.map(withFix);
  const kind = resolved ? (adapterInfo(resolved.adapter)?.kind ?? 'cmd') : null;
  const missing = problems.some((p) => p.kind === 'not_found' || p.kind === 'version');
  const unanswered = [...problems, ...warnings].some((p) => p.kind === 'no_check');
  const credentials: Level = kind === 'mock' ? '-' : missing || unanswered || resolved === null ? 'unknown' : level(r, 'credentials');
  const found: Found = resolved === null ? null : ![...problems, ...warnings].some((p) => p.kind === 'not_found' || p.kind === 'unreachable');
  return {
    agent,
    adapter: resolved?.adapter ?? '?',
    source,
    found,
    version: r.version,
    // A program that is not there has no config to speak of yet.
    config: missing && !problems.some((p) => p.kind === 'config') ? 'unknown' : level(r, 'config'),
    credentials,
    problems,
    warnings,
    resolved: r.resolved,
  };
}

/** An HTTP agent is found when its server answers at all (any status; no key is sent); one whose adapter looks further (an A2A card) by that. */
async function reach(agent: ResolvedAgent, r: CheckResult, env: NodeJS.ProcessEnv): Promise<CheckResult> {
  const online = await reachAgent(agent, env, r);
  if (online) return online;
  if (adapterInfo(agent.adapter)?.kind !== 'http' || typeof r.resolved.base_url !== 'string') return r;
  const url = r.resolved.base_url;
  if (await answers(url)) return r;
  const finding: CheckProblem = { kind: 'unreachable', message: `${url} does not answer`, fix: `start the server, or fix base_url in ${configInUse()}` };
  return { ...r, ok: false, problems: [...r.problems, finding] };
}

/** The agents to check: every configured one, and the default CLIs unless the config names both roles. */
function agentSpecs(config: ReturnType<typeof loadConfig>['config']): Map<string, Row['source']> {
  const specs = new Map<string, Row['source']>();
  for (const spec of [config.reviewer, config.composer, ...Object.keys(config.agents)]) if (spec) specs.set(spec, 'configured');
  // With both roles configured the defaults are never used: a missing CLI is no problem then.
  if (!(config.reviewer && config.composer)) for (const spec of DEFAULT_CLIS) if (!specs.has(spec)) specs.set(spec, 'default');
  return specs;
}

/**
 * `bounce check`: checks every configured agent and each default agent (no API call; an
 * HTTP agent's server is only asked whether it answers) and prints a table, then each
 * problem and warning with its fix. Configured agents with problems fail the check; a
 * default CLI that is not installed only fails it when no usable agent is left at all.
 */
export async function runCheck(opts: { config?: string; json?: boolean; live?: boolean }, io: Io): Promise<number> {
  const { config, path } = loadConfig(io.cwd, io.env, opts.config);
  const configDir = path ? dirname(path) : null;
  const probe = createProbe();
  const agents = new Map<Row, ResolvedAgent>();
  const rows: Row[] = await Promise.all(
    [...agentSpecs(config)].map(async ([spec, source]) => {
      let agent: ResolvedAgent;
      try {
        agent = resolveAgent(spec, config, io.cwd, configDir);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const hint = isBounceError(err) ? err.hint : undefined;
        const problem: CheckProblem = { kind: 'config', message, ...(hint ? { fix: hint } : {}) };
        return row(spec, null, source, { ok: false, version: null, problems: [problem], warnings: [], resolved: {} });
      }
      const r = row(spec, agent, source, await reach(agent, await checkAgent(agent, io.env, { probe }), io.env));
      agents.set(r, agent);
      return r;
    }),
  );
  // An agent below min_precision in the grades file is flagged: a warning, not a failed check (docs/grading.md).
  const precision = precisionWarnings(
    rows.map((r) => ({ name: r.agent, adapter: r.adapter, model: typeof r.resolved.model === 'string' ? r.resolved.model : null })),
    { cwd: io.cwd, configPath: path, minPrecision: config.min_precision },
  );
  for (const r of rows) {
    const mine = precision.filter((line) => line.startsWith(`${r.agent}: `)).map((line) => line.slice(r.agent.length + 2));
    for (const message of mine) r.warnings.push({ kind: 'config', message, fix: 'grade its notes again, or refresh its prompts or model (docs/grading.md)' });
  }
  if (opts.live) await checkLive(rows, agents, io, probe, Boolean(opts.json));
  const usable = rows.some((r) => r.problems.length === 0);
  const failing = rows.filter((r) => r.problems.length > 0 && (r.source === 'configured' || !usable));
  // An agent whose login cannot be verified offline is not ready: a refine may wait on it to the deadline.
  const ready = rows.filter((r) => r.problems.length === 0 && !r.warnings.some((w) => w.kind === 'login_unverified'));
  // With --live, an agent that fails the gate fails the check, configured or default: a refine would pick it.
  const liveFailed = rows.filter((r) => r.live && !r.live.ok);
  const exitCode = failing.length || liveFailed.length || ready.length === 0 ? EXIT.problems : EXIT.ok;
  const next = nextStep({ usable, failing: failing.length > 0 || liveFailed.length > 0, ready }, invokedAs(io.launcher, io.env, io.cwd));
  if (opts.json) io.stdout.write(`${JSON.stringify({ ok: exitCode === 0, agents: rows, next })}\n`);
  else io.stdout.write(report(rows, new Set(failing), next, Boolean(opts.live)));
  return exitCode;
}

/**
 * `--live`: the gate's fixture sent to every agent without a problem, one at a time, through
 * its real adapter (src/gate/live.ts); each result goes in its row and, a pass, in today's
 * cache for `refine --gate`. Progress on stderr unless --json.
 */
async function checkLive(rows: Row[], agents: ReadonlyMap<Row, ResolvedAgent>, io: Io, probe: ReturnType<typeof createProbe>, json: boolean): Promise<void> {
  const templates = await loadTemplates();
  for (const r of rows) {
    const agent = agents.get(r);
    r.live = null;
    if (!agent || r.problems.length > 0 || io.signal.aborted) continue;
    const [result] = await gateAgents([agent], templates, io, { probe, cached: false });
    r.live = result ?? null;
    if (!json && result) io.stderr.write(`${gateLine(result)}\n`);
  }
}

/** What to do after the check: with no agent ready, the ways to get one (a CLI, a local model, the mock agents, bounce init). */
function nextStep(s: { usable: boolean; failing: boolean; ready: Row[] }, bounce: string): string | null {
  if (!s.usable) {
    const installs = DEFAULT_CLIS.map((name) => `npm i -g ${cliFacts(name).npmPackage}`).join(', ');
    return (
      `no agent is ready: install one of the CLIs and log in (${installs}), or serve a local model with Ollama (found on its default port, or named with --reviewer openai:<model>); ` +
      `to try bounce with no model at all: ${bounce} refine <doc> --reviewer mock; ${bounce} init then writes a bounce.config.yaml naming what it finds`
    );
  }
  if (s.failing) return 'fix the problems above; each names its fix';
  if (s.ready.length === 0) {
    return 'no login could be verified offline: log in as the warnings above say; a refine picks such an agent only when no other is installed, and its first call may fail or wait to the deadline';
  }
  return null;
}

function report(rows: Row[], failing: ReadonlySet<Row>, next: string | null, live: boolean): string {
  const head = ['AGENT', 'ADAPTER', 'SOURCE', 'FOUND', 'VERSION', 'CONFIG', 'CREDENTIALS', ...(live ? ['LIVE', 'TIME', 'TOKENS', 'COST'] : [])];
  const liveCells = (l: GateResult | null | undefined): string[] =>
    !l
      ? ['skipped', '-', '-', '-']
      : [
          l.ok ? 'pass' : 'fail',
          `${(l.duration_ms / 1000).toFixed(1)}s`,
          l.tokens === null ? '-' : String(l.tokens),
          l.cost_usd === null ? '-' : `$${l.cost_usd.toFixed(4)}`,
        ];
  const body = rows.map((r) => [
    r.agent,
    r.adapter,
    r.source,
    r.found === null ? 'unknown' : r.found ? 'yes' : 'no',
    r.version ?? '-',
    r.config,
    r.credentials,
    ...(live ? liveCells(r.live) : []),
  ]);
  const widths = head.map((h, i) =>
    maxOf(
      h.length,
      body.map((b) => b[i]?.length ?? 0),
    ),
  );
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const details = rows.flatMap((r) => {
    const resolved = Object.entries(r.resolved).filter(([, v]) => v !== null && v !== '');
    return resolved.length ? [`${r.agent}: ${resolved.map(([k, v]) => `${k}=${String(v)}`).join(', ')}`] : [];
  });
  // A default CLI's problem while another agent is usable is not one: that default is skipped.
  const findings = rows.flatMap((r) => [
    ...r.problems.map((p) => `${failing.has(r) ? 'problem' : 'skipped'}: ${r.agent}: ${problemLine(p)}`),
    ...r.warnings.map((w) => `warning: ${r.agent}: ${problemLine(w)}`),
    ...(r.live && !r.live.ok ? [`problem: ${r.agent}: the live gate failed: ${r.live.reason ?? 'no reason given'}`] : []),
  ]);
  const blocks = [[line(head), ...body.map(line)], details, findings, next ? [`next: ${next}`] : []].filter((b) => b.length > 0);
  return `${blocks.map((b) => b.join('\n')).join('\n\n')}\n`;
}
