/**
 * A recorded run read back for the bench (docs/defect-bench.md): which pair ran it, which
 * corpus document it refined, the notes its reviewer passes raised (from the ledger the
 * dispatch records hold, their lines carried back to the original), its final document, and
 * what it cost. Everything comes from the run folder, so a replay of a run scores as it did.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runLedger, runReading } from '../audit/run-notes.js';
import { usageError } from '../errors.js';
import { lintNote } from '../protocol/lint.js';
import { noteKey, scanNotes } from '../protocol/scanner.js';
import type { AgentRecord, RunManifest } from '../store/manifest.js';
import type { CorpusDocument } from './corpus.js';
import { originalLines } from './line-map.js';
import { type DocumentScore, type ScoredNote, scoreDocument } from './score.js';

/**
 * How far a row's numbers can be trusted: `live` (a concrete provider and model, a positive
 * output-token limit and provider-reported usage, for every agent of every run), `mock`
 * (scripted replies), `cmd` (a program bounce cannot vouch for), `unverified` (a real agent
 * that missed one of the live conditions).
 */
export type RowEvidence = 'live' | 'mock' | 'cmd' | 'unverified';

/** The pair of a run, as `--pairs` names it: `REVIEWER/COMPOSER`. */
export const pairOf = (m: RunManifest): string => `${m.agents.reviewer.spec}/${m.agents.composer.spec}`;

/** The agents a run used: the composer only when some pass was its. */
function usedAgents(m: RunManifest): AgentRecord[] {
  return m.passes.requested > 1 ? [m.agents.reviewer, m.agents.composer] : [m.agents.reviewer];
}

/** What a row's evidence is, from the agents of one run, and why it is not live. */
export function runEvidence(m: RunManifest): { evidence: RowEvidence; why: string | null } {
  const agents = usedAgents(m);
  if (agents.some((a) => a.evidence === 'mock')) return { evidence: 'mock', why: 'a mock agent answered' };
  if (agents.some((a) => a.evidence === 'external')) return { evidence: 'cmd', why: 'a cmd: program answered' };
  for (const a of agents) {
    if (!a.provider || !a.model) return { evidence: 'unverified', why: `${a.spec}: no concrete provider and model recorded` };
    if (!a.max_output_tokens || a.max_output_tokens <= 0) return { evidence: 'unverified', why: `${a.spec}: no positive output-token limit` };
    if (a.usage_provider_reported !== true) return { evidence: 'unverified', why: `${a.spec}: usage not reported by the provider` };
  }
  return { evidence: 'live', why: null };
}

/** One run, scored. */
export interface RunScore {
  runId: string;
  runDir: string;
  pair: string;
  reviewer: string;
  composer: string;
  passes: number;
  document: string;
  status: string;
  score: DocumentScore;
  costUsd: number | null;
  durationMs: number;
  evidence: RowEvidence;
  why: string | null;
  /** The run this one replays; its cost, time and evidence are the recording's. */
  replayOf: string | null;
}

/** The path of a run's final document, if it wrote one. */
function finalDocument(m: RunManifest, runDir: string): string | null {
  if (!m.output.written) return null;
  // A run-folder target records its path relative to the folder; the others, absolute.
  const path = m.output.path ? resolve(runDir, m.output.path) : m.output.target === 'run' ? resolve(runDir, `final.${m.input.ext}`) : null;
  return path && existsSync(path) ? readFileSync(path, 'utf8') : null;
}

/** The notes the run's reviewer passes raised, each with its line in the original and its lint problems. */
export function reviewerNotes(runDir: string, m: RunManifest): ScoredNote[] {
  const original = readFileSync(join(runDir, m.original), 'utf8');
  const reading = runReading(m);
  const perPass = new Map<number, { map: (line: number) => number; text: string }>();
  const passDoc = (index: number): { map: (line: number) => number; text: string } | null => {
    const p = m.pass_records[index];
    if (!p?.document) return null;
    let got = perPass.get(index);
    if (!got) {
      const text = readFileSync(join(runDir, p.document), 'utf8');
      got = { map: originalLines(original, text), text };
      perPass.set(index, got);
    }
    return got;
  };
  const notes: ScoredNote[] = [];
  for (const n of runLedger(runDir, m).notes) {
    if (n.raisedIn === null || m.pass_records[n.raisedIn]?.role !== 'reviewer') continue;
    const doc = passDoc(n.raisedIn);
    if (!doc) continue;
    const scanned = scanNotes(doc.text, reading).find((s) => s.line === n.raisedLine && noteKey(s) === noteKey(n));
    notes.push({
      line: doc.map(n.raisedLine),
      lintProblems: scanned ? lintNote(scanned, doc.text).length : 0,
      fate: n.fate,
    });
  }
  return notes;
}

/**
 * Scores one run against the corpus document it refined (matched by the sha256 of its
 * input, so a renamed copy still counts and an edited one does not). `recording` is the
 * manifest of the run a replay replays, when found: its cost, time and evidence are used.
 */
export function scoreRun(runDir: string, m: RunManifest, documents: readonly CorpusDocument[], recording: RunManifest | null): RunScore {
  const doc = documents.find((d) => d.sha256 === m.input.sha256);
  if (!doc)
    throw usageError(
      `run ${m.run_id} refined ${m.input.display}, which is no document of the corpus (by content)`,
      'score runs of this corpus only: pass the --corpus the bench ran with',
      'input',
    );
  const source = recording ?? m;
  const { evidence, why } = runEvidence(source);
  return {
    runId: m.run_id,
    runDir,
    pair: pairOf(m),
    reviewer: m.agents.reviewer.spec,
    composer: m.agents.composer.spec,
    passes: m.passes.requested,
    document: doc.name,
    status: m.status,
    score: scoreDocument(doc.defects, reviewerNotes(runDir, m), finalDocument(m, runDir)),
    costUsd: source.totals.cost_usd,
    durationMs: source.totals.duration_ms,
    evidence: m.replay_of && !recording ? 'unverified' : evidence,
    why: m.replay_of && !recording ? `a replay of ${m.replay_of}, whose recording is not in the runs folder` : why,
    replayOf: m.replay_of ?? null,
  };
}
