import { accessSync, constants } from 'node:fs';
import type { Role } from '../adapters/contract.js';
import { checkAdapter } from '../adapters/host.js';
import { adapterInfo, type ResolvedAgent } from '../adapters/registry.js';
import { usageError } from '../errors.js';
import { loadScript } from '../../adapters/mock.js';

/** Output budgets the adapters use when none is configured (null: the provider decides). */
export const DEFAULT_OUTPUT_TOKENS: Record<string, number | null> = {
  claude: 32_000,
  anthropic: 16_000,
  codex: null,
  openai: null,
  mock: null,
  cmd: null,
};

export interface AgentCheck {
  version: string | null;
  warnings: string[];
  /** What the adapter resolved (model, base_url, key variable name): never a key value. */
  resolved: Record<string, string | number | boolean | null>;
}

/**
 * Validates each distinct agent once, before any dispatch: the adapter's own `--check`
 * (CLI installed, options, credentials; no API call). Mock and cmd: agents are checked
 * in-process. Any problem is a usage error (exit 2) naming the agent and the fix.
 */
export async function preflight(agents: Record<Role, ResolvedAgent>, env: NodeJS.ProcessEnv): Promise<Record<Role, AgentCheck>> {
  const seen = new Map<string, Promise<AgentCheck>>();
  const check = (agent: ResolvedAgent): Promise<AgentCheck> => {
    const key = JSON.stringify([agent.command, agent.args, agent.options]);
    let found = seen.get(key);
    if (!found) {
      found = checkOne(agent, env);
      seen.set(key, found);
    }
    return found;
  };
  const [reviewer, composer] = await Promise.all([check(agents.reviewer), check(agents.composer)]);
  return { reviewer, composer };
}

async function checkOne(agent: ResolvedAgent, env: NodeJS.ProcessEnv): Promise<AgentCheck> {
  if (agent.adapter === 'mock') {
    try {
      loadScript(agent.options.script);
    } catch (err) {
      throw usageError(
        `mock script for ${agent.spec} is unreadable: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
        'fix the script file (see docs/adapters.md#mock)',
        'config',
      );
    }
    return { version: 'mock-1', warnings: [], resolved: { script: agent.options.script ?? null } };
  }
  if (agent.adapter === 'cmd') {
    if (agent.command.includes('/')) {
      try {
        accessSync(agent.command, constants.X_OK);
      } catch {
        throw usageError(
          `adapter program ${agent.command} is not executable`,
          `chmod +x it, or use cmd:<interpreter> with args in bounce.config.yaml`,
          'config',
        );
      }
    }
    return { version: null, warnings: [], resolved: { command: agent.command } };
  }
  const result = await checkAdapter(agent, 30_000, env);
  if (!result.ok) {
    const info = adapterInfo(agent.adapter);
    throw usageError(
      `${agent.spec} is not ready: ${result.problems.join('; ') || 'its check failed'}`,
      info?.kind === 'cli' ? `run bounce check for details` : 'fix the agent settings in bounce.config.yaml',
      'config',
    );
  }
  return { version: result.version, warnings: result.warnings.map((w) => `${agent.spec}: ${w}`), resolved: result.resolved };
}

/** Rough token estimate of a document (about 4 characters a token for prose). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function outputBudget(agent: ResolvedAgent): number | null {
  return agent.options.max_output_tokens ?? DEFAULT_OUTPUT_TOKENS[agent.adapter] ?? null;
}

/** A document the agent cannot write back whole would come back truncated: refuse it now. */
export function assertFitsBudget(text: string, role: Role, agent: ResolvedAgent): void {
  const budget = outputBudget(agent);
  if (budget === null) return;
  const needed = Math.ceil(estimateTokens(text) * 1.2);
  if (needed > budget) {
    throw usageError(
      `the document (about ${estimateTokens(text)} tokens) will not fit in the ${role} ${agent.spec}'s output budget of ${budget} tokens`,
      'raise max_output_tokens for that agent in bounce.config.yaml, or split the document',
      'input',
    );
  }
}
