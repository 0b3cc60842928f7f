import { DEFAULT_CHARS_PER_TOKEN, estimateTokens } from '../text/token-estimate.js';
import { agentSettingFix } from '../adapters/agent-entry.js';
import { checkAgent } from './check-agent.js';
import { type CheckProblem, type Role, ROLES } from '../contract/contract.js';
import { createProbe, type Probe } from '../kit/detect.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import { ADAPTER_TABLE } from '../adapters/builtins.js';
import { usageError } from '../errors.js';
import { ownValue } from '../own.js';
import { plural } from '../plural.js';

/** Output budgets the adapters use when none is configured (null: the provider decides), from the adapter table. */
export const DEFAULT_OUTPUT_TOKENS: Record<string, number | null> = {
  ...Object.fromEntries(Object.values(ADAPTER_TABLE).map((a) => [a.name, a.outputTokens])),
  cmd: null,
};

export interface AgentCheck {
  version: string | null;
  /** Findings that do not stop the run, each message prefixed with the agent's spec. */
  warnings: CheckProblem[];
  /** What the adapter resolved (model, base_url, key variable name): never a key value. */
  resolved: Record<string, string | number | boolean | null>;
}

export interface PreflightOptions {
  /** The roles the run will call (with --passes 1 only the reviewer); the others are not checked. */
  roles?: readonly Role[];
  /** This invocation's probe, shared with the choice of agents. */
  probe?: Probe;
}

const UNCHECKED: AgentCheck = { version: null, warnings: [], resolved: {} };

/**
 * Validates each distinct agent the run uses, once and concurrently, before any dispatch:
 * built-ins in-process (CLI installed, options, credentials; no API call), a cmd: program
 * only for being executable. Any problem is a usage error (exit 2) naming the agent and the fix.
 */
export async function preflight(agents: Record<Role, ResolvedAgent>, env: NodeJS.ProcessEnv, opts: PreflightOptions = {}): Promise<Record<Role, AgentCheck>> {
  const probe = opts.probe ?? createProbe();
  const roles = opts.roles ?? ROLES;
  const seen = new Map<string, Promise<AgentCheck>>();
  const check = (agent: ResolvedAgent): Promise<AgentCheck> => {
    const key = JSON.stringify([agent.adapter, agent.command, agent.args, agent.options]);
    let found = seen.get(key);
    if (!found) {
      found = checkOne(agent, env, probe);
      seen.set(key, found);
    }
    return found;
  };
  const [reviewer, composer] = await Promise.all(ROLES.map((role) => (roles.includes(role) ? check(agents[role]) : Promise.resolve(UNCHECKED))));
  return { reviewer: reviewer ?? UNCHECKED, composer: composer ?? UNCHECKED };
}

/** One agent checked as a run checks its agents (no API call); a problem is a usage error naming the fix. */
export async function checkOne(agent: ResolvedAgent, env: NodeJS.ProcessEnv, probe: Probe): Promise<AgentCheck> {
  const result = await checkAgent(agent, env, { probe, askProgram: false });
  if (!result.ok) {
    const problems = result.problems.length ? result.problems : [{ kind: 'config' as const, message: 'its check failed' }];
    const fixes = [...new Set(problems.map((p) => p.fix).filter((f) => f !== undefined))];
    throw usageError(
      `${agent.spec} is not ready: ${problems.map((p) => p.message).join('; ')}`,
      fixes.join('; ') || 'run bounce check for details',
      problems.some((p) => p.kind === 'credentials') ? 'credentials' : 'config',
    );
  }
  return { version: result.version, warnings: result.warnings.map((w) => ({ ...w, message: `${agent.spec}: ${w.message}` })), resolved: result.resolved };
}

/** The warnings of a run's checks, once each (one agent in both roles has one check, and its warnings are the same objects). */
export function checkWarnings(checks: Record<Role, AgentCheck> | null): CheckProblem[] {
  return checks ? [...new Set([...checks.reviewer.warnings, ...checks.composer.warnings])] : [];
}

/** Tokens of a reply that is the whole document again, with room for its notes. */
export function replyTokens(documentText: string, charsPerToken = DEFAULT_CHARS_PER_TOKEN): number {
  return Math.ceil(estimateTokens(documentText, charsPerToken) * 1.2);
}

export function outputBudget(agent: ResolvedAgent): number | null {
  return agent.options.max_output_tokens ?? ownValue(DEFAULT_OUTPUT_TOKENS, agent.adapter) ?? null;
}

/** A document the agent cannot write back whole would come back truncated: refuse it now. */
export function assertFitsBudget(text: string, role: Role, agent: ResolvedAgent): void {
  const budget = outputBudget(agent);
  if (budget === null) return;
  const needed = replyTokens(text);
  if (needed > budget) {
    throw usageError(
      `the document (about ${estimateTokens(text)} tokens) will not fit in the ${role} ${agent.spec}'s output budget of ${plural(budget, 'token')}`,
      `split the document, or raise max_output_tokens: ${agentSettingFix(agent, 'max_output_tokens', Math.max(budget * 2, needed))}`,
      'input',
    );
  }
}
