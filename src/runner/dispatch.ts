import { existsSync } from 'node:fs';
import { ulid } from 'ulid';
import { callAdapter, type HostResult } from '../adapters/host.js';
import { CONTRACT_VERSION, type AdapterRequest, type Role } from '../adapters/contract.js';
import type { Note } from '../protocol/scanner.js';
import { countLines } from '../audit/records.js';
import { sha256 } from '../store/hash.js';
import { writeManifest, type DispatchRef, type PassRecord } from '../store/manifest.js';
import { dispatchStem, type AttemptKind } from '../store/run-folder.js';
import type { DispatchStart, DispatchStatus } from './hooks.js';
import { addUsage, type RunState } from './state.js';

export interface Attempt {
  pass: number;
  role: Role;
  final: boolean;
  kind: AttemptKind;
  index: number;
  parentId: string | null;
  prompt: string;
  /** The document the agent revises in this attempt (for a repair: the rejected reply). */
  documentFile: string;
  documentText: string;
  repairError: string | null;
}

export interface Dispatched {
  start: DispatchStart;
  ref: DispatchRef;
  host: HostResult;
}

/**
 * A pass run again after a resume would reuse its stems; earlier artifacts are evidence
 * their records point to, so the rerun gets `.resume-<k>` instead of overwriting them.
 */
function freeStem(state: RunState, stem: string): string {
  if (!existsSync(state.folder.path(`${stem}.prompt.md`))) return stem;
  for (let k = 1; ; k++) if (!existsSync(state.folder.path(`${stem}.resume-${k}.prompt.md`))) return `${stem}.resume-${k}`;
}

/**
 * One call of one agent: the prompt is written and the record opened before the call,
 * the raw reply and stderr kept after it, usage added to the pass and the run.
 */
export async function dispatch(state: RunState, rec: PassRecord, attempt: Attempt): Promise<Dispatched> {
  const { plan, folder, manifest } = state;
  const agent = plan.agents[attempt.role];
  const id = ulid();
  const stem = freeStem(state, dispatchStem(attempt.pass, attempt.role, agent.slug, attempt.kind, attempt.index));
  const promptFile = folder.write(`${stem}.prompt.md`, attempt.prompt);
  const timeoutMs = plan.timeoutMs[attempt.role];
  const issuedAt = new Date();
  const start: DispatchStart = {
    id,
    runId: manifest.run_id,
    stem,
    pass: attempt.pass,
    totalPasses: plan.passes,
    role: attempt.role,
    agent,
    agentVersion: plan.agentVersions[attempt.role],
    final: attempt.final,
    kind: attempt.kind,
    index: attempt.index,
    parentId: attempt.parentId,
    promptFile,
    documentFile: attempt.documentFile,
    documentSha256: sha256(attempt.documentText),
    documentLines: countLines(attempt.documentText),
    inputPath: plan.input.path,
    issuedAt,
    deadlineSeconds: Math.round(timeoutMs / 1000),
    maxOutputTokens: plan.maxOutputTokens[attempt.role],
    repairError: attempt.repairError,
  };
  const record = state.hooks.dispatchStarted(start);
  const ref: DispatchRef = { id, kind: attempt.kind, index: attempt.index, stem, status: 'pending', reason: null, duration_ms: null, usage: null, record };
  rec.dispatches.push(ref);
  manifest.totals.dispatches += 1;
  writeManifest(folder.dir, manifest);
  folder.log(`dispatch ${id} ${stem} -> ${agent.spec}`);

  const request: AdapterRequest = {
    contract_version: CONTRACT_VERSION,
    dispatch_id: id,
    run_id: manifest.run_id,
    pass: attempt.pass,
    total_passes: plan.passes,
    role: attempt.role,
    final: attempt.final,
    prompt: attempt.prompt,
    options: agent.options,
    deadline: new Date(issuedAt.getTime() + timeoutMs).toISOString(),
    ...(attempt.repairError ? { repair_error: attempt.repairError } : {}),
    attempt: { kind: attempt.kind, index: attempt.index },
  };
  // Room for the reply (bounded by max_bytes, JSON-escaped) plus the envelope.
  const host = await callAdapter(agent, request, { timeoutMs, signal: state.io.signal, maxOutputBytes: plan.maxBytes * 8 + 1_000_000 });
  const replyText = host.ok ? host.response.reply : host.stdout;
  if (replyText) folder.write(`${stem}.reply.txt`, replyText);
  folder.write(`${stem}.stderr.log`, host.stderr);
  const usage = host.ok ? host.response.usage : host.usage;
  if (usage) {
    ref.usage = { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, cost_usd: usage.cost_usd };
    addUsage(rec.usage, ref.usage);
    addUsage(manifest.totals, ref.usage);
    const agentRec = manifest.agents[attempt.role];
    agentRec.usage_provider_reported = (agentRec.usage_provider_reported ?? true) && usage.provider_reported;
  }
  if (host.ok) {
    const agentRec = manifest.agents[attempt.role];
    agentRec.model ??= host.response.model;
    agentRec.version ??= host.response.agent_version;
  }
  ref.duration_ms = host.durationMs;
  return { start, ref, host };
}

export interface Finish {
  status: DispatchStatus;
  reason: string | null;
  document?: { file: string; text: string } | null;
  added?: Note[];
  resolved?: Note[];
}

/** Closes a dispatch: its outcome goes to the record, the manifest and run.log. */
export function finishDispatch(state: RunState, d: Dispatched, fin: Finish): void {
  d.ref.status = fin.status;
  d.ref.reason = fin.reason;
  const doc = fin.document ? { file: fin.document.file, sha256: sha256(fin.document.text), lines: countLines(fin.document.text) } : null;
  state.hooks.dispatchFinished({
    start: d.start,
    completedAt: new Date(),
    durationMs: d.host.durationMs,
    status: fin.status,
    reason: fin.reason,
    response: d.host.ok ? d.host.response : null,
    error: d.host.ok ? null : d.host.error,
    document: doc,
    added: fin.added ?? [],
    resolved: fin.resolved ?? [],
  });
  state.folder.log(`dispatch ${d.start.id} ${fin.status}${fin.reason ? `: ${fin.reason}` : ''} (${d.host.durationMs} ms)`);
  writeManifest(state.folder.dir, state.manifest);
}
