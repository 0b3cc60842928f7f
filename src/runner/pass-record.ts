import type { HostError } from '../adapters/host.js';
import type { Note } from '../protocol/scanner.js';
import { writeManifest, type PassRecord } from '../store/manifest.js';
import { roleForPass } from './plan.js';
import { countWords } from './reply.js';
import { BREAKER_THRESHOLD, emptyTotals, type RunState } from './state.js';

/** Opens the run.json record of a pass. A pass left half-done keeps its record; a rerun gets a new one. */
export function openPassRecord(state: RunState, pass: number, notesBefore: number): PassRecord {
  const role = roleForPass(pass);
  const rec: PassRecord = {
    pass,
    role,
    agent: state.plan.agents[role].spec,
    final: pass === state.plan.passes,
    status: 'running',
    notes_before: notesBefore,
    notes_after: null,
    added: null,
    resolved: null,
    misplaced_after: null,
    words_before: countWords(state.current.text),
    words_after: null,
    document: null,
    document_sha256: null,
    usage: emptyTotals(),
    duration_ms: null,
    retries: 0,
    repairs: 0,
    fixes: [],
    errors: [],
    dispatches: [],
    started_at: new Date().toISOString(),
    finished_at: null,
  };
  state.manifest.pass_records.push(rec);
  writeManifest(state.folder.dir, state.manifest);
  return rec;
}

/** Counts a failure toward the breaker; true when it opened. */
export function countFailure(state: RunState, error: HostError): boolean {
  const b = state.manifest.breaker;
  b.consecutive_failures += 1;
  b.last_error = `${error.type}: ${error.message}`.slice(0, 500);
  if (b.consecutive_failures >= BREAKER_THRESHOLD) b.open = true;
  return b.open;
}

/** The first few notes, for a repair reason or a log line. */
export function summariseNotes(notes: Note[]): string {
  const shown = notes.slice(0, 3).map((n) => `line ${n.line}: ${n.text.length > 80 ? `${n.text.slice(0, 79)}…` : n.text}`);
  return shown.join('; ') + (notes.length > 3 ? `; and ${notes.length - 3} more` : '');
}
