import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Document, isScalar, isSeq, parse, visit } from 'yaml';
import { CONTRACT_VERSION } from '../adapters/contract.js';
import type { DispatchEnd, DispatchStart, RunHooks } from '../runner/hooks.js';
import { writeFileAtomic } from '../store/atomic.js';
import { sha256 } from '../store/hash.js';
import {
  DispatchRecordSchema,
  PROTOCOL_VERSION,
  type DispatchRecord,
  type DispatchRequest,
  type DispatchResponse,
  type Finding,
  type ResolvedNote,
} from './schema.js';

export const DISPATCHES_DIR = 'audit/dispatches';

/** What the audit trail reads of a scanner note. */
export interface NoteLike {
  kind: string;
  line: number;
  text: string;
  canonical: boolean;
}

const SCAN_RATIONALE =
  'Deterministic scan: bounce found this note with its own marker scanner in the document the reply produced; the agent was not asked to report it.';
const LIMITATIONS = ["bounce does not ask agents to assess themselves; findings come from bounce's deterministic note scan, not from the agent."];
const REPLY_CONTRACT = 'the whole revised document as the reply, nothing else (prompts/protocol.md; adapter contract)';

export function utcDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Run-folder-relative path of a dispatch record. */
export function recordPath(id: string, issuedAt: Date): string {
  return `${DISPATCHES_DIR}/${utcDate(issuedAt)}/${id}.yaml`;
}

export function countLines(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Severity by marker kind: a disagreement weighs more than a question. */
export function severityOf(kind: string): Finding['severity'] {
  return kind.toLowerCase() === 'contested' ? 'medium' : 'low';
}

const STARTS_NOTE = /^\s*(?:(?:[>*+-]|\d+[.)])\s*)*[*_]*\[[A-Za-z][\w-]*\]/;

/**
 * Lines a note spans: from its marker to the end of its paragraph or the line before the
 * next note (the scanner's rule), read from the document it is in.
 */
export function noteRange(note: NoteLike, lines: readonly string[] | null): [number, number] {
  let end = note.line;
  if (lines) while (end < lines.length && lines[end]!.trim() !== '' && !STARTS_NOTE.test(lines[end]!)) end++;
  return [note.line, end];
}

function readLines(runDir: string, rel: string): string[] | null {
  const path = join(runDir, rel);
  return existsSync(path) ? readFileSync(path, 'utf8').split(/\r?\n/) : null;
}

function fileSha(runDir: string, rel: string): { sha256: string | null; lines: number } {
  const path = join(runDir, rel);
  if (!existsSync(path)) return { sha256: null, lines: 0 };
  const data = readFileSync(path);
  return { sha256: sha256(data), lines: countLines(data.toString('utf8')) };
}

export function buildRequest(runDir: string, start: DispatchStart): DispatchRequest {
  const prompt = fileSha(runDir, start.promptFile);
  const what =
    start.kind === 'pass' ? 'revise' : start.kind === 'retry' ? `resend (retry ${start.index}) to revise` : `repair (repair ${start.index}) of the reply to`;
  return {
    id: start.id,
    protocol_version: PROTOCOL_VERSION,
    issued_by: 'bounce',
    issued_at: start.issuedAt.toISOString(),
    target_agent: `${start.role}/${start.agent.spec}`,
    goal: `As ${start.role}, ${what} ${start.documentFile} on pass ${start.pass} of ${start.totalPasses}${start.final ? ' (final pass: resolve every note, add none)' : ''}.`,
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
        { path: start.promptFile, purpose: 'prompt', sha256: prompt.sha256, lines: [1, prompt.lines] },
      ],
    },
    effort_budget: { max_subagents: 0, deadline_seconds: start.deadlineSeconds, max_output_tokens: start.maxOutputTokens },
    expected_output: { contract: REPLY_CONTRACT, contract_version: CONTRACT_VERSION, final: start.final, repair_error: start.repairError },
    priority: 'normal',
  };
}

/**
 * `passInput` is the document the pass began with: resolved notes are counted against it,
 * and a repair may have been sent a rejected reply instead.
 */
export function buildResponse(runDir: string, end: DispatchEnd, passInput?: { file: string; sha256: string }): DispatchResponse {
  const { start, response, document } = end;
  const input = passInput ?? { file: start.documentFile, sha256: start.documentSha256 };
  const artifacts = [`${start.stem}.reply.txt`, `${start.stem}.stderr.log`].flatMap((path) => {
    const sha = fileSha(runDir, path).sha256;
    return sha ? [{ path, sha256: sha }] : [];
  });
  const usage = response?.usage;
  const tokens = usage && (usage.input_tokens !== null || usage.output_tokens !== null) ? (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) : null;
  const docLines = document ? readLines(runDir, document.file) : null;
  const inputLines = end.resolved.length ? readLines(runDir, input.file) : null;
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
  const resolved: ResolvedNote[] = end.resolved.map((note) => ({
    type: note.kind.toLowerCase(),
    message: note.text,
    line_range: noteRange(note, inputLines),
    citations: { evidence: [{ file: input.file, sha256: input.sha256, line_range: noteRange(note, inputLines) }] },
  }));
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
    self_assessment: { coverage: null, confidence_overall: null, limitations: LIMITATIONS, unknowns: [] },
    metadata: {
      tokens_used: tokens,
      input_tokens: usage?.input_tokens ?? null,
      output_tokens: usage?.output_tokens ?? null,
      cost_usd: usage?.cost_usd ?? null,
      usage_provider_reported: usage ? usage.provider_reported : null,
      tool_calls: response?.tool_calls ?? null,
      subagents_dispatched: 0,
      model: response?.model ?? start.agent.options.model ?? null,
    },
    error: end.error ? { type: end.error.type, message: end.error.message } : null,
  };
}

/** Keys in the schema's order, so every record reads the same way. */
export function renderRecord(record: DispatchRecord): string {
  const doc = new Document(DispatchRecordSchema.parse(record), { aliasDuplicateObjects: false });
  // Line ranges read best as `[1, 40]`.
  visit(doc, {
    Seq: (_key, node) =>
      void (isSeq(node) && node.items.length > 0 && node.items.every((i) => isScalar(i) && typeof i.value === 'number') && (node.flow = true)),
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

function writeRecord(runDir: string, rel: string, record: DispatchRecord): void {
  const path = join(runDir, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileAtomic(path, renderRecord(record));
}

/** Parses and validates one record file; throws with the file named on any problem. */
export function readRecord(path: string): DispatchRecord {
  const doc: unknown = parse(readFileSync(path, 'utf8'));
  const result = DispatchRecordSchema.safeParse(doc);
  if (!result.success) {
    const first = result.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`${path}: not a valid dispatch record: ${first.join('; ')}`);
  }
  return result.data;
}

/** The audit trail as run hooks: a record opened before each call and closed after it. */
export function createAuditTrail(runDir: string): RunHooks {
  const requests = new Map<string, DispatchRequest>();
  const passInputs = new Map<number, { file: string; sha256: string }>();
  return {
    dispatchStarted(start) {
      if (start.kind === 'pass' || !passInputs.has(start.pass)) passInputs.set(start.pass, { file: start.documentFile, sha256: start.documentSha256 });
      const request = buildRequest(runDir, start);
      const rel = recordPath(start.id, start.issuedAt);
      writeRecord(runDir, rel, { request, response: null, outcome: { status: 'pending', reason: null, graded_at: null, grade: null } });
      requests.set(start.id, request);
      return rel;
    },
    dispatchFinished(end) {
      const rel = recordPath(end.start.id, end.start.issuedAt);
      // Keep the request exactly as written before the call, even if files changed since.
      const request = requests.get(end.start.id) ?? buildRequest(runDir, end.start);
      requests.delete(end.start.id);
      writeRecord(runDir, rel, {
        request,
        response: buildResponse(runDir, end, passInputs.get(end.start.pass)),
        outcome: { status: end.status, reason: end.reason, graded_at: null, grade: null },
      });
    },
  };
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

/** Resume: a record still `pending` belongs to a crashed run; it becomes `error` with the reason. */
export function markStalePending(runDir: string, reason: string): string[] {
  const ids: string[] = [];
  for (const rel of listRecordFiles(runDir)) {
    let record: DispatchRecord;
    try {
      record = readRecord(join(runDir, rel));
    } catch {
      continue; // an unreadable record is for `bounce audit` to name, not for resume to fail on
    }
    if (record.outcome.status !== 'pending') continue;
    writeRecord(runDir, rel, { ...record, outcome: { status: 'error', reason, graded_at: null, grade: null } });
    ids.push(record.request.id);
  }
  return ids;
}
