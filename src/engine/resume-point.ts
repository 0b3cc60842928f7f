/**
 * Resume's redo decision: where a resumed run goes on. It goes on after the newest completed
 * pass whose document is on disk as recorded (after a power cut an unsynced artifact may not
 * be, and then that pass is not done); every pass after that one runs again, from its first
 * dispatch. With no such pass the run starts over from pass 1 on its original. The refusals
 * come before this (src/request/resume-request.ts: tampered folders, changed policy, a changed
 * in-place input), and the records a crash left are squared with run.json first
 * (src/store/reconcile.ts).
 */
import type { PassRecord } from '../store/manifest.js';

type Pass = Pick<PassRecord, 'pass' | 'status' | 'document' | 'document_sha256'>;

/** The pass a resumed run continues after, or null to start from pass 1; `shaOf` reads a run file's sha256 as it is on disk (null: absent). */
export function resumePoint<P extends Pass>(passes: readonly P[], shaOf: (file: string) => string | null): P | null {
  for (let i = passes.length - 1; i >= 0; i--) {
    const p = passes[i] as P;
    if (p.status === 'completed' && p.document && shaOf(p.document) === p.document_sha256) return p;
  }
  return null;
}
