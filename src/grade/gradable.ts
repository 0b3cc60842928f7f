import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keptRecord, ledgerPasses, type RunNote, runLedger } from '../audit/run-notes.js';
import { recordPath } from '../store/dispatch-record.js';
import type { RunManifest } from '../store/manifest.js';
import type { DispatchRecord, Finding } from '../store/record-schema.js';
import type { GradeVerdict, NoteFate, Role } from '../vocabulary.js';

/** Lines of the document shown above a note: the text a note refers to is the paragraph above it. */
const LINES_ABOVE = 4;

/**
 * One finding `bounce grade` asks about: a note a pass added to the document the run kept
 * (the findings of the record that produced a completed pass's document), with where it
 * stands, the lines around it, and what the run did to it afterwards (the ledger).
 */
export interface GradableFinding {
  id: string;
  /** The record that holds it, run-folder-relative. */
  record: string;
  pass: number;
  role: Role;
  agent: string;
  kind: string;
  message: string;
  document: string;
  lineRange: [number, number];
  /** The note and the lines above it in the document its pass produced. */
  passage: { line: number; text: string }[];
  fate: NoteFate | 'open' | null;
  /** What the run did to the note after it was raised, in words. */
  next: string;
}

export interface GradableRun {
  dir: string;
  manifest: RunManifest;
  findings: GradableFinding[];
  /** Each record that holds gradable findings, by its run-folder-relative path, as read. */
  records: Map<string, DispatchRecord>;
}

/** The record's path in its run folder. */
export const recordRel = (rec: DispatchRecord): string => recordPath(rec.request.id, new Date(rec.request.issued_at));

/** What the run did to a note, from the ledger: acted on, dismissed, left open, or resolved before notes were judged. */
export function nextOf(note: RunNote | undefined, m: RunManifest): string {
  if (!note || note.fate === 'open') return "no pass resolved it: it is still in the run's last document";
  const by = note.resolvedBy;
  const resolver = note.resolvedIn !== null ? m.pass_records[note.resolvedIn] : undefined;
  const who = by ? `pass ${by.pass} (${resolver?.role ?? 'agent'} ${by.agent})` : 'a later pass';
  if (note.fate === 'acted') {
    const lines = note.refersTo ? ` (lines ${note.refersTo[0]}-${note.refersTo[1]} of the document it was sent)` : '';
    return `${who} acted on it: the text it refers to${lines} changed`;
  }
  if (note.fate === 'dismissed') return `${who} dismissed it: deleted the note and left the text it refers to as it was`;
  return `${who} resolved it (the run was made before bounce judged how notes were resolved)`;
}

function passageOf(dir: string, f: Finding, document: string): GradableFinding['passage'] {
  const path = join(dir, document);
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8').split(/\r?\n/);
  const [from, to] = f.line_range;
  const first = Math.max(1, from - LINES_ABOVE);
  const last = Math.min(lines.length, Math.max(from, to));
  const out: GradableFinding['passage'] = [];
  for (let n = first; n <= last; n++) out.push({ line: n, text: lines[n - 1] ?? '' });
  return out;
}

/**
 * The findings of a run that can be graded, in the order the run raised them: those of each
 * completed pass's kept record (its reply became the pass's document). The findings of a reply
 * the run did not keep are not graded (no pass ever read those notes), nor are a fork's copied
 * passes (they are graded in the run they came from).
 */
export function gradableRun(dir: string, m: RunManifest): GradableRun {
  const ledger = runLedger(dir, m);
  const byFinding = new Map(ledger.notes.filter((n) => n.finding !== null).map((n) => [n.finding as string, n]));
  const findings: GradableFinding[] = [];
  const records = new Map<string, DispatchRecord>();
  for (const p of ledgerPasses(m)) {
    if (p.copied_from || !p.document) continue;
    const rec = keptRecord(dir, p);
    const res = rec?.response;
    if (!rec || !res?.document || res.findings.length === 0) continue;
    const rel = recordRel(rec);
    records.set(rel, rec);
    for (const f of res.findings) {
      const note = byFinding.get(f.id);
      findings.push({
        id: f.id,
        record: rel,
        pass: p.pass,
        role: p.role,
        agent: p.agent,
        kind: f.type.toUpperCase(),
        message: f.message,
        document: res.document.path,
        lineRange: f.line_range,
        passage: passageOf(dir, f, res.document.path),
        fate: note?.fate ?? 'open',
        next: nextOf(note, m),
      });
    }
  }
  return { dir, manifest: m, findings, records };
}

/** The verdict a record's current grade gives a finding, if any. */
export function currentVerdict(rec: DispatchRecord | undefined, finding: string): GradeVerdict | null {
  return rec?.outcome.grade?.verdicts.find((v) => v.finding === finding)?.verdict ?? null;
}
