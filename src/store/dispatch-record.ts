import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdapterSuccess } from '../contract/contract.js';
import { CONTRACT_VERSION } from '../contract/contract.js';
import type { HostError } from '../contract/host.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import type { EditReport } from '../text/edit-blocks.js';
import type { AttemptKind, CostSource, DispatchStatus, EditFormat, NoteFate, Role, SideRole } from '../vocabulary.js';
import type { Lines } from '../text/lines.js';
import { type NoteLike, noteRange } from '../protocol/note-range.js';
import { readYaml, toYaml } from '../yaml.js';
import { sha256 } from './hash.js';
import {
  DispatchRecordSchema,
  PROTOCOL_VERSION,
  type DispatchRecord,
  type DispatchRequest,
  type CacheHit,
  type CheckRunRecord,
  type ReplayHit,
  type DispatchResponse,
  type Finding,
  type ResolvedNote,
} from './record-schema.js';

export const DISPATCHES_DIR = 'audit/dispatches';

/** What the engine knows when it is about to call an agent (written before the call). */
export interface DispatchStart {
  id: string;
  runId: string;
  stem: string;
  pass: number;
  totalPasses: number;
  role: Role;
  agent: ResolvedAgent;
  agentVersion: string | null;
  final: boolean;
  kind: AttemptKind;
  index: number;
  /** The dispatch this one retries or repairs; null for the first call of a pass. */
  parentId: string | null;
  /** Run-folder-relative file names. */
  promptFile: string;
  /** The document the agent was asked to revise, as a run-folder file, its sha and line count. */
  documentFile: string;
  documentSha256: string;
  documentLines: number;
  inputPath: string | null;
  issuedAt: Date;
  deadlineSeconds: number;
  maxOutputTokens: number | null;
  repairError: string | null;
  /** What the prompt asked the reply to be; absent: the whole document. */
  editFormat?: EditFormat;
  /** What the document is for (--goal); null or absent: none. */
  documentGoal?: string | null;
  /** The run's reference files (--context) as its run folder keeps them. */
  context?: readonly { file: string; source: string; sha256: string; lines: number }[];
  /** A side dispatch: what it asks, in the record's `goal`, instead of a pass's wording. */
  goalText?: string;
  /** A side dispatch: the reply it expects, in the record's `expected_output.contract`. */
  contract?: string;
  /** Further documents the agent was shown (a judge's second one), cited with purpose `document`. */
  documents?: readonly { file: string; sha256: string; lines: number }[];
}

/** A side dispatch's start (a judge's, a grader's: src/side/dispatch.ts): a pass's, under a side role. */
export type SideStart = Omit<DispatchStart, 'role'> & { role: SideRole };
/** A side dispatch's end. */
export type SideEnd = Omit<DispatchEnd, 'start'> & { start: SideStart };

/** What the engine knows after the call (written after it). */
export interface DispatchEnd {
  start: DispatchStart;
  completedAt: Date;
  durationMs: number;
  status: Exclude<DispatchStatus, 'pending'>;
  reason: string | null;
  response: AdapterSuccess | null;
  error: HostError | null;
  /** The document this reply produced, when it could be read as one. */
  document: { file: string; sha256: string; lines: number } | null;
  /** Notes the reply added and resolved, from the scanner, never from the agent's word. */
  added: NoteLike[];
  resolved: NoteLike[];
  /** The ledger's judgement of each resolved note, in the same order (absent: not judged). */
  fates?: ResolvedFate[];
  /** What the dispatch cost and where that figure comes from; absent: the adapter's own cost, source unknown. */
  cost?: { cost_usd: number | null; cost_source: CostSource };
  /** In edit mode, what the reply did block by block; null or absent otherwise. */
  edits?: EditReport | null;
  /** The reply came from the response cache: which dispatch of which run first got it. */
  cache?: CacheHit;
  /** The reply came from a recorded run (`bounce replay`): which dispatch of which run. */
  replay?: ReplayHit;
  /** The check commands run on the document, in order (config `checks:`); absent or empty: none ran. */
  checks?: readonly CheckRunRecord[];
}

/** How a resolved note was resolved and who raised it (src/protocol/ledger.ts). */
export interface ResolvedFate {
  fate: NoteFate;
  raisedBy: { pass: number | null; agent: string };
  refersTo: [number, number] | null;
}

const SCAN_RATIONALE =
  'Deterministic scan: bounce found this note with its own marker scanner in the document the reply produced; the agent was not asked to report it.';
const LIMITATIONS = ["bounce does not ask agents to assess themselves; findings come from bounce's deterministic note scan, not from the agent."];
const REPLY_CONTRACT: Record<EditFormat, string> = {
  whole: 'the whole revised document as the reply, nothing else (prompts/protocol.md; adapter contract)',
  edits: 'search/replace blocks against the document sent, or the whole revised document (prompts/edits.md; adapter contract)',
};

export function utcDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Run-folder-relative path of a dispatch record. */
export function recordPath(id: string, issuedAt: Date): string {
  return `${DISPATCHES_DIR}/${utcDate(issuedAt)}/${id}.yaml`;
}

/** Severity by marker kind: a disagreement weighs more than a question. */
export function severityOf(kind: string): Finding['severity'] {
  return kind.toLowerCase() === 'contested' ? 'medium' : 'low';
}

/** A file as a record cites it: its sha256 (null when missing) and line count. */
export type FileFacts = (rel: string) => { sha256: string | null; lines: number };
/** A run-folder file split into lines, or null when missing. */
export type FileLines = (rel: string) => Lines | null;

export function buildRequest(start: DispatchStart | SideStart, facts: FileFacts): DispatchRequest {
  const prompt = facts(start.promptFile);
  const what =
    start.kind === 'pass' ? 'revise' : start.kind === 'retry' ? `resend (retry ${start.index}) to revise` : `repair (repair ${start.index}) of the reply to`;
  return {
    id: start.id,
    protocol_version: PROTOCOL_VERSION,
    issued_by: 'bounce',
    issued_at: start.issuedAt.toISOString(),
    target_agent: `${start.role}/${start.agent.spec}`,
    goal:
      start.goalText ??
      `As ${start.role}, ${what} ${start.documentFile} on pass ${start.pass} of ${start.totalPasses}${start.final ? ' (final pass: resolve every note, add none)' : ''}.${start.documentGoal ? ` The document's purpose: ${start.documentGoal}` : ''}`,
    plan_ancestry: {
      run_id: start.runId,
      document: start.inputPath,
      pass: start.pass,
      total_passes: start.totalPasses,
      attempt: { kind: start.kind, index: start.index },
      parent_dispatch: start.parentId,
    },
    context: {
      files: [
        { path: start.documentFile, purpose: 'document', sha256: start.documentSha256, lines: [1, start.documentLines] },
        ...(start.documents ?? []).map((d) => ({ path: d.file, purpose: 'document' as const, sha256: d.sha256, lines: [1, d.lines] as [number, number] })),
        { path: start.promptFile, purpose: 'prompt', sha256: prompt.sha256, lines: [1, prompt.lines] },
        ...(start.context ?? []).map((c) => ({
          path: c.file,
          purpose: 'context' as const,
          source: c.source,
          sha256: c.sha256,
          lines: [1, c.lines] as [number, number],
        })),
      ],
    },
    effort_budget: { max_subagents: 0, deadline_seconds: start.deadlineSeconds, max_output_tokens: start.maxOutputTokens },
    expected_output: {
      contract: start.contract ?? REPLY_CONTRACT[start.editFormat ?? 'whole'],
      contract_version: CONTRACT_VERSION,
      final: start.final,
      repair_error: start.repairError,
      edit_format: start.editFormat ?? 'whole',
    },
    priority: 'normal',
  };
}

/**
 * `passInput` is the document the pass began with: resolved notes are counted against it,
 * and a repair may have been sent a rejected reply instead.
 */
export function buildResponse(end: DispatchEnd | SideEnd, passInput: { file: string; sha256: string }, facts: FileFacts, lines: FileLines): DispatchResponse {
  const { start, response, document } = end;
  const artifacts = [`${start.stem}.reply.txt`, `${start.stem}.stderr.log`].flatMap((path) => {
    const sha = facts(path).sha256;
    return sha ? [{ path, sha256: sha }] : [];
  });
  const usage = response?.usage;
  const tokens = usage && (usage.input_tokens !== null || usage.output_tokens !== null) ? (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) : null;
  const docLines = document && end.added.length ? lines(document.file) : null;
  const inputLines = end.resolved.length ? lines(passInput.file) : null;
  const findings: Finding[] = document
    ? end.added.map((note, i) => ({
        id: `${start.id}/${String(i + 1).padStart(3, '0')}`,
        severity: severityOf(note.kind),
        type: note.kind.toLowerCase(),
        message: note.text,
        line_range: noteRange(note, docLines),
        canonical: note.canonical,
        confidence: 'HIGH' as const,
        confidence_rationale: SCAN_RATIONALE,
        citations: { evidence: [{ file: document.file, sha256: document.sha256, line_range: noteRange(note, docLines) }] },
      }))
    : [];
  const resolved: ResolvedNote[] = end.resolved.map((note, i) => {
    const judged = end.fates?.[i];
    return {
      type: note.kind.toLowerCase(),
      message: note.text,
      line_range: noteRange(note, inputLines),
      citations: { evidence: [{ file: passInput.file, sha256: passInput.sha256, line_range: noteRange(note, inputLines) }] },
      ...(judged ? { fate: judged.fate, raised_by: judged.raisedBy, refers_to: judged.refersTo } : {}),
    };
  });
  return {
    dispatch_id: start.id,
    protocol_version: PROTOCOL_VERSION,
    agent: `${start.role}/${start.agent.spec}`,
    agent_version: response?.agent_version ?? start.agentVersion,
    completed_at: end.completedAt.toISOString(),
    duration_ms: Math.max(0, Math.round(end.durationMs)),
    stop: response?.stop ?? null,
    document: document ? { path: document.file, sha256: document.sha256, lines: document.lines } : null,
    artifacts,
    findings,
    resolved,
    edits: end.edits ? { reply: end.edits.reply, blocks: end.edits.blocks } : null,
    self_assessment: { coverage: null, confidence_overall: null, limitations: LIMITATIONS, unknowns: [] },
    metadata: {
      tokens_used: tokens,
      input_tokens: usage?.input_tokens ?? null,
      output_tokens: usage?.output_tokens ?? null,
      cache_read_tokens: usage?.cache_read_tokens ?? null,
      cache_write_tokens: usage?.cache_write_tokens ?? null,
      cost_usd: end.cost ? end.cost.cost_usd : (usage?.cost_usd ?? null),
      cost_source: end.cost?.cost_source ?? null,
      usage_provider_reported: usage ? usage.provider_reported : null,
      tool_calls: response?.tool_calls ?? null,
      subagents_dispatched: 0,
      model: response?.model ?? start.agent.options.model ?? null,
    },
    error: end.error ? { type: end.error.type, message: end.error.message } : null,
    ...(end.cache ? { cache: end.cache } : {}),
    ...(end.replay ? { replay: end.replay } : {}),
    ...(end.checks?.length ? { checks: end.checks.map((c) => ({ ...c, output: { ...c.output } })) } : {}),
  };
}

/** Keys in the schema's order, so every record reads the same way; line ranges as `[1, 40]`. */
export function renderRecord(record: DispatchRecord): string {
  return toYaml(DispatchRecordSchema.parse(record));
}

/** A record as its run wrote it: the same, with the grading fields (`outcome.graded_at`, `outcome.grade`) back to null. */
export function ungradedRecord(record: DispatchRecord): DispatchRecord {
  return { ...record, outcome: { ...record.outcome, graded_at: null, grade: null } };
}

/** How the recorder writes an ungraded outcome's last two lines: only outcome has these keys, at this depth. */
const UNGRADED = '\n  graded_at: null\n  grade: null\n';

/**
 * The sha256 a record is anchored by (run.json's `record_sha256`, the next record's
 * `binding.previous`, a fork's link to it): the sha256 of the record as its run wrote it. A
 * run writes every record ungraded, and `bounce grade` changes only the grading fields, so for
 * an ungraded record this is the sha256 of its bytes, and for a graded one the sha256 of its
 * text rendered again with those fields back to null (`bounce grade` refuses a record whose
 * text that does not give back). docs/grading.md, "Grades and the chain of records".
 * A file that is no valid record is anchored by its bytes: audit names it.
 */
export function recordAnchor(bytes: Buffer | string, parsed?: DispatchRecord): string {
  if (parsed ? parsed.outcome.grade === null && parsed.outcome.graded_at === null : bytes.includes(UNGRADED)) return sha256(bytes);
  let record = parsed;
  if (!record) {
    const result = DispatchRecordSchema.safeParse(readYaml(bytes.toString()));
    if (!result.success) return sha256(bytes);
    record = result.data;
  }
  return sha256(renderRecord(ungradedRecord(record)));
}

/** Parses and validates one record file (its text, when the caller has read it already); throws with the file named on any problem. */
export function readRecord(path: string, text = readFileSync(path, 'utf8')): DispatchRecord {
  const doc: unknown = readYaml(text);
  const result = DispatchRecordSchema.safeParse(doc);
  if (!result.success) {
    const first = result.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`${path}: not a valid dispatch record: ${first.join('; ')}`);
  }
  return result.data;
}

/** Every `<date>/<file>.yaml` under audit/dispatches, run-folder-relative, sorted. */
export function listRecordFiles(runDir: string): string[] {
  const root = join(runDir, DISPATCHES_DIR);
  if (!existsSync(root)) return [];
  const out: string[] = [];
  for (const day of readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    for (const f of readdirSync(join(root, day))
      .filter((n) => n.endsWith('.yaml') && !n.startsWith('.'))
      .sort())
      out.push(`${DISPATCHES_DIR}/${day}/${f}`);
  }
  return out;
}
