import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRecord } from '../store/dispatch-record.js';
import { recordsDirOf } from '../store/fork-links.js';
import type { DispatchRecord } from '../store/record-schema.js';
import { INPUT_ORIGIN, type NoteOrigin } from '../protocol/ledger.js';
import { mdxForPath, type Note, noteKey, type ScanOptions, scanNotes } from '../protocol/scanner.js';
import type { PassRecord, RunManifest } from '../store/manifest.js';
import type { NoteFate } from '../vocabulary.js';

/** How a run reads its documents, from its run.json: what the runner scanned with. */
export function runReading(m: RunManifest): ScanOptions {
  return { syntax: m.input.syntax, mdx: mdxForPath(m.input.path ?? undefined), markers: m.policy.markers };
}

/** One note of a run and its fate, as the run's records hold it. */
export interface RunNote {
  kind: string;
  text: string;
  raisedBy: NoteOrigin;
  /** The line of the note in the document its raiser produced (the input's for `input`). */
  raisedLine: number;
  /** The pass record (index into pass_records) whose document first held the note; null for the input. */
  raisedIn: number | null;
  /** The finding that raised it (`response.findings[].id` of its pass's record); null for a note of the input. */
  finding: string | null;
  /** `open`: still in the last document; null: resolved in a run made before bounce judged notes. */
  fate: NoteFate | 'open' | null;
  resolvedBy: NoteOrigin | null;
  /** The pass record that resolved it, and the note's line in the document that pass was sent. */
  resolvedIn: number | null;
  resolvedLine: number | null;
  /** The lines of the text the note refers to, in the document the resolving pass was sent. */
  refersTo: [number, number] | null;
}

export interface RunLedger {
  notes: RunNote[];
  counts: { raised: number; acted: number; dismissed: number; open: number; unjudged: number };
}

/** A note as it was raised, still open. */
const raised = (kind: string, text: string, raisedBy: NoteOrigin, raisedLine: number, raisedIn: number | null, finding: string | null = null): RunNote => ({
  kind,
  text,
  raisedBy,
  raisedLine,
  raisedIn,
  finding,
  fate: 'open',
  resolvedBy: null,
  resolvedIn: null,
  resolvedLine: null,
  refersTo: null,
});

/** The record of the dispatch that produced a pass's document, if it can be read (a fork's copied pass: from the original's folder). */
export function keptRecord(runDir: string, p: PassRecord): DispatchRecord | null {
  const dir = recordsDirOf(runDir, p);
  if (!dir) return null;
  for (const ref of [...p.dispatches].reverse()) {
    if (!ref.record || !existsSync(join(dir, ref.record))) continue;
    try {
      const rec = readRecord(join(dir, ref.record));
      if (rec.response?.document?.path === p.document) return rec;
    } catch {
      // An unreadable record is `bounce audit`'s to name; the ledger goes on without it.
    }
  }
  return null;
}

/**
 * Every note of a run with its fate: the input's notes (scanned from the original) and those
 * each ledger pass (ledgerPasses in format.ts) added (its record's findings), each resolved by
 * the pass whose record lists it as resolved (with the fate and raiser bounce recorded), or
 * open at the end: the notes left.
 */
export function runLedger(dir: string, m: RunManifest): RunLedger {
  const open = new Map<string, RunNote[]>();
  const notes: RunNote[] = [];
  const add = (n: RunNote): void => {
    notes.push(n);
    const key = noteKey(n);
    open.set(key, [...(open.get(key) ?? []), n]);
  };
  const original = join(dir, m.original);
  const input: Note[] = existsSync(original) ? scanNotes(readFileSync(original, 'utf8'), runReading(m)) : [];
  for (const n of input) add(raised(n.kind, n.text, INPUT_ORIGIN, n.line, null));
  const followed = new Set(ledgerPasses(m));
  m.pass_records.forEach((p, index) => {
    if (!followed.has(p) || !p.document) return;
    const res = keptRecord(dir, p)?.response;
    if (!res) return;
    const by = { pass: p.pass, agent: p.agent };
    for (const r of res.resolved) {
      const key = noteKey({ kind: r.type.toUpperCase(), text: r.message });
      const found = open.get(key)?.shift();
      // Not raised where the ledger looked (a record it could not read): what the record says.
      const note = found ?? raised(r.type.toUpperCase(), r.message, r.raised_by ?? INPUT_ORIGIN, r.line_range[0], null);
      if (!found) notes.push(note);
      Object.assign(note, {
        raisedBy: r.raised_by ?? note.raisedBy,
        fate: r.fate ?? null,
        resolvedBy: by,
        resolvedIn: index,
        resolvedLine: r.line_range[0],
        refersTo: r.refers_to ?? null,
      });
    }
    for (const f of res.findings) add(raised(f.type.toUpperCase(), f.message, by, f.line_range[0], index, f.id));
  });
  const count = (f: RunNote['fate']): number => notes.filter((n) => n.fate === f).length;
  return { notes, counts: { raised: notes.length, acted: count('acted'), dismissed: count('dismissed'), open: count('open'), unjudged: count(null) } };
}

/**
 * The passes whose documents the ledger reads: the completed ones. A pass that gave up kept
 * no document, so the run's last document, the one `notes_left` counts, the report shows as
 * the last document and a resume goes on from, is the last completed pass's.
 */
export function ledgerPasses<P extends Pick<PassRecord, 'status'>>(m: { pass_records: readonly P[] }): P[] {
  return m.pass_records.filter((p) => p.status === 'completed');
}

/**
 * The run's last document before `final.<ext>`, as a file of its folder: the last completed
 * pass's (ledgerPasses), else the original. `bounce show`, `bounce diff --net` and the report
 * all name this one (src/report/pass-docs.ts, netChange).
 */
export function lastDocument(m: Pick<RunManifest, 'original'> & { pass_records: readonly Pick<PassRecord, 'status' | 'document'>[] }): string {
  return [...ledgerPasses(m)].reverse().find((p) => p.document)?.document ?? m.original;
}

/** The document of a pass's last reply when the pass kept none, and whether bounce refused it (its dispatch was rejected) or never judged it (cut short). */
export interface UnkeptDocument {
  file: string;
  refused: boolean;
}

/**
 * A pass that did not complete still names, in run.json, the document its last reply with one
 * produced: no document of the run's (it is not the pass's, nor the last document), only that
 * reply's. Null for a completed pass and for a pass no reply of which produced a document.
 */
export function unkeptDocument(p: Pick<PassRecord, 'status' | 'document' | 'dispatches'>, ext: string): UnkeptDocument | null {
  if (p.status === 'completed' || !p.document) return null;
  const by = p.dispatches.find((d) => `${d.stem}.${ext}` === p.document);
  return { file: p.document, refused: by ? by.status === 'rejected' : p.status === 'failed' };
}
