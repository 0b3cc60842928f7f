import { type RunNote, runLedger } from '../audit/run-notes.js';
import { noteKey } from '../protocol/scanner.js';
import type { RunManifest } from '../store/manifest.js';
import { forkPoint, summarize } from './format.js';
import { netChange } from './pass-docs.js';

/** One side of `bounce diff <runA> <runB>`: what the run did, its notes and its last document. */
export interface RunSide {
  run_id: string;
  status: string;
  passes: { run: number; requested: number };
  agents: { reviewer: string; composer: string };
  /** What the run itself spent (a fork's copied passes cost it nothing). */
  cost_usd: number | null;
  cost_source: string | null;
  tokens: number | null;
  dispatches: number;
  notes: { raised: number; acted: number | null; dismissed: number | null; left: number | null };
  forked_from: RunManifest['forked_from'] | null;
  /** The final document (final.<ext>), or the last document a pass produced when the run did not converge. */
  final: { file: string; converged: boolean };
}

/** A note raised in either run (the same kind and text is the same note), with its fate in each; null: not raised there. */
export interface ComparedNote {
  kind: string;
  text: string;
  a: RunNote['fate'] | null;
  b: RunNote['fate'] | null;
}

export interface RunComparison {
  a: RunSide;
  b: RunSide;
  /** Whether both runs refined the same input (its sha256). */
  same_input: boolean;
  /** Every note whose fate differs between the runs, or that only one run raised; `same` counts the rest. */
  notes: { differing: ComparedNote[]; same: number };
  final: { same: boolean; a: string; b: string };
}

function side(dir: string, m: RunManifest): { side: RunSide; notes: RunNote[]; text: string } {
  const s = summarize(m);
  const net = netChange(dir, m);
  return {
    side: {
      run_id: m.run_id,
      status: m.status,
      passes: s.passes,
      agents: { reviewer: m.agents.reviewer.spec, composer: m.agents.composer.spec },
      cost_usd: m.totals.cost_usd,
      cost_source: m.totals.cost_source ?? null,
      tokens: s.tokens.total,
      dispatches: m.totals.dispatches,
      notes: { raised: s.notes.raised, acted: s.notes.acted, dismissed: s.notes.dismissed, left: s.notes.left },
      forked_from: m.forked_from ?? null,
      final: { file: net.afterFile, converged: net.converged },
    },
    notes: runLedger(dir, m).notes,
    text: net.after ?? net.before,
  };
}

/**
 * Pairs the notes of two runs by kind and text, in the order each raised them (a note raised
 * twice pairs twice), and keeps those whose fate differs or that only one run raised.
 */
export function compareNotes(a: readonly RunNote[], b: readonly RunNote[]): RunComparison['notes'] {
  const waiting = new Map<string, RunNote[]>();
  for (const n of b) waiting.set(noteKey(n), [...(waiting.get(noteKey(n)) ?? []), n]);
  const differing: ComparedNote[] = [];
  let same = 0;
  for (const n of a) {
    const other = waiting.get(noteKey(n))?.shift();
    if (other && other.fate === n.fate) same++;
    else differing.push({ kind: n.kind, text: n.text, a: n.fate, b: other ? other.fate : null });
  }
  for (const rest of waiting.values()) for (const n of rest) differing.push({ kind: n.kind, text: n.text, a: null, b: n.fate });
  return { differing, same };
}

/** Two runs side by side: passes, cost, notes and their fates, and the final texts. */
export function compareRuns(a: { dir: string; manifest: RunManifest }, b: { dir: string; manifest: RunManifest }): RunComparison {
  const x = side(a.dir, a.manifest);
  const y = side(b.dir, b.manifest);
  return {
    a: x.side,
    b: y.side,
    same_input: a.manifest.input.sha256 === b.manifest.input.sha256,
    notes: compareNotes(x.notes, y.notes),
    final: { same: x.text === y.text, a: x.text, b: y.text },
  };
}

/** The fork line of a side, for the text output. */
export const sideFork = (s: RunSide): string => (s.forked_from ? (forkPoint({ forked_from: s.forked_from }) ?? '-') : '-');
