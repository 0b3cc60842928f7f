/** An agent called outside the passes (a judge, a grader), resolved, checked and given its template before its first call. */
import { dirname } from 'node:path';
import { resolveAgent } from '../adapters/registry.js';
import { loadConfig } from '../config/load.js';
import { DEFAULT_TIMEOUT_S } from '../config/defaults.js';
import type { CheckProblem } from '../contract/contract.js';
import { usageError } from '../errors.js';
import type { Probe } from '../kit/detect.js';
import type { PlannedJudge } from '../judge/after-run.js';
import { checkOne, outputBudget } from '../preflight/preflight.js';
import { sideTemplate } from '../prompt-files.js';

/** What a side agent needs to be called: the same for a judge and a grader. */
export type PlannedSideAgent = PlannedJudge;

export interface SideAgentFlags {
  /** The flag that named the agent, for the errors (`--judge`). */
  flag: string;
  spec: string;
  /** The template's name (prompts/<name>.md) and its check (the problem in words, or null). */
  template: { name: string; problem: (text: string) => string | null; doc: string };
  /** --timeout in seconds, checked. */
  timeoutS?: number;
  /** --prompts, resolved: a <name>.md there replaces the package's. */
  promptsDir: string | null;
  /** False for a dry run: the agent is resolved but not checked (no program is run). */
  check?: boolean;
}

/**
 * The agent resolved from config, its template read and checked, and the agent checked
 * ready (unless `check` is false). An empty or unknown agent, a template with a wrong placeholder and an agent that is
 * not ready are usage errors (exit 2), found before any call.
 */
export async function planSideAgent(
  flags: SideAgentFlags,
  where: { cwd: string; env: NodeJS.ProcessEnv; probe: Probe; configFile?: string },
): Promise<{ planned: PlannedSideAgent; warnings: CheckProblem[] }> {
  const spec = flags.spec.trim();
  if (spec === '') throw usageError(`${flags.flag} is empty`, `name an agent, e.g. ${flags.flag} claude (see bounce adapters)`, 'usage');
  const { config, path } = loadConfig(where.cwd, where.env, where.configFile);
  const agent = resolveAgent(spec, config, where.cwd, path ? dirname(path) : null);
  const template = sideTemplate(flags.template.name, flags.promptsDir);
  const problem = flags.template.problem(template);
  if (problem) {
    const file = flags.promptsDir ? `${flags.promptsDir}/${flags.template.name}.md` : `${flags.template.name}.md`;
    throw usageError(`${file}: ${problem}`, `fix the template (${flags.template.doc} lists its placeholders)`, 'usage');
  }
  const check =
    flags.check === false ? { version: null, warnings: [], resolved: {} as Record<string, unknown> } : await checkOne(agent, where.env, where.probe);
  const resolvedModel = check.resolved.model;
  return {
    planned: {
      agent,
      agentVersion: check.version,
      model: agent.options.model ?? (typeof resolvedModel === 'string' ? resolvedModel : null),
      template,
      timeoutMs: Math.round((flags.timeoutS ?? agent.timeoutS ?? DEFAULT_TIMEOUT_S) * 1000),
      maxOutputTokens: outputBudget(agent),
    },
    warnings: check.warnings,
  };
}
