/**
 * The live gate (`bounce check --live`, `refine --gate`; docs/judge-and-gate.md): an agent gets
 * a small known fixture (prompts/gate-fixture.md, a short document with one planted ambiguity
 * and a code block) as a reviewer's first pass, through its real adapter, and its reply is
 * held to the contract: a whole document or edit blocks that apply, nothing outside the
 * document's frame, at least one note added and every added note conforming (lint), the code
 * block kept. One side dispatch (src/side/dispatch.ts) with no run folder and no repair: a
 * repair would hide what the gate is there to find.
 */
import type { ResolvedAgent } from '../adapters/registry.js';
import type { Clock } from '../engine/clock.js';
import type { Dispatcher } from '../engine/deps.js';
import { buildPassPrompt, promptDocument, type Templates, templatesHash } from '../engine/prompt.js';
import { editsMode } from '../engine/reply.js';
import { lintNotes } from '../protocol/lint.js';
import { DEFAULT_MARKERS, diffNotes, scanNotes } from '../protocol/scanner.js';
import { structureProblems } from '../protocol/structure.js';
import { packageTemplate } from '../prompt-files.js';
import { sha256 } from '../store/hash.js';
import { closedBreaker, type SideRead, sideDispatch } from '../side/dispatch.js';
import type { CostSource } from '../vocabulary.js';

export const GATE_FIXTURE_TEMPLATE = 'gate-fixture';
/** A gate call's deadline unless the agent's own `timeout_s` says otherwise. */
export const GATE_TIMEOUT_S = 120;
/** The fixture is small: a reply over this many bytes is no revision of it. */
const GATE_MAX_BYTES = 64 * 1024;

/** The fixes a run makes to a reply that stepped out of the document's frame: the gate fails them (src/engine/reply.ts). */
const FRAME_FIXES = ['dropped text outside the delimiters', 'removed echoed delimiters', 'dropped preamble line', 'unwrapped code fence'];

/** What the gate found of one agent. */
export interface GateResult {
  agent: string;
  ok: boolean;
  /** Why it failed, in words; null when it passed. */
  reason: string | null;
  duration_ms: number;
  tokens: number | null;
  cost_usd: number | null;
  cost_source: CostSource | null;
  model: string | null;
  /** The gate's own date (UTC) when the result came from today's cache; null when the check ran now. */
  cached: string | null;
}

/** The fixture the gate sends: the package's prompts/gate-fixture.md. */
export function gateFixture(): string {
  return packageTemplate(GATE_FIXTURE_TEMPLATE);
}

/** The prompt of the gate: a reviewer's first pass of two over the fixture, in the run's own templates. */
export function gatePrompt(templates: Templates, fixture: string): { prompt: string; delimiters: ReturnType<typeof buildPassPrompt>['delimiters'] } {
  return buildPassPrompt(templates, {
    document: fixture,
    pass: 1,
    totalPasses: 2,
    role: 'reviewer',
    final: false,
    markers: DEFAULT_MARKERS,
    editFormat: 'whole',
  });
}

/** The contract check of a reply to the gate's prompt: null when it holds, else what broke, in words. */
export function gateProblem(reply: string, fixture: string, delimiters: ReturnType<typeof gatePrompt>['delimiters']): string | null {
  const sent = promptDocument(fixture);
  const verdict = editsMode.accept(reply, { sent, original: fixture, delimiters, maxBytes: GATE_MAX_BYTES, summaryRatio: 0.3, summaryMinWords: 20 });
  if (!verdict.ok) return `not a whole document or edit blocks: ${verdict.reason}`;
  const failed = verdict.edits?.failures.length ?? 0;
  if (failed > 0) return `${failed} edit block${failed === 1 ? '' : 's'} did not apply to the document sent`;
  const stepped = verdict.fixes.filter((f) => FRAME_FIXES.includes(f));
  if (stepped.length > 0) return `the reply stepped out of the document's frame (${stepped.join(', ')}): it must be the document and nothing else`;
  const doc = verdict.document;
  const code = structureProblems(sent, doc, 'markdown');
  if (code.length > 0) return `the fixture's code block was not kept: ${code.map((p) => p.reason).join(' ')}`;
  const reading = { syntax: 'markdown' as const, markers: [...DEFAULT_MARKERS] };
  const { added } = diffNotes(scanNotes(sent, reading), scanNotes(doc, reading));
  if (added.length === 0) return 'no note was added, though the fixture holds an ambiguity a reviewer should mark';
  const lint = lintNotes(added, doc);
  if (lint.length > 0)
    return `the note added breaks the protocol's note rules: ${[...new Set(lint.map((p) => `line ${p.note.line}: ${p.rule}`))].join('; ')} (see docs/lint.md)`;
  return null;
}

/**
 * What the gate's result for an agent depends on: the agent as configured (adapter, program,
 * options) and the prompt it gets (the templates, the fixture). Today's cache is keyed by it.
 */
export function gateKey(agent: ResolvedAgent, templates: Templates, fixture: string): string {
  return sha256(JSON.stringify([agent.adapter, agent.command, agent.args, agent.options, templatesHash(templates), sha256(fixture)]));
}

export interface GateDeps {
  dispatch: Dispatcher;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  retryBaseMs: number;
}

/** Runs the gate on one agent, live. Never throws for the agent's failure: that is a failed result. */
export async function liveGate(agent: ResolvedAgent, templates: Templates, deps: GateDeps, fixture: string = gateFixture()): Promise<GateResult> {
  const { prompt, delimiters } = gatePrompt(templates, fixture);
  const read = (reply: string): SideRead<null> => {
    const problem = gateProblem(reply, fixture, delimiters);
    return problem ? { ok: false, reason: problem } : { ok: true, value: null };
  };
  const outcome = await sideDispatch(
    {
      ...deps,
      rec: null,
      runId: `gate-${new Date(deps.clock.now()).toISOString().slice(0, 10)}`,
      pass: 1,
      totalPasses: 2,
      budgets: [],
      maxBytes: GATE_MAX_BYTES,
      breaker: closedBreaker(),
    },
    {
      role: 'gate',
      agent,
      agentVersion: null,
      stem: 'gate',
      prompt,
      goal: 'Review the gate fixture as a first pass.',
      contract: 'the whole revised document, or edit blocks',
      documents: [],
      timeoutMs: Math.round((agent.timeoutS ?? GATE_TIMEOUT_S) * 1000),
      maxOutputTokens: null,
      read,
      maxRepairs: 0,
    },
  );
  const s = outcome.spend;
  const tokens = s.inputTokens === null && s.outputTokens === null ? null : (s.inputTokens ?? 0) + (s.outputTokens ?? 0);
  return {
    agent: agent.spec,
    ok: outcome.ok,
    reason: outcome.ok ? null : outcome.type === 'malformed' ? outcome.message.replace(`${agent.spec}: `, '') : `${outcome.type}: ${outcome.message}`,
    duration_ms: Math.round(s.durationMs),
    tokens,
    cost_usd: s.costUsd,
    cost_source: s.costSource,
    model: s.model,
    cached: null,
  };
}
