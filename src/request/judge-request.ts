/** `refine --judge <agent>` and `--require-judge`: the judge resolved, checked and planned before the first dispatch. */
import { dirname } from 'node:path';
import { resolveAgent } from '../adapters/registry.js';
import { loadConfig } from '../config/load.js';
import { usageError } from '../errors.js';
import type { Probe } from '../kit/detect.js';
import { checkOne, outputBudget } from '../preflight/preflight.js';
import { sideTemplate } from '../prompt-files.js';
import { JUDGE_TEMPLATE, judgeTemplateProblem } from '../judge/judge.js';
import type { PlannedJudge } from '../judge/after-run.js';
import { DEFAULT_TIMEOUT_S } from '../config/defaults.js';
import type { CheckProblem } from '../contract/contract.js';

export interface JudgeFlags {
  judge?: string;
  requireJudge?: boolean;
  /** --timeout in seconds, checked. */
  timeoutS?: number;
  /** --prompts, resolved: a judge.md there replaces the package's. */
  promptsDir: string | null;
}

/**
 * The judge a refine asks after converging, or null without --judge. `--require-judge`
 * without --judge, an empty or unknown agent, a judge that is not ready, and a judge.md
 * with a wrong placeholder are usage errors (exit 2), found before any dispatch.
 */
export async function planJudge(
  flags: JudgeFlags,
  where: { cwd: string; env: NodeJS.ProcessEnv; probe: Probe; configFile?: string },
): Promise<{ judge: PlannedJudge; warnings: CheckProblem[] } | null> {
  if (flags.judge === undefined) {
    if (flags.requireJudge) throw usageError('--require-judge needs a judge', 'pass --judge <agent> too, e.g. --judge claude --require-judge', 'usage');
    return null;
  }
  const spec = flags.judge.trim();
  if (spec === '') throw usageError('--judge is empty', 'name an agent, e.g. --judge claude (see bounce adapters)', 'usage');
  const { config, path } = loadConfig(where.cwd, where.env, where.configFile);
  const agent = resolveAgent(spec, config, where.cwd, path ? dirname(path) : null);
  const template = sideTemplate(JUDGE_TEMPLATE, flags.promptsDir);
  const problem = judgeTemplateProblem(template);
  if (problem) {
    const where = flags.promptsDir ? `${flags.promptsDir}/judge.md` : 'judge.md';
    throw usageError(`${where}: ${problem}`, 'fix the template (docs/judge-and-gate.md lists its placeholders)', 'usage');
  }
  const check = await checkOne(agent, where.env, where.probe);
  const resolvedModel = check.resolved.model;
  return {
    judge: {
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
