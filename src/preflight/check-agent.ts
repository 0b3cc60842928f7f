/**
 * One check for every kind of agent, with no API call: a built-in checks its options,
 * CLI and credentials inside the runner; a `cmd:` program must be executable and is asked
 * its own `--check` as a subprocess (one that does not answer it gets only a warning).
 */
import { type Stats, statSync } from 'node:fs';
import { checkOptions } from '../kit/adapter-kit.js';
import { loadBuiltin } from '../adapters/builtins.js';
import { type CheckProblem, type CheckResult, CheckResultSchema } from '../contract/contract.js';
import { createProbe, isExecutable, type Probe } from '../kit/detect.js';
import { checkAdapter } from '../contract/host.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import { CONFIG_FILE, configInUse } from '../config/in-use.js';

export interface CheckAgentOptions {
  /** The CLI versions this command invocation already asked for. */
  probe?: Probe;
  /** Ask a `cmd:` program its own `--check` (default); false: only that it is executable. */
  askProgram?: boolean;
  /** Bound on a `cmd:` program's `--check`. */
  timeoutMs?: number;
}

export async function checkAgent(agent: ResolvedAgent, env: NodeJS.ProcessEnv, opts: CheckAgentOptions = {}): Promise<CheckResult> {
  if (agent.adapter === 'cmd') return inConfigInUse(await checkProgram(agent, env, opts));
  const program = await loadBuiltin(agent.adapter);
  const result = await checkOptions(program, agent.options, { env, probe: opts.probe ?? createProbe() });
  // Validated as a program's printed result would be: a built-in is held to the same contract.
  const parsed = CheckResultSchema.safeParse(result);
  if (parsed.success) return inConfigInUse(parsed.data);
  const issue = parsed.error.issues[0];
  const message = `${agent.spec} check result breaks the adapter contract at ${issue?.path.join('.') || 'top level'}: ${issue?.message}`;
  return { ok: false, version: null, problems: [{ kind: 'config', message }], warnings: [], resolved: {} };
}

/**
 * `bounce check`'s look at a built-in agent's endpoint (its program's `reach`: an A2A agent's
 * card), added to its offline check `r`; null when the program has none. Asked only of an
 * agent whose offline check passed: an endpoint the policy refuses is not called.
 */
export async function reachAgent(agent: ResolvedAgent, env: NodeJS.ProcessEnv, r: CheckResult, opts: { probe?: Probe } = {}): Promise<CheckResult | null> {
  if (agent.adapter === 'cmd') return null;
  const program = await loadBuiltin(agent.adapter);
  if (!program.reach) return null;
  if (!r.ok) return r;
  const online = inConfigInUse(await program.reach(agent.options, { env, probe: opts.probe ?? createProbe() }));
  return {
    ok: r.ok && online.ok,
    version: r.version ?? online.version,
    problems: [...r.problems, ...online.problems],
    warnings: [...r.warnings, ...online.warnings],
    resolved: { ...r.resolved, ...online.resolved },
  };
}

async function checkProgram(agent: ResolvedAgent, env: NodeJS.ProcessEnv, opts: CheckAgentOptions): Promise<CheckResult> {
  const resolved = { command: agent.command };
  const problem = agent.command.includes('/') ? programFileProblem(agent.command) : null;
  if (problem) return { ok: false, version: null, problems: [problem], warnings: [], resolved };
  if (opts.askProgram === false) return { ok: true, version: null, problems: [], warnings: [], resolved };
  const own = await checkAdapter(agent, opts.timeoutMs ?? 30_000, env);
  if (own.problems.some((p) => p.kind === 'no_check')) {
    const warning = { kind: 'no_check' as const, message: 'does not answer --check', fix: 'see docs/adapter-contract.md#--check' };
    return { ok: true, version: null, problems: [], warnings: [warning], resolved };
  }
  return { ...own, resolved: { ...resolved, ...own.resolved } };
}

/**
 * Why a `cmd:` program named by its path cannot be started: it is missing, not a regular file
 * (a directory passes an execute test: its x bit means search, and root passes any), or not
 * executable; null when it is an executable regular file.
 */
function programFileProblem(command: string): CheckProblem | null {
  let stat: Stats;
  try {
    stat = statSync(command);
  } catch {
    return { kind: 'not_found', message: `adapter program not found: ${command}`, fix: 'check the path after cmd:, or name a program on PATH' };
  }
  if (!stat.isFile()) {
    const what = stat.isDirectory() ? 'a directory' : 'not a regular file';
    return {
      kind: 'config',
      message: `adapter program ${command} is ${what}, not a program`,
      fix: 'name the executable file after cmd: (docs/adapter-contract.md)',
    };
  }
  if (!isExecutable(command))
    return {
      kind: 'config',
      message: `adapter program ${command} is not executable`,
      fix: `chmod +x it, or use cmd:<interpreter> with args in ${CONFIG_FILE}`,
    };
  return null;
}

/**
 * An adapter's fixes name bounce.config.yaml (it cannot know which config bounce reads, and
 * a built-in's run in the adapter kit, which reads no config): they name the one in use.
 */
function inConfigInUse(r: CheckResult): CheckResult {
  const name = configInUse();
  if (name === CONFIG_FILE) return r;
  const named = <P extends { fix?: string | undefined }>(p: P): P => (p.fix?.includes(CONFIG_FILE) ? { ...p, fix: p.fix.replaceAll(CONFIG_FILE, name) } : p);
  return { ...r, problems: r.problems.map(named), warnings: r.warnings.map(named) };
}
