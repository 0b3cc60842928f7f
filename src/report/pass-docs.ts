import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PassRecord, RunManifest } from '../store/manifest.js';

/** What one pass changed: the document it was given and the one it produced. */
export interface PassChange {
  record: PassRecord;
  beforeFile: string;
  afterFile: string | null;
  before: string;
  /** Null when the pass produced no document (it failed) or the file is gone. */
  after: string | null;
}

const read = (dir: string, rel: string): string | null => {
  const path = join(dir, rel);
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
};

/** Each pass against the last document before it (the original for pass 1 or after failed passes). */
export function passChanges(dir: string, m: RunManifest): PassChange[] {
  let beforeFile = m.original;
  let before = read(dir, m.original) ?? '';
  return m.pass_records.map((record) => {
    const after = record.document ? read(dir, record.document) : null;
    const change: PassChange = { record, beforeFile, afterFile: record.document, before, after };
    if (record.document && after !== null) {
      beforeFile = record.document;
      before = after;
    }
    return change;
  });
}

/** The whole run at once: the original against the final document, or, when the run did not converge, the last document a pass produced. */
export interface NetChange {
  beforeFile: string;
  before: string;
  afterFile: string;
  /** The final document's text; the original's again when no pass produced a document. */
  after: string | null;
  converged: boolean;
}

export function netChange(dir: string, m: RunManifest): NetChange {
  const before = read(dir, m.original) ?? '';
  const final = m.status === 'converged' ? `final.${m.input.ext}` : null;
  const finalText = final ? read(dir, final) : null;
  if (final && finalText !== null) return { beforeFile: m.original, before, afterFile: final, after: finalText, converged: true };
  // The document `next` names for a run that did not converge: the last any pass produced.
  const last = [...m.pass_records].reverse().find((p) => p.document && read(dir, p.document) !== null);
  const afterFile = last?.document ?? m.original;
  return { beforeFile: m.original, before, afterFile, after: read(dir, afterFile), converged: m.status === 'converged' };
}
