/**
 * The debate of a decision round (docs/human.md): for each note, one side dispatch in which
 * the reviewer states its alternative (prompts/decide-reviewer.md, role `alternative`), then
 * one in which the composer answers it (prompts/decide-composer.md, role `counter`). Each reply
 * is one short paragraph; one that is not is repaired once.
 */
import type { ResolvedAgent } from '../adapters/registry.js';
import { GOAL_HEADING, makeDelimiters, promptDocument } from '../engine/prompt.js';
import type { GradableFinding } from '../grade/gradable.js';
import { fillPlaceholders, placeholderProblem } from '../prompt-files.js';
import { type SideContext, type SideOutcome, type SideRead, sideDispatch } from '../side/dispatch.js';
import { noteText } from './undecided.js';

export const REVIEWER_TEMPLATE = 'decide-reviewer';
export const COMPOSER_TEMPLATE = 'decide-composer';
/** The longest statement a side may make: a short paragraph. */
export const MAX_STATEMENT_CHARS = 1200;

export function reviewerTemplateProblem(template: string): string | null {
  return placeholderProblem(template, `${REVIEWER_TEMPLATE}.md`, ['goal', 'document', 'note'], ['document', 'note']);
}

export function composerTemplateProblem(template: string): string | null {
  return placeholderProblem(template, `${COMPOSER_TEMPLATE}.md`, ['goal', 'document', 'note', 'alternative'], ['document', 'note', 'alternative']);
}

/** A note as the prompts quote it: its kind, where it stood, who raised it, its text. */
export function noteEntry(f: GradableFinding): string {
  const [from] = f.lineRange;
  return `[${f.kind}] ${noteText(f)}\n(line ${from} of ${f.document}, raised by pass ${f.pass}, ${f.role} ${f.agent}; ${f.next})`;
}

/** A statement read: one paragraph of prose, whitespace made single spaces; anything else is malformed, with why. */
export function parseStatement(reply: string): SideRead<string> {
  const text = reply.replace(/^\uFEFF/, '').trim();
  if (/\n[ \t]*\n/.test(text)) return { ok: false, reason: 'the reply must be one paragraph, and it has a blank line in it' };
  if (/^(#|```|~~~|[-*+] |\d+[.)] )/m.test(text)) return { ok: false, reason: 'the reply must be one paragraph of prose: no heading, list or code fence' };
  const line = text.replace(/\s+/g, ' ');
  if (line.length > MAX_STATEMENT_CHARS)
    return { ok: false, reason: `the reply is ${line.length} characters; one short paragraph is at most ${MAX_STATEMENT_CHARS}` };
  return { ok: true, value: line };
}

export interface Debater {
  agent: ResolvedAgent;
  agentVersion: string | null;
  template: string;
  timeoutMs: number;
  maxOutputTokens: number | null;
}

export interface DebateInput {
  note: GradableFinding;
  /** The run's last document, as the run folder keeps it. */
  document: { file: string; text: string };
  goal: string | null;
}

function prompt(template: string, input: DebateInput, alternative?: string): string {
  const doc = promptDocument(input.document.text);
  const d = makeDelimiters(doc);
  return fillPlaceholders(template, {
    goal: input.goal ? `${GOAL_HEADING}\n${input.goal}` : '',
    document: `${d.open}\n${doc}\n${d.close}`,
    note: noteEntry(input.note),
    ...(alternative !== undefined ? { alternative } : {}),
  });
}

const CONTRACT = `one paragraph of plain prose, at most ${MAX_STATEMENT_CHARS} characters`;

/** The reviewer's alternative for one note; never throws for an agent's failure. */
export function stateAlternative(ctx: SideContext, who: Debater, input: DebateInput, index: number): Promise<SideOutcome<string>> {
  return sideDispatch(ctx, {
    role: 'alternative',
    agent: who.agent,
    agentVersion: who.agentVersion,
    stem: `decide-${ctx.pass}-${index}-reviewer-${who.agent.slug}`,
    prompt: prompt(who.template, input),
    goal: `As the reviewer, state your alternative for the note ${input.note.id}, which a person will decide.`,
    contract: `${CONTRACT} (prompts/${REVIEWER_TEMPLATE}.md)`,
    documents: [input.document],
    timeoutMs: who.timeoutMs,
    maxOutputTokens: who.maxOutputTokens,
    read: parseStatement,
  });
}

/** The composer's counter-argument to the reviewer's alternative; never throws for an agent's failure. */
export function stateCounter(ctx: SideContext, who: Debater, input: DebateInput, alternative: string, index: number): Promise<SideOutcome<string>> {
  return sideDispatch(ctx, {
    role: 'counter',
    agent: who.agent,
    agentVersion: who.agentVersion,
    stem: `decide-${ctx.pass}-${index}-composer-${who.agent.slug}`,
    prompt: prompt(who.template, input, alternative),
    goal: `As the composer, answer the reviewer's alternative for the note ${input.note.id}, which a person will decide.`,
    contract: `${CONTRACT} (prompts/${COMPOSER_TEMPLATE}.md)`,
    documents: [input.document],
    timeoutMs: who.timeoutMs,
    maxOutputTokens: who.maxOutputTokens,
    read: parseStatement,
  });
}
