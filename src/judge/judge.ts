/**
 * The judge (`refine --judge <agent>`, docs/judge-and-gate.md): after a run converges, a third
 * agent compares the original and the final document blind, labelled A and B, twice, with the
 * order swapped (position bias is judges' best-known failure). Each call is a side dispatch
 * (src/side/dispatch.ts) with its own record; run.json's `judge` keeps the verdict.
 */
import { modelFamily } from '../adapters/family.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import { GOAL_HEADING, makeDelimiters, promptDocument } from '../engine/prompt.js';
import type { AgentRecord, JudgeCall, JudgeVerdict } from '../store/manifest.js';
import type { JudgePreference } from '../vocabulary.js';
import { type SideContext, type SideRead, sideDispatch } from '../side/dispatch.js';
import { fillPlaceholders, placeholderProblem } from '../prompt-files.js';

export const JUDGE_TEMPLATE = 'judge';
/** The placeholders prompts/judge.md may use; both documents are required. */
export const JUDGE_PLACEHOLDERS = ['goal', 'document_a', 'document_b'] as const;

export type Label = 'A' | 'B' | 'TIE';
export type Order = JudgeCall['order'];
export const ORDERS: readonly Order[] = ['original-first', 'final-first'];

/** The first line a judge's reply must start with. */
const PREFER_LINE = /^PREFER:[ \t]*(A|B|TIE)[ \t]*$/;

/** The template checked: only its own placeholders, and both documents. Returns the problem in words, or null. */
export function judgeTemplateProblem(template: string): string | null {
  return placeholderProblem(template, 'judge.md', JUDGE_PLACEHOLDERS, ['document_a', 'document_b']);
}

/**
 * The judge's prompt: document A, then document B, each between the document delimiter lines
 * the pass prompts use (one nonce absent from both), and the goal when the run has one.
 */
export function buildJudgePrompt(template: string, input: { a: string; b: string; goal: string | null }): string {
  const a = promptDocument(input.a);
  const b = promptDocument(input.b);
  const d = makeDelimiters(`${a}\n${b}`);
  const values: Record<string, string> = {
    goal: input.goal ? `${GOAL_HEADING}\n${input.goal}` : '',
    document_a: `${d.open}\n${a}\n${d.close}`,
    document_b: `${d.open}\n${b}\n${d.close}`,
  };
  return fillPlaceholders(template, values);
}

/** A reply's first line read as a label; anything else is malformed, with the reason the repair sends. */
export function parsePreference(reply: string): SideRead<Label> {
  const first =
    reply
      .replace(/^\uFEFF/, '')
      .replace(/^\s*\n/, '')
      .split('\n')[0]
      ?.trim() ?? '';
  const m = PREFER_LINE.exec(first);
  if (m) return { ok: true, value: m[1] as Label };
  const shown = first.length > 80 ? `${first.slice(0, 79)}…` : first;
  return {
    ok: false,
    reason: `the reply must start with one line PREFER: A, PREFER: B or PREFER: TIE, and it starts with ${shown ? JSON.stringify(shown) : 'an empty line'}`,
  };
}

/** Which document a label names in a call of this order. */
export function preferenceOf(label: Label, order: Order): JudgePreference {
  if (label === 'TIE') return 'tie';
  const aIsOriginal = order === 'original-first';
  return (label === 'A') === aIsOriginal ? 'original' : 'final';
}

/**
 * The two calls together: `agreed` when both prefer the same, and `prefers` is that; when
 * they differ the order decided, so neither is preferred (`tie`). Null when a call has no answer.
 */
export function combine(calls: readonly (JudgePreference | null)[]): { prefers: JudgePreference | null; agreed: boolean } {
  if (calls.length === 0 || calls.some((c) => c === null)) return { prefers: null, agreed: false };
  const agreed = calls.every((c) => c === calls[0]);
  return { prefers: agreed ? (calls[0] as JudgePreference) : 'tie', agreed };
}

/** `--require-judge` holds only when both calls preferred the final document. */
export function judgePassed(v: Pick<JudgeVerdict, 'prefers' | 'agreed'> | undefined): boolean {
  return v?.prefers === 'final' && v.agreed;
}

/** The warning when the judge is of the reviewer's or the composer's family (judges prefer their own family's text); null otherwise. */
export function familyWarning(
  judge: { spec: string; adapter: string; provider: string; model: string | null },
  agents: { reviewer: Pick<AgentRecord, 'spec' | 'adapter' | 'provider' | 'model'>; composer: Pick<AgentRecord, 'spec' | 'adapter' | 'provider' | 'model'> },
): string | null {
  const family = modelFamily(judge);
  if (family === null) return null;
  const same = (['reviewer', 'composer'] as const).filter((role) => modelFamily(agents[role]) === family);
  if (same.length === 0) return null;
  const who = same.map((role) => `the ${role} ${agents[role].spec}`).join(' and ');
  return `the judge ${judge.spec} is of the ${family} model family, as ${who} ${same.length > 1 ? 'are' : 'is'}: judges tend to prefer text of their own family, so its verdict may lean to the final document; pick a judge of another family`;
}

export interface JudgeRequest {
  agent: ResolvedAgent;
  agentVersion: string | null;
  /** The model the judge is expected to use (its options or its check's resolved model), for the family warning. */
  model: string | null;
  template: string;
  original: { file: string; text: string };
  final: { file: string; text: string; sha256: string };
  goal: string | null;
  timeoutMs: number;
  maxOutputTokens: number | null;
  agents: Parameters<typeof familyWarning>[1];
}

/** Asks the judge twice (original first, then final first) and combines the answers; never throws for an agent's failure. */
export async function runJudge(ctx: SideContext, req: JudgeRequest): Promise<JudgeVerdict> {
  const warning = familyWarning({ spec: req.agent.spec, adapter: req.agent.adapter, provider: req.agent.provider, model: req.model }, req.agents);
  const calls: JudgeCall[] = [];
  let error: JudgeVerdict['error'] = null;
  for (const [i, order] of ORDERS.entries()) {
    const [a, b] = order === 'original-first' ? [req.original, req.final] : [req.final, req.original];
    const outcome = await sideDispatch(ctx, {
      role: 'judge',
      agent: req.agent,
      agentVersion: req.agentVersion,
      stem: `judge-${i + 1}-${req.agent.slug}`,
      prompt: buildJudgePrompt(req.template, { a: a.text, b: b.text, goal: req.goal }),
      goal: `As judge, compare ${a.file} (labelled A) and ${b.file} (labelled B) blind and say which is the better document (${order}).`,
      contract: 'a first line PREFER: A, PREFER: B or PREFER: TIE, reasons optional after it (prompts/judge.md)',
      documents: [a, b],
      timeoutMs: req.timeoutMs,
      maxOutputTokens: req.maxOutputTokens,
      read: parsePreference,
    });
    calls.push({ order, prefers: outcome.ok ? preferenceOf(outcome.value, order) : null, dispatches: outcome.ids });
    if (!outcome.ok) {
      error ??= { type: outcome.type, message: outcome.message };
      if (outcome.type === 'interrupted' || outcome.type === 'budget') break;
    }
  }
  const { prefers, agreed } = combine(calls.map((c) => c.prefers).concat(calls.length < ORDERS.length ? [null] : []));
  return {
    agent: req.agent.spec,
    prefers,
    agreed,
    final_sha256: req.final.sha256,
    calls,
    dispatches: calls.flatMap((c) => c.dispatches),
    warning,
    error,
  };
}
