import type { AdapterRequest } from '../contract/contract.js';
import type { CallOptions, HostResult } from '../contract/host.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import type { RecorderOptions, RunRecorder } from '../store/recorder.js';
import type { CacheHit, ReplayHit } from '../store/record-schema.js';
import type { BudgetAccount } from './budget.js';
import type { AttemptKind, DispatchStatus, FinalStatus, Role } from '../vocabulary.js';
import type { Clock } from './clock.js';
import type { AgentThrottle } from './throttle.js';
import type { LintFinding } from './lint-notes.js';
import type { RunPlan } from './plan.js';
import type { CheckRunner } from './checks.js';

/**
 * Calls one agent once: the adapter host for programs, the in-process runner for built-ins.
 * A result with `cache` was answered from the response cache (src/cache/), one with `replay`
 * from a recorded run (src/replay/): neither called an agent.
 */
export type Dispatcher = (agent: ResolvedAgent, request: AdapterRequest, opts: CallOptions) => Promise<DispatchResult>;
export type DispatchResult = HostResult & { cache?: CacheHit; replay?: ReplayHit };

/** What a pass ended as, in the words progress shows. */
export type PassEnd = 'done' | 'not converged' | 'failed' | 'interrupted';

/** What the engine tells its observer; it never writes to a terminal itself. */
export type EngineEvent =
  | { type: 'run-started'; runId: string; runDir: string; resumedAfter: number | null; totalPasses: number }
  | { type: 'pass-started'; pass: number; totalPasses: number; role: Role; agent: string; notesIn: number }
  | { type: 'dispatch-started'; pass: number; id: string; kind: AttemptKind; index: number; stem: string }
  | { type: 'dispatch-finished'; pass: number; id: string; status: Exclude<DispatchStatus, 'pending'>; reason: string | null; durationMs: number }
  | {
      type: 'retry-scheduled';
      pass: number;
      agent: string;
      why: 'transient' | 'empty' | 'repair' | 'shared';
      /** For a repair, the reason as the agent is sent it (long, addressed to the agent). */
      message: string;
      /** For a repair, why in a few words, for a progress line. */
      summary?: string;
      waitMs: number;
    }
  | { type: 'lint-warning'; pass: number; agent: string; problems: LintFinding[] }
  | { type: 'pass-finished'; pass: number; notesAfter: number | null; outcome: PassEnd }
  /** Something the pass was let off with (config `dismissals: warn`); recorded in the pass's `warnings`. */
  | { type: 'warning'; pass: number; message: string }
  | { type: 'run-finished'; runId: string; status: FinalStatus; exitCode: number };

export type EventSink = (event: EngineEvent) => void;

/** A run that has converged and been recorded, its lock still held: what EngineDeps.afterRun gets. */
export interface FinishedRun {
  plan: RunPlan;
  rec: RunRecorder;
  /** final.<ext>, relative to the run folder, and its text. */
  finalFile: string;
  document: string;
  /** The run's budgets (its own first, then any shared ones), as the passes left them. */
  budgets: readonly BudgetAccount[];
  /** Aborted when the run returns. */
  released: AbortSignal;
}

/** Everything a run needs from outside; two runs in one process share nothing else. */
export interface EngineDeps {
  dispatch: Dispatcher;
  /** Aborting it stops the run cleanly: the run is `interrupted` and resumable. */
  signal: AbortSignal;
  /** The agents' environment (adapters get this and nothing else). */
  env: NodeJS.ProcessEnv;
  events?: EventSink;
  clock?: Clock;
  /** Base delay of transient retries in ms (default 1000). */
  retryBaseMs?: number;
  recorder?: RecorderOptions;
  /** The backoff a batch shares between its runs (src/engine/throttle.ts); none for a single run. */
  throttle?: AgentThrottle;
  /**
   * Budgets shared beyond this run (a batch's): a dispatch goes only if each of them and
   * the run's own budget admit it, and its spending is charged to all of them.
   */
  budgets?: readonly BudgetAccount[];
  /**
   * Starts an agent's CLI ahead of a dispatch the engine knows is coming (a run's first pass,
   * the pass after an accepted reply), so that it loads while the run's files are written
   * (src/adapters/warm.ts). The engine closes it when the run returns: what no dispatch took
   * is killed. Without it every CLI starts with its dispatch.
   */
  warm?: { start(agent: ResolvedAgent): void; close(): void };
  /**
   * Told when a pass accepts a reply, with the ids of every dispatch of that pass in order
   * (the accepted one last): the response cache keeps those replies, and only those.
   */
  accepted?: (dispatchIds: readonly string[]) => void;
  /**
   * Whether the response cache answers this agent this prompt, asked before the budgets are:
   * a dispatch it answers calls no agent, so it needs no room in any budget (and, answered,
   * charges none). A yes must hold: the dispatch that follows is then answered from the cache.
   */
  cached?: (agent: ResolvedAgent, prompt: string) => boolean;
  /**
   * Called once a run has converged and its end is recorded, before its lock is let go: side
   * dispatches over the finished run (the judge, src/judge/), written through `run.rec`. An
   * agent's failure is the hook's to record; what it throws ends the run as a crash would.
   */
  afterRun?: (run: FinishedRun) => Promise<void>;
  /**
   * Runs one check command (plan.checks) on a copy of a reply's document in the run folder:
   * the command's process, its folder and its environment are the caller's
   * (src/checks/run-check.ts). Needed only by a plan with checks.
   */
  check?: CheckRunner;
}
