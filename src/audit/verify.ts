import { existsSync, readFileSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { judgeResolved, ledgerReading, NoteOrigins } from '../protocol/ledger.js';
import { diffNotes, scanNotes } from '../protocol/scanner.js';
import { runReading } from './run-notes.js';
import { dispatchesInWriteOrder, readManifest, type DispatchRef, type PassRecord, type RunManifest } from '../store/manifest.js';
import { sha256 } from '../store/hash.js';
import { manifestProblem } from '../store/resolve-run.js';
import { cutShortExtension } from '../store/reconcile.js';
import { combineCostSources } from '../prices.js';
import { checkChain, type ChainLink } from '../store/binding.js';
import { listRecordFiles, readRecord, recordAnchor, utcDate } from '../store/dispatch-record.js';
import type { DispatchRecord } from '../store/record-schema.js';
import { readLinkedRecords } from './copied-passes.js';
import { plural } from '../plural.js';

export interface AuditProblem {
  message: string;
  /** The file the problem is in, relative to the run folder when it is inside it. */
  file: string;
}

export interface AuditResult {
  runId: string | null;
  records: number;
  problems: AuditProblem[];
  /** Why the run's records do not bind it (a run made by an older bounce); null when they do. */
  unbound: string | null;
}

export interface VerifyOptions {
  /**
   * Verify a run about to be resumed: what a crash can leave (a record newer than run.json, a
   * dispatch still pending) is what resume reconciles, not a problem; anything else is.
   */
  resuming?: boolean;
}

interface Ctx {
  runDir: string;
  problems: AuditProblem[];
  hashes: Map<string, string | null>;
  resuming: boolean;
}

type Found = { rel: string; rec: DispatchRecord };

const problem = (ctx: Ctx, message: string, file: string): void => void ctx.problems.push({ message, file });

function hashOf(ctx: Ctx, rel: string): string | null {
  if (!ctx.hashes.has(rel)) {
    const path = isAbsolute(rel) ? rel : join(ctx.runDir, rel);
    ctx.hashes.set(rel, existsSync(path) ? sha256(readFileSync(path)) : null);
  }
  return ctx.hashes.get(rel) ?? null;
}

/** The sha256 a record is anchored by: of its bytes, or for a graded one of its text as its run wrote it (src/store/dispatch-record.ts). */
function anchorOf(ctx: Ctx, found: Found): string | null {
  const bytes = hashOf(ctx, found.rel);
  if (bytes === null || found.rec.outcome.grade === null) return bytes;
  return recordAnchor(readFileSync(join(ctx.runDir, found.rel)), found.rec);
}

/** Names a missing file or a sha that does not match it; `where` says who cites it. */
function checkSha(ctx: Ctx, rel: string, expected: string | null, where: string, source: string): void {
  const actual = hashOf(ctx, rel);
  if (actual === null) problem(ctx, `${where} names ${rel}, which does not exist`, source);
  else if (expected === null) problem(ctx, `${where} has no sha256 for ${rel}`, source);
  else if (actual !== expected) problem(ctx, `sha256 of ${rel} does not match ${where}`, source);
}

function checkRecord(ctx: Ctx, rel: string, rec: DispatchRecord): void {
  const { request, response } = rec;
  if (basename(rel, '.yaml') !== request.id) problem(ctx, `request.id ${request.id} does not match the file name`, rel);
  const day = rel.split('/').at(-2);
  if (day !== utcDate(new Date(request.issued_at))) problem(ctx, `date folder ${day} does not match issued_at ${request.issued_at}`, rel);
  for (const f of request.context.files) checkSha(ctx, f.path, f.sha256, `request.context.files (${f.purpose})`, rel);
  if (!response) return;
  if (response.document) checkSha(ctx, response.document.path, response.document.sha256, 'response.document', rel);
  for (const a of response.artifacts) checkSha(ctx, a.path, a.sha256, 'response.artifacts', rel);
  for (const f of response.findings) for (const e of f.citations.evidence) checkSha(ctx, e.file, e.sha256, `finding ${f.id}`, rel);
  for (const r of response.resolved) for (const e of r.citations.evidence) checkSha(ctx, e.file, e.sha256, 'a resolved note', rel);
  for (const c of response.checks ?? []) checkSha(ctx, c.output.path, c.output.sha256, `response.checks (\`${c.command}\`)`, rel);
  checkGradeTimes(ctx, rel, rec);
}

/** A grade comes after the reply it grades, and its history is in the order it was given (the shape itself is the schema's). */
function checkGradeTimes(ctx: Ctx, rel: string, rec: DispatchRecord): void {
  const { grade, graded_at } = rec.outcome;
  if (!grade || !graded_at || !rec.response) return;
  const times = [...grade.history.map((h) => h.graded_at), graded_at].map((t) => Date.parse(t));
  if (times[0]! < Date.parse(rec.response.completed_at)) problem(ctx, `the grade is dated before the reply it grades (${rec.response.completed_at})`, rel);
  if (times.some((t, i) => i > 0 && t < times[i - 1]!)) problem(ctx, 'grade.history is not in the order the grades were given', rel);
}

/** Only the findings of a reply the run kept are graded (docs/grading.md): a grade on any other record is a hand edit. */
function checkGradedRecords(ctx: Ctx, m: RunManifest, own: Map<string, Found>): void {
  const kept = new Set(m.pass_records.filter((p) => p.status === 'completed' && !p.copied_from).map((p) => producerOf(p, own)?.rel));
  for (const { rel, rec } of own.values())
    if (rec.outcome.grade && !kept.has(rel)) problem(ctx, 'the record is graded, but its reply is not one the run kept', rel);
}

/**
 * The records in the order they were written: as run.json lists them, then any it does not
 * list yet (a crash between a record and run.json leaves one such record, the newest).
 */
function chainOf(ctx: Ctx, m: RunManifest, records: Map<string, Found>): { chain: ChainLink[]; unlisted: Found[] } {
  const listed = dispatchesInWriteOrder(m)
    .map((d) => records.get(d.id))
    .filter((f): f is Found => f !== undefined);
  const ids = new Set(listed.map((f) => f.rec.request.id));
  const unlisted = [...records.values()].filter((f) => !ids.has(f.rec.request.id));
  const chain = [...listed, ...unlisted].map((f) => ({ ...f, sha256: anchorOf(ctx, f) ?? '' }));
  return { chain, unlisted };
}

/** Checks run.json against the records; returns why the run is unbound, if it is. */
function checkManifest(ctx: Ctx, m: RunManifest, own: Map<string, Found>, files: string[]): string | null {
  const refs = new Map<string, { ref: DispatchRef; pass: number | null }>();
  // A fork's copied passes list dispatches whose records the original holds: checked there, not counted here.
  for (const p of m.pass_records) if (!p.copied_from) for (const ref of p.dispatches) refs.set(ref.id, { ref, pass: p.pass });
  // A side dispatch (a judge's, a grader's) belongs to no pass: pass null.
  for (const ref of m.side_dispatches ?? []) refs.set(ref.id, { ref, pass: null });
  const linked = readLinkedRecords(ctx.runDir, m, (message, file) => problem(ctx, message, file));
  // What the documents, fates and origins are checked against: the run's own records and the linked ones.
  const records = new Map<string, Found>([...linked, ...own]);
  const { chain, unlisted } = chainOf(ctx, m, own);
  const bound = checkChain(ctx.runDir, m, chain);
  for (const p of bound.problems) problem(ctx, p.message, p.file);
  // What a crash leaves for resume to reconcile: the newest record, written just before the run.json that would list it.
  const crashTail = ctx.resuming && unlisted.length === 1 && chain.at(-1)?.rel === unlisted[0]!.rel ? unlisted[0]!.rec.request.id : null;
  if (m.totals.dispatches !== refs.size)
    problem(ctx, `totals.dispatches is ${m.totals.dispatches} but pass_records list ${plural(refs.size, 'dispatch', 'dispatches')}`, 'run.json');
  if (files.length !== refs.size + (crashTail ? 1 : 0))
    problem(
      ctx,
      `run.json lists ${plural(refs.size, 'dispatch', 'dispatches')} but ${files.length === 1 ? '1 record was' : `${files.length} records were`} found`,
      'run.json',
    );
  const unreadable = new Set(files.map((f) => basename(f, '.yaml')));
  for (const [id, { ref, pass }] of refs) {
    const found = records.get(id);
    if (!found) {
      if (unreadable.has(id)) continue; // already named as an invalid record
      // A pending dispatch with no record never reached its agent (runs of older bounce); resume drops it.
      if (ctx.resuming && ref.status === 'pending') continue;
      problem(ctx, `dispatch ${id} (${pass === null ? 'a side dispatch' : `pass ${pass}`}) has no record`, ref.record ?? 'run.json');
      continue;
    }
    if (ref.record !== null && ref.record !== found.rel) problem(ctx, `run.json names record ${ref.record} for dispatch ${id}`, found.rel);
    // run.json anchors each record as last written: a record edited since no longer matches (a crash may leave a pending entry behind).
    if (ref.record_sha256 !== undefined && ref.record_sha256 !== anchorOf(ctx, found) && !(ctx.resuming && ref.status === 'pending'))
      problem(ctx, `the record is not the one run.json's record_sha256 anchors: it was changed after it was written`, found.rel);
    if (found.rec.outcome.status === 'pending' && m.status !== 'running' && !ctx.resuming)
      problem(ctx, `dispatch is still pending in a run that is ${m.status}`, found.rel);
    // A record is written before the run.json that catches up with it: only a pending entry may lag behind.
    const lagging = ctx.resuming && ref.status === 'pending';
    if (ref.status !== found.rec.outcome.status && !lagging)
      problem(ctx, `outcome.status ${found.rec.outcome.status} differs from run.json's ${ref.status}`, found.rel);
    if (pass !== null && found.rec.request.plan_ancestry.pass !== pass)
      problem(ctx, `plan_ancestry.pass ${found.rec.request.plan_ancestry.pass} differs from run.json's pass ${pass}`, found.rel);
    if (found.rec.request.plan_ancestry.run_id !== m.run_id)
      problem(ctx, `plan_ancestry.run_id ${found.rec.request.plan_ancestry.run_id} is not this run`, found.rel);
    checkCost(ctx, ref, found);
  }
  checkCostTotals(ctx, m);
  for (const [id, { rel }] of own) if (!refs.has(id) && id !== crashTail) problem(ctx, `record ${id} is not listed in run.json`, rel);

  for (const p of m.pass_records) {
    if (p.document && p.document_sha256) checkSha(ctx, p.document, p.document_sha256, `run.json pass ${p.pass}`, 'run.json');
    const produced = p.document ? producerOf(p, records) : undefined;
    if (produced && p.document_sha256 !== produced.rec.response!.document!.sha256)
      problem(ctx, `run.json's document_sha256 of pass ${p.pass} is not the sha256 its record gives ${p.document}`, 'run.json');
    if (!p.document || p.added === null || p.resolved === null) continue;
    // The dispatch that produced the pass's document (kept, or rejected on the final pass) carries its findings.
    const kept = produced;
    if (!kept) {
      problem(ctx, `no dispatch record produced pass ${p.pass}'s document ${p.document}`, 'run.json');
      continue;
    }
    const res = kept.rec.response!;
    if (res.findings.length !== p.added)
      problem(ctx, `${plural(res.findings.length, 'finding')} but run.json says pass ${p.pass} added ${plural(p.added, 'note')}`, kept.rel);
    if (res.resolved.length !== p.resolved)
      problem(ctx, `${res.resolved.length} resolved notes but run.json says pass ${p.pass} resolved ${p.resolved}`, kept.rel);
    checkFates(ctx, m, p, kept);
  }
  checkOrigins(ctx, m, records);
  checkFinal(ctx, m, records);
  checkGradedRecords(ctx, m, own);
  checkSha(ctx, m.original, m.input.sha256, 'run.json input.sha256', 'run.json');
  for (const c of m.context) checkSha(ctx, c.file, c.sha256, `run.json context (${c.source})`, 'run.json');
  if (m.output.written && m.output.path && m.output.target !== 'stdout') checkSha(ctx, m.output.path, m.output.sha256, 'run.json output.sha256', 'run.json');
  return bound.unbound;
}

/** The dispatch whose reply became the pass's document (kept, or rejected on the final pass). */
function producerOf(p: PassRecord, records: Map<string, Found>): Found | undefined {
  return [...p.dispatches]
    .reverse()
    .map((r) => records.get(r.id))
    .find((r) => r?.rec.response?.document?.path === p.document);
}

/**
 * A converged run's final.<ext> is the document its last completed pass produced, as that
 * pass's record gives it (or the original, when no pass completed). The output written is
 * checked against output.sha256 only: it holds the document before key values are blanked
 * out of the run's files.
 */
function checkFinal(ctx: Ctx, m: RunManifest, records: Map<string, Found>): void {
  if (m.status !== 'converged') return;
  const last = [...m.pass_records].reverse().find((p) => p.status === 'completed' && p.document);
  const expected = last ? (producerOf(last, records)?.rec.response?.document?.sha256 ?? last.document_sha256) : m.input.sha256;
  const name = `final.${m.input.ext}`;
  const actual = hashOf(ctx, name);
  const from = last ? `the document of pass ${last.pass}` : 'the original';
  if (actual === null) problem(ctx, `the run converged but ${name} does not exist`, 'run.json');
  else if (actual !== expected) problem(ctx, `${name} is not ${from}, which the run converged on`, name);
  if (last) checkFinalChecks(ctx, m, last, producerOf(last, records));
}

/**
 * A converged run's final document passed every check of its policy (docs/checks.md): the
 * record of the reply it came from lists each check, in order, and each passed.
 */
function checkFinalChecks(ctx: Ctx, m: RunManifest, last: PassRecord, producer: Found | undefined): void {
  const wanted = m.policy.checks ?? [];
  if (wanted.length === 0 || !producer) return;
  const ran = producer.rec.response?.checks ?? [];
  for (const check of wanted) {
    const run = ran.find((c) => c.command === check.command);
    if (!run) problem(ctx, `the run converged, but the document of pass ${last.pass} was never run through check \`${check.command}\``, producer.rel);
    else if (run.status !== 'passed')
      problem(ctx, `the run converged, but the document of pass ${last.pass} did not pass check \`${check.command}\` (${run.status})`, producer.rel);
  }
}

/**
 * The ledger of a pass: its record's fates add up to run.json's `acted` and `dismissed`, and
 * are what the ledger finds again in the two documents (src/protocol/ledger.ts).
 */
function checkFates(ctx: Ctx, m: RunManifest, p: PassRecord, kept: Found): void {
  const res = kept.rec.response!;
  if (p.acted === null || p.dismissed === null) return; // a run made before bounce judged notes
  const fates = res.resolved.map((r) => r.fate);
  if (fates.some((f) => f === undefined)) return problem(ctx, `run.json counts pass ${p.pass}'s fates but its resolved notes carry none`, kept.rel);
  const acted = fates.filter((f) => f === 'acted').length;
  if (acted !== p.acted || fates.length - acted !== p.dismissed)
    problem(
      ctx,
      `${acted} acted and ${fates.length - acted} dismissed notes but run.json says pass ${p.pass} acted on ${p.acted} and dismissed ${p.dismissed}`,
      kept.rel,
    );
  const sentFile = res.resolved[0]?.citations.evidence[0]?.file;
  if (!sentFile || !res.document) return;
  const read = (rel: string): string | null => (existsSync(join(ctx.runDir, rel)) ? readFileSync(join(ctx.runDir, rel), 'utf8') : null);
  const [sent, accepted] = [read(sentFile), read(res.document.path)];
  if (sent === null || accepted === null) return; // a missing file is named by the sha checks
  const reading = runReading(m);
  const as = ledgerReading(m.input.syntax);
  const before = { text: sent, notes: scanNotes(sent, reading), ...as };
  const after = { text: accepted, notes: scanNotes(accepted, reading), ...as };
  const again = judgeResolved(before, diffNotes(before.notes, after.notes).resolved, after).map((j) => j.fate);
  if (again.join() !== fates.join())
    problem(ctx, `the resolved notes' fates (${fates.join(', ')}) are not what the documents show (${again.join(', ')})`, kept.rel);
}

/** Who raised each resolved note: the records agree with the notes each completed pass added, followed from the input. */
function checkOrigins(ctx: Ctx, m: RunManifest, records: Map<string, Found>): void {
  const original = join(ctx.runDir, m.original);
  if (!existsSync(original)) return;
  const origins = new NoteOrigins(scanNotes(readFileSync(original, 'utf8'), runReading(m)));
  for (const p of m.pass_records) {
    if (p.status !== 'completed' || !p.document) continue;
    const kept = producerOf(p, records);
    if (!kept) return; // named above
    const res = kept.rec.response!;
    const asNote = (type: string, message: string) => ({ kind: type.toUpperCase(), text: message });
    const resolved = res.resolved.map((r) => asNote(r.type, r.message));
    const expected = origins.originsOf(resolved);
    res.resolved.forEach((r, i) => {
      const want = expected[i]!;
      if (r.raised_by && (r.raised_by.pass !== want.pass || r.raised_by.agent !== want.agent))
        problem(ctx, `a resolved note's raised_by (pass ${r.raised_by.pass ?? 'input'}) is not the pass that raised it (${want.pass ?? 'input'})`, kept.rel);
    });
    origins.advance(
      resolved,
      res.findings.map((f) => asNote(f.type, f.message)),
      { pass: p.pass, agent: p.agent },
    );
  }
}

const sameUsd = (a: number | null, b: number | null): boolean => (a === null || b === null ? a === b : Math.abs(a - b) <= 1e-9 * Math.max(1, a, b));

/** A dispatch's cost in run.json is its record's. */
function checkCost(ctx: Ctx, ref: DispatchRef, found: Found): void {
  const meta = found.rec.response?.metadata;
  if (!meta || !ref.usage) return;
  if (!sameUsd(ref.usage.cost_usd, meta.cost_usd)) problem(ctx, `metadata.cost_usd ${meta.cost_usd} differs from run.json's ${ref.usage.cost_usd}`, found.rel);
  if (ref.usage.cost_source !== undefined && meta.cost_source !== null && ref.usage.cost_source !== meta.cost_source)
    problem(ctx, `metadata.cost_source ${meta.cost_source} differs from run.json's ${ref.usage.cost_source}`, found.rel);
}

/** Each pass's and the run's cost is the sum of its dispatches', and its source the least certain of theirs. */
function checkCostTotals(ctx: Ctx, m: RunManifest): void {
  if (m.totals.cost_source === undefined) return; // a run made before costs had a source
  const sum = (refs: readonly DispatchRef[]): { usd: number | null; source: RunManifest['totals']['cost_source'] } => {
    let usd: number | null = null;
    let source: RunManifest['totals']['cost_source'] = null;
    for (const r of refs) {
      if (!r.usage) continue;
      if (r.usage.cost_usd !== null) usd = (usd ?? 0) + r.usage.cost_usd;
      source = combineCostSources(source, r.usage.cost_source);
    }
    return { usd, source };
  };
  for (const p of m.pass_records) {
    const s = sum(p.dispatches);
    if (!sameUsd(s.usd, p.usage.cost_usd) || s.source !== p.usage.cost_source)
      problem(ctx, `pass ${p.pass}'s cost (${p.usage.cost_usd}, ${p.usage.cost_source}) is not the sum of its dispatches' (${s.usd}, ${s.source})`, 'run.json');
  }
  // The totals are what the run spent itself: a fork's copied passes were paid for by the original.
  const all = sum([...m.pass_records.filter((p) => !p.copied_from).flatMap((p) => p.dispatches), ...(m.side_dispatches ?? [])]);
  if (!sameUsd(all.usd, m.totals.cost_usd) || all.source !== m.totals.cost_source)
    problem(ctx, `totals cost (${m.totals.cost_usd}, ${m.totals.cost_source}) is not the sum of the dispatches' (${all.usd}, ${all.source})`, 'run.json');
}

/**
 * Checks one run folder: records against the schema, shas against artifacts, counts against
 * run.json, and the chain that binds them (src/store/binding.ts). `bounce audit` and
 * `bounce resume` (with `resuming`) both call this.
 */
export function verifyRun(runDir: string, opts: VerifyOptions = {}): AuditResult {
  const ctx: Ctx = { runDir, problems: [], hashes: new Map(), resuming: opts.resuming ?? false };
  let manifest: RunManifest | null = null;
  try {
    manifest = readManifest(runDir);
  } catch (err) {
    problem(ctx, manifestProblem(runDir, err), 'run.json');
  }
  const records = new Map<string, Found>();
  // Resume removes the record of an extension a crash cut short before run.json took it on: not the folder's to answer for.
  const cut = ctx.resuming && manifest ? cutShortExtension(runDir, manifest) : null;
  const files = listRecordFiles(runDir).filter((rel) => rel !== cut);
  for (const rel of files) {
    let rec: DispatchRecord;
    try {
      rec = readRecord(join(runDir, rel));
    } catch (err) {
      problem(ctx, (err instanceof Error ? err.message : String(err)).replace(`${join(runDir, rel)}: `, ''), rel);
      continue;
    }
    if (records.has(rec.request.id)) problem(ctx, `dispatch id ${rec.request.id} has more than one record`, rel);
    records.set(rec.request.id, { rel, rec });
    checkRecord(ctx, rel, rec);
  }
  const unbound = manifest ? checkManifest(ctx, manifest, records, files) : null;
  return { runId: manifest?.run_id ?? basename(runDir), records: files.length, problems: ctx.problems, unbound };
}
