import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { boundFields, readRunBinding } from './binding.js';
import { listRecordFiles, readRecord } from './dispatch-record.js';
import { sha256 } from './hash.js';
import type { DispatchRecord } from './record-schema.js';
import { addUsage, type DispatchRef, dispatchesInWriteOrder, type PassRecord, type RunManifest, type UsageTotals } from './manifest.js';
import { SideRoleSchema, type SideRole } from '../vocabulary.js';

export const STALE_REASON = 'the runner stopped before this dispatch finished';

/**
 * The record (its path) that an extension cut short by a crash left, or null. `bounce resume
 * --passes N` writes run.json as it was until a record binds the extension: its first record
 * (pending, binding the new pass budget, and the agents and policy with it), then the run.json
 * that takes the extension on, then the call. A crash between the two writes leaves that
 * record, the newest, listed nowhere, bound to what run.json does not hold, for a call that
 * never started: resume removes it, and the run is as it was before the extension.
 */
export function cutShortExtension(runDir: string, m: RunManifest): string | null {
  const listed = dispatchesInWriteOrder(m);
  const ids = new Set(listed.map((d) => d.id));
  const unlisted = listRecordFiles(runDir).filter((rel) => !ids.has(basename(rel, '.yaml')));
  if (unlisted.length !== 1) return null;
  const rel = unlisted[0]!;
  let record: DispatchRecord;
  let before: string | null;
  try {
    record = readRecord(join(runDir, rel));
    // The newest record names the one written before it: the last run.json lists, else the chain's head.
    const last = listed.at(-1)?.record;
    before = last ? sha256(readFileSync(join(runDir, last))) : (readRunBinding(runDir)?.sha256 ?? null);
  } catch {
    return null; // what cannot be read is for audit to name
  }
  const bound = record.binding?.run;
  if (record.outcome.status !== 'pending' || record.response !== null || !bound || record.binding?.previous !== before) return null;
  const now = boundFields(m);
  const extended = (['agents', 'policy', 'passes'] as const).some((k) => bound[k] !== undefined && bound[k] !== now[k]);
  const same = bound.input === now.input && (m.output.written || bound.output === now.output);
  return extended && same ? rel : null;
}

/** What a record says a dispatch used, when it got as far as a response. */
function usageOf(record: DispatchRecord): UsageTotals | null {
  const m = record.response?.metadata;
  if (!m || (m.input_tokens === null && m.output_tokens === null && m.cost_usd === null)) return null;
  return { input_tokens: m.input_tokens, output_tokens: m.output_tokens, cost_usd: m.cost_usd, cost_source: m.cost_source };
}

/** `pass-1-reviewer-mock.retry-1.prompt.md` -> `pass-1-reviewer-mock.retry-1`. */
function stemOf(record: DispatchRecord): string {
  const prompt = record.request.context.files.find((f) => f.purpose === 'prompt');
  return prompt ? prompt.path.replace(/\.prompt\.md$/, '') : record.request.id;
}

/** The side role (a judge's, a grader's) of a record whose `target_agent` is `<side role>/<agent>`; null for a pass's. */
function sideOf(record: DispatchRecord): { role: SideRole; agent: string } | null {
  const [role, ...rest] = record.request.target_agent.split('/');
  const side = SideRoleSchema.safeParse(role);
  return side.success && rest.length > 0 ? { role: side.data, agent: rest.join('/') } : null;
}

/** The pass record a dispatch of pass `pass` belongs to: the newest one with that number. */
function passFor(m: RunManifest, pass: number): PassRecord | undefined {
  return [...m.pass_records].reverse().find((p) => p.pass === pass);
}

/**
 * Makes run.json agree with the dispatch records after a crash, in place. The recorder
 * writes a record before the run.json that mentions it, so the records are the newer truth:
 * - a record still `pending` is a call that never finished: it becomes `error`;
 * - a record run.json does not list is adopted into its pass;
 * - an outcome run.json has not caught up with is copied into it, usage included;
 * - a pass still `running` was cut short: it becomes `interrupted` (its rerun gets a new record).
 * A side dispatch's record (a judge's, a grader's: `target_agent` `<role>/<agent>`) belongs to
 * no pass: it is caught up with in, or adopted into, `side_dispatches`, its usage in the totals only.
 * Writing is idempotent, so a crash during reconciliation is reconciled by the next resume.
 * Returns the ids of the dispatches it changed.
 */
export function reconcile(runDir: string, m: RunManifest, io: { writeRecord(rel: string, record: DispatchRecord): void }): string[] {
  const changed: string[] = [];
  const refs = new Map<string, { ref: DispatchRef; pass: PassRecord | null }>();
  for (const pass of m.pass_records) for (const ref of pass.dispatches) refs.set(ref.id, { ref, pass });
  for (const ref of m.side_dispatches ?? []) refs.set(ref.id, { ref, pass: null });
  const seen = new Set<string>();
  for (const rel of listRecordFiles(runDir)) {
    let record: DispatchRecord;
    try {
      record = readRecord(join(runDir, rel));
    } catch {
      continue; // an unreadable record is for `bounce audit` to name, not for resume to fail on
    }
    const id = record.request.id;
    seen.add(id);
    if (record.outcome.status === 'pending') {
      record = { ...record, outcome: { status: 'error', reason: STALE_REASON, graded_at: null, grade: null } };
      io.writeRecord(rel, record);
      changed.push(id);
    }
    const known = refs.get(id);
    if (known) {
      const { ref, pass } = known;
      if (ref.status === record.outcome.status) continue;
      ref.status = record.outcome.status;
      ref.reason = record.outcome.reason;
      ref.duration_ms ??= record.response?.duration_ms ?? null;
      if (ref.usage === null) {
        ref.usage = usageOf(record);
        if (ref.usage) {
          if (pass) addUsage(pass.usage, ref.usage);
          addUsage(m.totals, ref.usage);
        }
      }
      if (!changed.includes(id)) changed.push(id);
      continue;
    }
    const usage = usageOf(record);
    const { kind, index } = record.request.plan_ancestry.attempt;
    const entry: DispatchRef = {
      id,
      kind,
      index,
      stem: stemOf(record),
      status: record.outcome.status,
      reason: record.outcome.reason,
      duration_ms: record.response?.duration_ms ?? null,
      usage,
      record: rel,
    };
    const side = sideOf(record);
    if (side) {
      // The newest record (a crash between it and run.json): after every pass dispatch listed.
      const after = m.pass_records.reduce((n, p) => n + p.dispatches.length, 0);
      m.side_dispatches = [...(m.side_dispatches ?? []), { ...entry, ...side, after }];
      if (usage) addUsage(m.totals, usage);
      m.totals.dispatches += 1;
      if (!changed.includes(id)) changed.push(id);
      continue;
    }
    const pass = passFor(m, record.request.plan_ancestry.pass);
    if (!pass) continue; // a record of no pass in run.json: audit names it
    pass.dispatches.push(entry);
    if (usage) {
      addUsage(pass.usage, usage);
      addUsage(m.totals, usage);
    }
    m.totals.dispatches += 1;
    if (!changed.includes(id)) changed.push(id);
  }
  // A dispatch run.json lists without any record never reached its agent (older runs only).
  for (const [id, { ref, pass }] of refs) {
    if (seen.has(id) || ref.status !== 'pending') continue;
    if (pass) pass.dispatches = pass.dispatches.filter((d) => d !== ref);
    else m.side_dispatches = (m.side_dispatches ?? []).filter((d) => d !== ref);
    m.totals.dispatches -= 1;
    changed.push(id);
  }
  for (const pass of m.pass_records) if (pass.status === 'running') pass.status = 'interrupted';
  return changed;
}
