/** The judge as a run's `afterRun` (EngineDeps): it asks, records the verdict in run.json, and says what it found. */
import type { ResolvedAgent } from '../adapters/registry.js';
import { systemClock } from '../engine/clock.js';
import type { EngineDeps, FinishedRun } from '../engine/deps.js';
import type { JudgeVerdict } from '../store/manifest.js';
import { closedBreaker, type SideContext } from '../side/dispatch.js';
import { runJudge } from './judge.js';

/** The judge of a refine, decided before the first dispatch. */
export interface PlannedJudge {
  agent: ResolvedAgent;
  agentVersion: string | null;
  /** The model its options or its check name; null: not known before it answers. */
  model: string | null;
  template: string;
  timeoutMs: number;
  maxOutputTokens: number | null;
}

/** A side context for a finished run: its dispatcher, budgets and recorder; the run's last pass in each request. */
export function runSideContext(deps: EngineDeps, run: FinishedRun): SideContext {
  const m = run.rec.manifest;
  return {
    dispatch: deps.dispatch,
    signal: deps.signal,
    env: deps.env,
    clock: deps.clock ?? systemClock,
    retryBaseMs: deps.retryBaseMs ?? 1000,
    rec: run.rec,
    runId: m.run_id,
    pass: Math.max(1, m.passes.run),
    totalPasses: m.passes.requested,
    budgets: run.budgets,
    ...(run.plan.prices ? { prices: run.plan.prices } : {}),
    maxBytes: run.plan.maxBytes,
    release: run.released,
    breaker: closedBreaker(),
  };
}

/** `afterRun` for `refine --judge`: the verdict goes to run.json, then to `told` (the command prints it). */
export function judgeAfterRun(judge: PlannedJudge, deps: EngineDeps, told: (v: JudgeVerdict) => void = () => {}): (run: FinishedRun) => Promise<void> {
  return async (run) => {
    const m = run.rec.manifest;
    const verdict = await runJudge(runSideContext(deps, run), {
      agent: judge.agent,
      agentVersion: judge.agentVersion,
      model: judge.model,
      template: judge.template,
      original: { file: m.original, text: run.plan.input.text },
      final: { file: run.finalFile, text: run.document, sha256: run.rec.factsOf(run.finalFile).sha256 ?? '' },
      goal: run.plan.goal,
      timeoutMs: judge.timeoutMs,
      maxOutputTokens: judge.maxOutputTokens,
      agents: m.agents,
    });
    run.rec.recordJudge(verdict);
    told(verdict);
  };
}
