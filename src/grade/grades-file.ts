import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../atomic.js';
import { toYaml, yamlLib } from '../yaml.js';
import type { AgentStats } from './stats.js';

/**
 * The grades file, in the dispatch protocol's shape (docs/grading.md, "Precision and the
 * grades file"): one entry per agent and role (`<role>/<adapter>:<model>`), written by
 * `bounce stats --write`, read by `bounce check` and `bounce refine`.
 */
export const GRADES_FILE = '.bounce/grades.yaml';

const Fraction = z.number().min(0).max(1).nullable();
export const GradeEntrySchema = z
  .object({
    precision_high: Fraction,
    precision_med: Fraction,
    precision_low: Fraction,
    /** The protocol's estimate of issues caught, from kickback signals: bounce has none, so null. */
    recall_estimate: Fraction,
    last_graded: z.string().nullable(),
    trend: z.enum(['improving', 'stable', 'degrading']).nullable(),
    /** How many findings were accepted or rejected (bounce's own field: the sample the precision rests on). */
    graded: z.number().int().nonnegative().optional(),
  })
  .passthrough();
export type GradeEntry = z.infer<typeof GradeEntrySchema>;
export const GradesFileSchema = z.record(z.string(), GradeEntrySchema);
export type GradesFile = z.infer<typeof GradesFileSchema>;

/** `--grades FILE` (relative to cwd), else `.bounce/grades.yaml` beside the config file, else in cwd. */
export function gradesPath(cwd: string, configPath: string | null, flag?: string): string {
  if (flag) return resolve(cwd, flag);
  return join(configPath ? dirname(configPath) : resolve(cwd), GRADES_FILE);
}

const round = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000);

/** An agent's entry: precision by the confidence its findings carry, rounded to three places. */
export function gradeEntry(s: AgentStats): GradeEntry {
  const c = s.precision_by_confidence;
  return {
    precision_high: round(c.HIGH ?? null),
    precision_med: round(c.MEDIUM ?? null),
    precision_low: round(c.LOW ?? null),
    recall_estimate: null,
    last_graded: s.last_graded,
    trend: s.trend,
    graded: s.graded.accepted + s.graded.rejected,
  };
}

export function renderGrades(stats: readonly AgentStats[]): string {
  const file: GradesFile = Object.fromEntries(stats.map((s) => [s.agent, gradeEntry(s)]));
  return `# Written by bounce stats --write (docs/grading.md); precision is accepted / (accepted + rejected).\n${toYaml(GradesFileSchema.parse(file))}`;
}

export function writeGrades(path: string, stats: readonly AgentStats[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, renderGrades(stats), 0o644);
}

/** The grades file at `path`: null when there is none; a file that does not parse is reported, not thrown. */
export function readGrades(path: string): { grades: GradesFile } | { problem: string } | null {
  if (!existsSync(path)) return null;
  try {
    const result = GradesFileSchema.safeParse(yamlLib().parse(readFileSync(path, 'utf8')) ?? {});
    if (result.success) return { grades: result.data };
    const i = result.error.issues[0];
    return { problem: `${path}: ${i?.path.join('.') || '(root)'}: ${i?.message}` };
  } catch (err) {
    return { problem: `${path}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}` };
  }
}

/** An agent as the precision check sees it: a role (or any), its adapter, and its model when known. */
export interface GradedAgent {
  role?: string;
  adapter: string;
  model: string | null;
}

/** A grades entry below the line, for one agent: what `bounce check` flags and `refine` warns of. */
export interface LowPrecision {
  key: string;
  precision: number;
  graded: number | null;
}

/**
 * The entries of `grades` for `agent` whose precision on high-confidence findings is below
 * `min`: those of its role (any role when none is given) and adapter, and of its model when
 * the agent names one (an agent whose model is not known yet matches every model of its adapter).
 */
export function lowPrecision(grades: GradesFile, agent: GradedAgent, min: number): LowPrecision[] {
  const out: LowPrecision[] = [];
  for (const [key, e] of Object.entries(grades)) {
    const m = /^([^/]+)\/([^:]+)(?::(.*))?$/.exec(key);
    if (!m || e.precision_high === null || e.precision_high >= min) continue;
    if (agent.role && m[1] !== agent.role) continue;
    if (m[2] !== agent.adapter) continue;
    if (agent.model && (m[3] ?? null) !== agent.model) continue;
    out.push({ key, precision: e.precision_high, graded: e.graded ?? null });
  }
  return out;
}

/** One warning line for a low-precision entry. */
export function lowPrecisionLine(l: LowPrecision, min: number, path: string): string {
  const sample = l.graded === null ? '' : `, ${l.graded} graded finding${l.graded === 1 ? '' : 's'}`;
  return `${l.key} has a precision of ${l.precision} on high-confidence findings${sample}, below min_precision ${min} (${path})`;
}

/**
 * The warnings for agents below `min_precision` in the grades file beside the config (or in
 * `cwd`): one line per entry below it, and one for a grades file that cannot be read. No file: none.
 */
export function precisionWarnings(
  agents: readonly (GradedAgent & { name: string })[],
  where: { cwd: string; configPath: string | null; minPrecision: number },
): string[] {
  const path = gradesPath(where.cwd, where.configPath);
  const read = readGrades(path);
  if (!read) return [];
  if ('problem' in read) return [`the grades file cannot be read, so no agent's precision is checked: ${read.problem}`];
  return agents.flatMap((a) => lowPrecision(read.grades, a, where.minPrecision).map((l) => `${a.name}: ${lowPrecisionLine(l, where.minPrecision, path)}`));
}
