import type { ResolvedFate } from '../store/dispatch-record.js';
import { judgeResolved, type Judged, ledgerReading, NoteOrigins } from '../protocol/ledger.js';
import { diffNotes, type Note } from '../protocol/scanner.js';
import type { ManifestView } from '../store/recorder.js';
import type { RunPlan } from './plan.js';

/** What the ledger says of one reply read as a document: each resolved note's fate and origin, and the counts. */
export interface PassLedger {
  judged: Judged[];
  /** In the order of `resolved`, for the dispatch record. */
  fates: ResolvedFate[];
  acted: number;
  dismissed: number;
}

/**
 * Judges the notes a reply resolved against the document the pass was sent (src/protocol/ledger.ts)
 * and names who raised each: computed by the runner from the two documents, never asked of the agent.
 */
export function passLedger(
  plan: RunPlan,
  origins: NoteOrigins,
  sent: { text: string; notes: readonly Note[] },
  accepted: { text: string; notes: readonly Note[] },
  resolved: readonly Note[],
): PassLedger {
  const reading = ledgerReading(plan.input.syntax);
  const judged = judgeResolved({ ...sent, ...reading }, resolved, { ...accepted, ...reading });
  const raisedBy = origins.originsOf(resolved);
  const fates = judged.map((j, i) => ({ fate: j.fate, raisedBy: raisedBy[i]!, refersTo: j.refersTo }));
  const acted = judged.filter((j) => j.fate === 'acted').length;
  return { judged, fates, acted, dismissed: judged.length - acted };
}

/**
 * Who raised each note open after the run's completed passes up to `last`, replayed from the
 * documents they produced: what a resumed run starts from. `read` gives a run file's text.
 */
export function replayOrigins(m: ManifestView, last: number, scan: (text: string) => Note[], read: (file: string) => string): NoteOrigins {
  let notes = scan(read(m.original));
  const origins = new NoteOrigins(notes);
  for (const p of m.pass_records) {
    if (p.pass > last || p.status !== 'completed' || !p.document) continue;
    const next = scan(read(p.document));
    const { added, resolved } = diffNotes(notes, next);
    origins.advance(resolved, added, { pass: p.pass, agent: p.agent });
    notes = next;
  }
  return origins;
}

/** The reason a final pass's dismissals are repaired or warned about: notes by line and kind only (see noteLines in final-pass.ts). */
export function dismissedContested(ledger: PassLedger): Note[] {
  return ledger.judged.filter((j) => j.fate === 'dismissed' && j.note.kind === 'CONTESTED').map((j) => j.note);
}
