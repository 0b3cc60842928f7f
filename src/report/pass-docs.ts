import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastDocument, type UnkeptDocument, unkeptDocument } from '../audit/run-notes.js';
import type { PassRecord, RunManifest } from '../store/manifest.js';

/** What one pass changed: the document it was given and the one it produced. */
export interface PassChange {
  record: PassRecord;
  beforeFile: string;
  /** The document the pass kept: a completed pass's; null for a pass that did not complete. */
  afterFile: string | null;
  before: string;
  /** Null when the pass kept no document (it did not complete) or the file is gone. */
  after: string | null;
  /** A pass that did not complete: the document of its last reply, refused (or cut short), which is none of the run's. */
  unkept: UnkeptDocument | null;
}

const read = (dir: string, rel: string): string | null => {
  const path = join(dir, rel);
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
};

/**
 * Each pass against the last document kept before it (the original for pass 1 or after passes
 * that kept none): the document the pass was sent. Only a completed pass keeps a document.
 */
export function passChanges(dir: string, m: RunManifest): PassChange[] {
  let beforeFile = m.original;
  let before = read(dir, m.original) ?? '';
  return m.pass_records.map((record) => {
    const kept = record.status === 'completed' ? record.document : null;
    const after = kept ? read(dir, kept) : null;
    const change: PassChange = { record, beforeFile, afterFile: kept, before, after, unkept: unkeptDocument(record, m.input.ext) };
    if (kept && after !== null) {
      beforeFile = kept;
      before = after;
    }
    return change;
  });
}

/** The whole run at once: the original against the final document, or, when the run did not converge, its last document (lastDocument). */
export interface NetChange {
  beforeFile: string;
  before: string;
  afterFile: string;
  /** The text of `afterFile`; null when it is missing from the run folder. */
  after: string | null;
  converged: boolean;
}

export function netChange(dir: string, m: RunManifest): NetChange {
  const before = read(dir, m.original) ?? '';
  const final = m.status === 'converged' ? `final.${m.input.ext}` : null;
  const finalText = final ? read(dir, final) : null;
  if (final && finalText !== null) return { beforeFile: m.original, before, afterFile: final, after: finalText, converged: true };
  // The document `next:` names and a resume goes on from: the last completed pass's. A refused reply is none of the run's.
  const afterFile = lastDocument(m);
  return { beforeFile: m.original, before, afterFile, after: read(dir, afterFile), converged: m.status === 'converged' };
}
