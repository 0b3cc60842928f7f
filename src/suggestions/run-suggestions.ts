/**
 * `bounce suggest`: a converged run's net change (its original against final.<ext>) as
 * suggestions on the original, each naming the notes of the run that asked for it, from the
 * run's ledger (src/audit/run-notes.ts).
 */
import { type RunNote, runLedger } from '../audit/run-notes.js';
import { originalLines } from '../defects/line-map.js';
import { EXIT, BounceError } from '../errors.js';
import type { NoteOrigin } from '../protocol/ledger.js';
import { netChange, passChanges } from '../report/pass-docs.js';
import type { RunManifest } from '../store/manifest.js';
import { type LineHunk, lineHunks, linesWithBreaks } from './hunks.js';

/** A note of the run that asked for a change, and the dispatch that resolved it. */
export interface Cause {
  note: RunNote;
  /** The id of the dispatch whose reply resolved the note. */
  dispatch: string | null;
  /** The pass that resolved it (its number). */
  pass: number;
}

export interface RunSuggestions {
  runId: string;
  /** The original's lines, each with its line break. */
  original: string[];
  final: string;
  hunks: { hunk: LineHunk; causes: Cause[] }[];
}

/** The suggestions of a converged run; any other run is an error (exit 1) naming its status. */
export function runSuggestions(dir: string, m: RunManifest): RunSuggestions {
  const net = netChange(dir, m);
  if (m.status !== 'converged' || !net.converged || net.after === null)
    throw new BounceError(
      m.status === 'converged'
        ? `run ${m.run_id} has no final.${m.input.ext} in its folder`
        : `run ${m.run_id} is ${m.status}: only a converged run has a final document to suggest`,
      {
        exitCode: EXIT.notConverged,
        code: 'input',
        hint:
          m.status === 'converged'
            ? `run bounce audit ${m.run_id}`
            : `take it further (bounce resume ${m.run_id}) or see its last document with bounce diff ${m.run_id} --net`,
      },
    );
  const notes = noteRegions(dir, m, net.before);
  const hunks = lineHunks(net.before, net.after).map((hunk) => {
    // The original's lines the hunk replaces (1-based), or the two it goes between.
    const [from, to] = hunk.deleted > 0 ? [hunk.start + 1, hunk.start + hunk.deleted] : [hunk.start, hunk.start + 1];
    const causes = notes.filter((n) => n.from <= to && n.to >= from).map((n) => n.cause);
    causes.sort((a, b) => Number(b.note.fate === 'acted') - Number(a.note.fate === 'acted'));
    return { hunk, causes };
  });
  return { runId: m.run_id, original: linesWithBreaks(net.before), final: net.after, hunks };
}

/** Each resolved note and the lines of the original it stood by and referred to. */
function noteRegions(dir: string, m: RunManifest, original: string): { from: number; to: number; cause: Cause }[] {
  const changes = passChanges(dir, m);
  const maps = new Map<number, (line: number) => number>();
  const mapOf = (index: number): ((line: number) => number) => {
    let map = maps.get(index);
    if (!map) {
      map = originalLines(original, changes[index]?.before ?? original);
      maps.set(index, map);
    }
    return map;
  };
  const out: { from: number; to: number; cause: Cause }[] = [];
  for (const note of runLedger(dir, m).notes) {
    if (note.resolvedIn === null || note.fate === 'open' || note.fate === null) continue;
    const p = m.pass_records[note.resolvedIn]!;
    const map = mapOf(note.resolvedIn);
    const lines = [note.resolvedLine, ...(note.refersTo ?? [])].filter((l): l is number => l !== null).map(map);
    if (lines.length === 0) continue;
    const dispatch = [...p.dispatches].reverse().find((d) => d.status === 'completed')?.id ?? null;
    out.push({ from: Math.min(...lines), to: Math.max(...lines), cause: { note, dispatch, pass: p.pass } });
  }
  return out;
}

const origin = (o: NoteOrigin | null): string => (o === null ? 'unknown' : o.pass === null ? 'the input document' : `${o.agent} (pass ${o.pass})`);

/** What a suggestion says: the run, then each note that asked for it (kind, text, who raised and resolved it, how, the dispatch). */
export function suggestionMessage(runId: string, causes: readonly Cause[]): string {
  if (causes.length === 0) return `bounce run ${runId}: a change no note of the run asked for`;
  const lines = causes.map((c) => {
    const how = c.note.fate === 'acted' ? 'acted on' : 'dismissed';
    const by = `resolved (${how}) by ${origin(c.note.resolvedBy)}${c.dispatch ? `, dispatch ${c.dispatch}` : ''}`;
    return `${c.note.text} (raised by ${origin(c.note.raisedBy)}; ${by})`;
  });
  return `bounce run ${runId}: ${lines.join('\n')}`;
}
