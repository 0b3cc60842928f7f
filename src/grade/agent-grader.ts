/**
 * An agent as the grader (`bounce grade <run> --judge <agent>`, docs/grading.md): for each
 * record whose findings are to be graded, one side dispatch (src/side/dispatch.ts, role
 * `grader`) shows the agent the document the pass produced and its findings, and reads back
 * one line per finding, `<finding id>: accepted|rejected`, a reason optional after it.
 */
import type { ResolvedAgent } from '../adapters/registry.js';
import { GOAL_HEADING, makeDelimiters, promptDocument } from '../engine/prompt.js';
import { plural } from '../plural.js';
import { fillPlaceholders, placeholderProblem } from '../prompt-files.js';
import { type SideContext, type SideOutcome, type SideRead, sideDispatch } from '../side/dispatch.js';
import type { GradeVerdict } from '../vocabulary.js';
import type { GradableFinding } from './gradable.js';

export const GRADER_TEMPLATE = 'grader';
/** The placeholders prompts/grader.md may use; the document and the findings are required. */
export const GRADER_PLACEHOLDERS = ['goal', 'document', 'findings'] as const;

/** The verdicts an agent may give: it cannot skip (a finding it does not judge makes the reply malformed). */
export const AGENT_VERDICTS = ['accepted', 'rejected'] as const satisfies readonly GradeVerdict[];
export type AgentVerdict = (typeof AGENT_VERDICTS)[number];

/** How an agent is named as a grader in a record's grade: `agent:<spec>` (a person is `human:<name>`). */
export const agentGrader = (spec: string): string => `agent:${spec}`;

export function graderTemplateProblem(template: string): string | null {
  return placeholderProblem(template, 'grader.md', GRADER_PLACEHOLDERS, ['document', 'findings']);
}

/** One finding as the prompt lists it: its id, where it stands, who raised it, the note, and what the run did with it. */
function findingEntry(f: GradableFinding): string {
  const [from, to] = f.lineRange;
  const lines = from === to ? `line ${from}` : `lines ${from}-${to}`;
  return `${f.id}\n  ${f.kind} at ${lines}, raised by pass ${f.pass} (${f.role} ${f.agent}): ${f.message.replace(/\s+/g, ' ').trim()}\n  Afterwards: ${f.next}`;
}

/** The grader's prompt: the document the pass produced between the document delimiter lines, then the findings. */
export function buildGraderPrompt(template: string, input: { document: string; findings: readonly GradableFinding[]; goal: string | null }): string {
  const doc = promptDocument(input.document);
  const d = makeDelimiters(doc);
  return fillPlaceholders(template, {
    goal: input.goal ? `${GOAL_HEADING}\n${input.goal}` : '',
    document: `${d.open}\n${doc}\n${d.close}`,
    findings: input.findings.map(findingEntry).join('\n\n'),
  });
}

/** A line of the reply: `<id>: accepted|rejected`, then optionally a reason after a space or a punctuation mark. */
const VERDICT_LINE = /^(\S+?):[ \t]*([A-Za-z]+)(?=$|[\s\-\u2013\u2014:;,.(])(.*)$/;
const SHOWN = 60;
const shown = (line: string): string => JSON.stringify(line.length > SHOWN ? `${line.slice(0, SHOWN - 1)}…` : line);

/** What follows a verdict, without the mark that sets it off (` - `, `: `, `(...)`). */
function reasonOf(rest: string): string {
  const text = rest.trim();
  if (text.startsWith('(') && text.endsWith(')')) return text.slice(1, -1).trim();
  return text.replace(/^[-\u2013\u2014:;,.]+/, '').trim();
}

/** A reply read: each finding's verdict and reason, in the order asked. */
export interface GraderReading {
  verdicts: Map<string, AgentVerdict>;
  reasons: Map<string, string>;
}

/**
 * Reads a grader's reply against the ids it was asked about. Blank lines and spaces around a
 * line are ignored; every other line must be `<finding id>: accepted` or `<finding id>:
 * rejected` (the verdict in any case), a reason optional after it. Malformed, with every
 * problem named (the repair sends them): a line of another form (prose, a list marker, a code
 * fence), another verdict (`skipped` included), an id it was not asked about, an id twice, an
 * id it was asked about and left out.
 */
export function parseGraderReply(reply: string, ids: readonly string[]): SideRead<GraderReading> {
  const byUpper = new Map(ids.map((id) => [id.toUpperCase(), id]));
  const verdicts = new Map<string, AgentVerdict>();
  const reasons = new Map<string, string>();
  const problems: string[] = [];
  const lines = reply.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const n = i + 1;
    const m = VERDICT_LINE.exec(line);
    const id = m ? byUpper.get(m[1]!.toUpperCase()) : undefined;
    const verdict = m?.[2]?.toLowerCase() ?? '';
    const known = (AGENT_VERDICTS as readonly string[]).includes(verdict);
    if (!m || (!known && id === undefined)) problems.push(`line ${n} ${shown(line)} is not <finding id>: accepted|rejected`);
    else if (!known) problems.push(`line ${n} gives ${id} ${shown(m[2]!)}; the verdict is accepted or rejected`);
    else if (id === undefined) problems.push(`line ${n} names ${shown(m[1]!)}, which is none of the findings asked about`);
    else if (verdicts.has(id)) problems.push(`line ${n} grades ${id} a second time`);
    else {
      verdicts.set(id, verdict as AgentVerdict);
      const reason = reasonOf(m[3] ?? '');
      if (reason) reasons.set(id, reason);
    }
  }
  const missing = ids.filter((id) => !verdicts.has(id));
  if (missing.length > 0) problems.push(`no verdict for ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`);
  if (problems.length === 0) return { ok: true, value: { verdicts, reasons } };
  const listed = problems.slice(0, 5).join('; ');
  return {
    ok: false,
    reason: `the reply must be one line per finding, <finding id>: accepted|rejected, a reason optional after it, and nothing else: ${listed}${problems.length > 5 ? `; and ${plural(problems.length - 5, 'more problem')}` : ''}`,
  };
}

/** The findings of one record sent in one call, with the document they stand in. */
export interface GraderBatch {
  record: string;
  pass: number;
  document: { file: string; text: string };
  findings: readonly GradableFinding[];
}

export interface GraderRequest {
  agent: ResolvedAgent;
  agentVersion: string | null;
  template: string;
  goal: string | null;
  timeoutMs: number;
  maxOutputTokens: number | null;
}

/** Asks the agent to grade one record's findings; never throws for an agent's failure. */
export function gradeBatch(ctx: SideContext, req: GraderRequest, batch: GraderBatch): Promise<SideOutcome<GraderReading>> {
  const ids = batch.findings.map((f) => f.id);
  return sideDispatch(
    { ...ctx, pass: batch.pass },
    {
      role: 'grader',
      agent: req.agent,
      agentVersion: req.agentVersion,
      stem: `grade-${batch.pass}-${req.agent.slug}`,
      prompt: buildGraderPrompt(req.template, { document: batch.document.text, findings: batch.findings, goal: req.goal }),
      goal: `As grader, give each of the ${plural(ids.length, 'finding')} pass ${batch.pass} raised in ${batch.document.file} a verdict: accepted or rejected.`,
      contract: 'one line per finding, <finding id>: accepted|rejected, a reason optional after it, nothing else (prompts/grader.md)',
      documents: [batch.document],
      timeoutMs: req.timeoutMs,
      maxOutputTokens: req.maxOutputTokens,
      read: (reply) => parseGraderReply(reply, ids),
    },
  );
}
