import { keptRecord, runLedger } from '../audit/run-notes.js';
import type { PassRecord, RunManifest } from '../store/manifest.js';
import type { Finding } from '../store/record-schema.js';
import type { Evidence, GradeVerdict, Role } from '../vocabulary.js';

/**
 * `bounce stats` (docs/grading.md, "Stats"): what each agent did in each role across the runs
 * of a runs folder, from run.json, the ledger of notes and the grades in the dispatch records.
 */

/** A finding's confidence as the protocol names it (the key of `precision_by_confidence`). */
export type Confidence = Finding['confidence'] | 'MEDIUM' | 'LOW';
export const CONFIDENCES: readonly Confidence[] = ['HIGH', 'MEDIUM', 'LOW'];

/**
 * The period of a grade's trend: the calendar month (UTC) the run was made in, `yyyy-mm`.
 * A month is the dispatch protocol's grading cycle ("a grader (offline, monthly)").
 */
export const periodOf = (iso: string): string => iso.slice(0, 7);

/** How far precision must move between the last two periods to be a trend rather than `stable`. */
export const TREND_DELTA = 0.05;
export type Trend = 'improving' | 'stable' | 'degrading';

type Verdicts = Record<GradeVerdict, number>;
const noVerdicts = (): Verdicts => ({ accepted: 0, rejected: 0, skipped: 0 });

export interface AgentStats {
  /** `<role>/<adapter>:<model>` (`<role>/<adapter>` when the model is not known): the key of the grades file. */
  agent: string;
  role: Role;
  adapter: string;
  model: string | null;
  evidence: Evidence | 'mixed';
  runs: number;
  passes: number;
  dispatches: number;
  /** Of the notes this agent raised: what became of them (the ledger). */
  notes: { raised: number; acted: number; dismissed: number; open: number; unjudged: number };
  /** The notes this agent resolved, and how. */
  resolved: { acted: number; dismissed: number };
  graded: Verdicts;
  /** accepted / (accepted + rejected) of the findings it raised; null with none accepted or rejected. */
  precision: number | null;
  precision_by_confidence: Partial<Record<Confidence, number | null>>;
  repairs_per_pass: number;
  retries_per_pass: number;
  failures_per_pass: number;
  converged_runs: number;
  /** This agent's tokens (input and output) and cost in converged runs, per converged run; null when none converged or none was reported. */
  tokens_per_converged: number | null;
  cost_usd_per_converged: number | null;
  median_pass_ms: number | null;
  /** The day (UTC) of the latest verdict on its findings; null when none is graded. */
  last_graded: string | null;
  /** Precision per period (the month the run was made in) with a verdict, oldest first. */
  periods: { period: string; accepted: number; rejected: number; precision: number | null }[];
  trend: Trend | null;
}

export interface StatsResult {
  runs: number;
  /** Run folders left out: an unreadable run.json, or made before --since. */
  skipped: { unreadable: number; before_since: number };
  agents: AgentStats[];
}

interface Acc {
  agent: string;
  role: Role;
  adapter: string;
  model: string | null;
  evidence: Set<Evidence>;
  runs: Set<string>;
  converged: Set<string>;
  passes: number;
  dispatches: number;
  repairs: number;
  retries: number;
  failures: number;
  passMs: number[];
  convTokens: number | null;
  convCost: number | null;
  notes: AgentStats['notes'];
  resolved: AgentStats['resolved'];
  graded: Verdicts;
  byConfidence: Map<Confidence, Verdicts>;
  byPeriod: Map<string, Verdicts>;
  lastGraded: string | null;
}

export const precisionOf = (v: Pick<Verdicts, 'accepted' | 'rejected'>): number | null =>
  v.accepted + v.rejected === 0 ? null : v.accepted / (v.accepted + v.rejected);

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The trend between the latest period with a precision and the calendar month before it; null without both. */
export function trendOf(periods: AgentStats['periods']): Trend | null {
  const known = periods.filter((p) => p.precision !== null);
  const last = known.at(-1);
  if (!last) return null;
  const [y, mo] = last.period.split('-').map(Number) as [number, number];
  const before = mo === 1 ? `${y - 1}-12` : `${y}-${String(mo - 1).padStart(2, '0')}`;
  const prev = known.find((p) => p.period === before);
  if (!prev) return null;
  const delta = last.precision! - prev.precision!;
  return delta >= TREND_DELTA ? 'improving' : delta <= -TREND_DELTA ? 'degrading' : 'stable';
}

/** Who took a pass: its role, adapter and model (the model its replies reported, else the run's record of the agent). */
function agentOf(m: RunManifest, p: PassRecord, model: string | null): { role: Role; adapter: string; model: string | null; evidence: Evidence } {
  const a = m.agents[p.role];
  const same = a.spec === p.agent;
  const adapter = same ? a.adapter : p.agent.startsWith('cmd:') ? 'cmd' : (p.agent.split(':')[0] ?? p.agent);
  return { role: p.role, adapter, model: model ?? (same ? a.model : null), evidence: same ? a.evidence : 'external' };
}

export const agentKey = (role: string, adapter: string, model: string | null): string => `${role}/${adapter}${model ? `:${model}` : ''}`;

const sumOrNull = (a: number | null, b: number | null): number | null => (b === null ? a : (a ?? 0) + b);

function newAcc(k: ReturnType<typeof agentOf>): Acc {
  return {
    agent: agentKey(k.role, k.adapter, k.model),
    ...k,
    evidence: new Set(),
    runs: new Set(),
    converged: new Set(),
    passes: 0,
    dispatches: 0,
    repairs: 0,
    retries: 0,
    failures: 0,
    passMs: [],
    convTokens: null,
    convCost: null,
    notes: { raised: 0, acted: 0, dismissed: 0, open: 0, unjudged: 0 },
    resolved: { acted: 0, dismissed: 0 },
    graded: noVerdicts(),
    byConfidence: new Map(),
    byPeriod: new Map(),
    lastGraded: null,
  };
}

/** Adds one run to the tallies. */
export function addRun(accs: Map<string, Acc>, dir: string, m: RunManifest): void {
  const ledger = runLedger(dir, m);
  const byIndex = new Map<number, Acc>();
  m.pass_records.forEach((p, index) => {
    if (p.copied_from) return; // counted in the run it came from
    const kept = p.status === 'completed' && p.document ? keptRecord(dir, p) : null;
    const k = agentOf(m, p, kept?.response?.metadata.model ?? null);
    const key = agentKey(k.role, k.adapter, k.model);
    const acc = accs.get(key) ?? newAcc(k);
    accs.set(key, acc);
    byIndex.set(index, acc);
    acc.evidence.add(k.evidence);
    acc.runs.add(m.run_id);
    acc.passes += 1;
    acc.dispatches += p.dispatches.length;
    acc.repairs += p.repairs;
    acc.retries += p.retries;
    if (p.status === 'failed') acc.failures += 1;
    if (p.duration_ms !== null) acc.passMs.push(p.duration_ms);
    if (m.status === 'converged') {
      acc.converged.add(m.run_id);
      const tokens = p.usage.input_tokens === null && p.usage.output_tokens === null ? null : (p.usage.input_tokens ?? 0) + (p.usage.output_tokens ?? 0);
      acc.convTokens = sumOrNull(acc.convTokens, tokens);
      acc.convCost = sumOrNull(acc.convCost, p.usage.cost_usd);
    }
    const grade = kept?.outcome.grade;
    if (!grade || !kept?.response) return;
    const confidence = new Map(kept.response.findings.map((f) => [f.id, f.confidence as Confidence]));
    const period = periodOf(m.created_at);
    for (const v of grade.verdicts) {
      acc.graded[v.verdict] += 1;
      const c = confidence.get(v.finding) ?? 'HIGH';
      const byC = acc.byConfidence.get(c) ?? noVerdicts();
      byC[v.verdict] += 1;
      acc.byConfidence.set(c, byC);
      const byP = acc.byPeriod.get(period) ?? noVerdicts();
      byP[v.verdict] += 1;
      acc.byPeriod.set(period, byP);
    }
    const day = kept.outcome.graded_at?.slice(0, 10) ?? null;
    if (day && (!acc.lastGraded || day > acc.lastGraded)) acc.lastGraded = day;
  });
  for (const n of ledger.notes) {
    const raiser = n.raisedIn !== null ? byIndex.get(n.raisedIn) : undefined;
    if (raiser) {
      raiser.notes.raised += 1;
      raiser.notes[n.fate === null ? 'unjudged' : n.fate] += 1;
    }
    const resolver = n.resolvedIn !== null ? byIndex.get(n.resolvedIn) : undefined;
    if (resolver && (n.fate === 'acted' || n.fate === 'dismissed')) resolver.resolved[n.fate] += 1;
  }
}

const per = (n: number, of: number): number => (of === 0 ? 0 : n / of);

export function finish(acc: Acc): AgentStats {
  const periods = [...acc.byPeriod]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([period, v]) => ({ period, accepted: v.accepted, rejected: v.rejected, precision: precisionOf(v) }));
  const conv = acc.converged.size;
  const evidence = acc.evidence.size === 1 ? [...acc.evidence][0]! : 'mixed';
  return {
    agent: acc.agent,
    role: acc.role,
    adapter: acc.adapter,
    model: acc.model,
    evidence,
    runs: acc.runs.size,
    passes: acc.passes,
    dispatches: acc.dispatches,
    notes: acc.notes,
    resolved: acc.resolved,
    graded: acc.graded,
    precision: precisionOf(acc.graded),
    precision_by_confidence: Object.fromEntries(CONFIDENCES.filter((c) => acc.byConfidence.has(c)).map((c) => [c, precisionOf(acc.byConfidence.get(c)!)])),
    repairs_per_pass: per(acc.repairs, acc.passes),
    retries_per_pass: per(acc.retries, acc.passes),
    failures_per_pass: per(acc.failures, acc.passes),
    converged_runs: conv,
    tokens_per_converged: conv && acc.convTokens !== null ? acc.convTokens / conv : null,
    cost_usd_per_converged: conv && acc.convCost !== null ? acc.convCost / conv : null,
    median_pass_ms: median(acc.passMs),
    last_graded: acc.lastGraded,
    periods,
    trend: trendOf(periods),
  };
}

/** The stats of the runs given (each a folder and its run.json), agents in key order. */
export function collectStats(runs: readonly { dir: string; manifest: RunManifest }[]): AgentStats[] {
  const accs = new Map<string, Acc>();
  for (const r of runs) addRun(accs, r.dir, r.manifest);
  return [...accs.values()].map(finish).sort((a, b) => a.agent.localeCompare(b.agent));
}
