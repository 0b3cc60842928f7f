import type { PriceOverrides } from '../prices.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import type { Role } from '../contract/contract.js';
import type { Syntax } from '../protocol/scanner.js';
import type { Dismissals, LintMode } from '../vocabulary.js';
import type { CheckSpec } from '../checks/command.js';
import type { ContextFrame } from './context-frames.js';
import type { PassPromptInput, Templates } from './prompt.js';

/** One reference file of a run (--context): as sent, and as its run folder keeps it. */
/** What a budget allows; an absent limit is no limit. */
export interface BudgetLimits {
  costUsd?: number;
  tokens?: number;
  dispatches?: number;
}

export interface ContextFile extends ContextFrame {
  /** The copy in the run folder, relative to it (`context/<n>-<name>`): what records cite and a resume reads. */
  file: string;
  sha256: string;
  bytes: number;
}

export type OutputTarget = { kind: 'run' } | { kind: 'file'; path: string } | { kind: 'stdout' } | { kind: 'in-place'; path: string };

/** Everything decided before the first dispatch; a run needs nothing else. */
export interface RunPlan {
  input: {
    /** Absolute path, or null for stdin. */
    path: string | null;
    display: string;
    text: string;
    bytes: number;
    sha256: string;
    ext: string;
    syntax: Syntax;
  };
  passes: number;
  allPasses: boolean;
  agents: Record<Role, ResolvedAgent>;
  agentVersions: Record<Role, string | null>;
  /** What each adapter's check resolved (base_url, model, key variable name); recorded, never a key. */
  resolved: Record<Role, Record<string, string | number | boolean | null>>;
  chosenBy: Record<Role, string>;
  templates: Templates;
  promptsDir: string | null;
  markers: string[];
  maxRepairs: number;
  maxBytes: number;
  /** Per-dispatch deadline in ms, per role (agent timeout_s, else --timeout). */
  timeoutMs: Record<Role, number>;
  maxOutputTokens: Record<Role, number | null>;
  summaryRatio: number;
  summaryMinWords: number;
  output: OutputTarget;
  runsDir: string;
  name: string;
  replyMode: string;
  /** The batch this run is one document of; absent for a run of its own. */
  batchId?: string;
  /** The run's budget (--max-cost-usd, --max-tokens, --max-dispatches, else config `budget:`); absent: no limit. Not part of the policy. */
  budget?: BudgetLimits;
  /** Config `prices:`, consulted before the built-in price table; absent: the table alone. */
  prices?: PriceOverrides;
  /** Characters a token per model, measured from the runs folder's records (src/store/token-ratios.ts) when the plan was made; absent or a model not in it: 4. */
  charsPerToken?: Readonly<Record<string, number>>;
  /** What the run does with the notes a pass adds that break a lint rule. */
  lint: LintMode;
  /** Config `dismissals`: what a final pass that dismisses a [CONTESTED] note gets; absent: `allow`. Part of the policy when not `allow`. */
  dismissals?: Dismissals;
  /** What the document is for and what the refinement aims at (--goal, --goal-file, config `goal`); null: none. */
  goal: string | null;
  /** Read-only reference files (--context, config `context`), one nonce for all their frames; `budget` is config `context_max_bytes`. */
  context: { nonce: string; budget: number; files: ContextFile[] };
  /** `bounce replay`: the id of the run this one replays (run.json `replay_of`); absent for any other run. */
  replayOf?: string;
  /** The reviewer passes' lenses (--lens, config `lenses`), taken in turn; empty: none. Part of the policy when not empty. */
  lenses: readonly Lens[];
  /** --alternate: the two agents swap roles every two passes, so each reviews the other's work. Part of the policy when on. */
  alternate?: boolean;
  /** Check commands (config `checks:`, --check-cmd) every reply that reads as a document is run through; absent or empty: none. Part of the policy when not empty. */
  checks?: readonly CheckSpec[];
}

/** A review lens: its name (a built-in one, or a prompt file's name) and the instructions a reviewer pass is given. */
export interface Lens {
  name: string;
  text: string;
}

/**
 * The lens of pass `pass`: reviewer passes take the run's lenses in turn (the first reviewer
 * pass the first lens, the next the second, and round again); composer passes, and a run with
 * none, have none. `varies`: whether other reviewer passes get another one.
 */
export function lensForPass(lenses: readonly Lens[], pass: number): (Lens & { varies: boolean }) | null {
  if (lenses.length === 0 || roleForPass(pass) !== 'reviewer') return null;
  const lens = lenses[Math.floor((pass - 1) / 2) % lenses.length] as Lens;
  return { ...lens, varies: lenses.length > 1 };
}

/** What a prompt of pass `pass` carries besides the document and the pass's place: markers, goal, context, substrate, its lens. */
export function framingOf(plan: RunPlan, pass: number): Pick<PassPromptInput, 'markers' | 'goal' | 'context' | 'syntax' | 'focus'> {
  return { markers: plan.markers, goal: plan.goal, context: plan.context, syntax: plan.input.syntax, focus: lensForPass(plan.lenses, pass) };
}

export function roleForPass(pass: number): Role {
  return pass % 2 === 1 ? 'reviewer' : 'composer';
}

/**
 * Whose agent plays pass `pass`: the key of `plan.agents` (and of every per-agent setting:
 * timeouts, output budgets, versions). Its role in the protocol is always roleForPass(pass);
 * with --alternate the agents swap every two passes, so passes 3 and 4 (7 and 8, ...) are
 * played by the composer's agent reviewing and the reviewer's agent composing.
 */
export function seatForPass(plan: Pick<RunPlan, 'alternate'>, pass: number): Role {
  const role = roleForPass(pass);
  if (!plan.alternate || Math.floor((pass - 1) / 2) % 2 === 0) return role;
  return role === 'reviewer' ? 'composer' : 'reviewer';
}
