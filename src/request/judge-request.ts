/** `refine --judge <agent>` and `--require-judge`: the judge resolved, checked and planned before the first dispatch. */
import { usageError } from '../errors.js';
import type { Probe } from '../kit/detect.js';
import { JUDGE_TEMPLATE, judgeTemplateProblem } from '../judge/judge.js';
import type { PlannedJudge } from '../judge/after-run.js';
import type { CheckProblem } from '../contract/contract.js';
import { planSideAgent } from './side-agent.js';

export interface JudgeFlags {
  judge?: string;
  requireJudge?: boolean;
  /** --timeout in seconds, checked. */
  timeoutS?: number;
  /** --prompts, resolved: a judge.md there replaces the package's. */
  promptsDir: string | null;
  /** A dry run resolves the judge and reads its template, and runs no check. */
  dryRun?: boolean;
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
  const { planned, warnings } = await planSideAgent(
    {
      flag: '--judge',
      spec: flags.judge,
      template: { name: JUDGE_TEMPLATE, problem: judgeTemplateProblem, doc: 'docs/judge-and-gate.md' },
      ...(flags.timeoutS !== undefined ? { timeoutS: flags.timeoutS } : {}),
      promptsDir: flags.promptsDir,
      check: !flags.dryRun,
    },
    where,
  );
  return { judge: planned, warnings };
}
