import { DEFAULT_PASSES } from '../config/defaults.js';
import { plural } from '../plural.js';
import { createColors } from 'picocolors';
import type { RunResult } from '../engine/run-document.js';
import type { ManifestView } from '../store/recorder.js';
import { cacheHitsOf, type JudgeVerdict, lastCompletedPass } from '../store/manifest.js';
import type { Role } from '../vocabulary.js';
import { EXIT } from '../errors.js';
import type { Io } from '../io.js';
import { dirname, join } from 'node:path';
import { displayPath } from '../documents.js';
import { BUDGET_ERROR } from '../engine/budget.js';
import { type NoteCounts, noteCounts } from '../report/format.js';
import { shellWord, type StepPlace, stepPlace } from '../store/run-location.js';

/** The one object `--json` prints for refine and resume, for every exit. */
export interface RefineJson {
  run_id: string | null;
  run_dir: string | null;
  status: string;
  exit_code: number;
  notes_left: number | null;
  /** The ledger's counts (src/report/format.ts noteCounts): notes raised, and of those resolved, acted on or dismissed. */
  notes: NoteCounts;
  output: string | null;
  passes_run: number;
  /** One entry per pass attempted: wall time, notes left, tokens. */
  passes: {
    pass: number;
    role: string;
    agent: string;
    status: string;
    duration_ms: number | null;
    notes_after: number | null;
    tokens: number | null;
    cost_usd: number | null;
    cost_source: string | null;
  }[];
  duration_ms: number;
  usage: { input_tokens: number | null; output_tokens: number | null };
  cost_usd: number | null;
  /** `provider`, `table` or `unknown` (then cost_usd, the sum of what is known, is a lower bound); null when no dispatch reported usage. */
  cost_source: string | null;
  /** How many of the run's dispatches the response cache answered (--cache): no agent called, cost 0. */
  cache_hits: number;
  evidence: string | null;
  error: { type: string; message: string; resets_at?: string | null } | null;
  /** The command or step that goes on from here; null when the run converged or none applies. */
  next: string | null;
  /** The judge's verdict (`--judge`, run.json `judge`); absent when the run was not judged. */
  judge?: JudgeVerdict;
}

const sumTokens = (u: { input_tokens: number | null; output_tokens: number | null }): number | null =>
  u.input_tokens === null && u.output_tokens === null ? null : (u.input_tokens ?? 0) + (u.output_tokens ?? 0);

/** `place`: what the `next` command needs where it is printed (src/store/run-location.ts). */
export function runJson(r: RunResult, place: StepPlace): RefineJson {
  const m = r.manifest;
  return {
    run_id: r.runId,
    run_dir: r.runDir,
    status: r.status,
    exit_code: r.exitCode,
    notes_left: r.notesLeft,
    notes: noteCounts(m),
    output: r.outputPath,
    passes_run: m.passes.run,
    passes: m.pass_records.map((p) => ({
      pass: p.pass,
      role: p.role,
      agent: p.agent,
      status: p.status,
      duration_ms: p.duration_ms,
      notes_after: p.notes_after,
      tokens: sumTokens(p.usage),
      cost_usd: p.usage.cost_usd,
      cost_source: p.usage.cost_source ?? null,
    })),
    duration_ms: m.totals.duration_ms,
    usage: { input_tokens: m.totals.input_tokens, output_tokens: m.totals.output_tokens },
    cost_usd: m.totals.cost_usd,
    cost_source: m.totals.cost_source ?? null,
    cache_hits: cacheHitsOf(m),
    evidence: m.evidence,
    error: r.error,
    next: nextStep(r, null, place),
    ...(m.judge ? { judge: structuredClone(m.judge) as JudgeVerdict } : {}),
  };
}

/** The judge's verdict in words, for stderr (refine) and `bounce show`: what it preferred, whether the two orders agreed, its warning. */
export function judgeLines(v: DeepJudge): string {
  const calls = v.calls.map((c) => `${c.order} ${c.prefers ?? 'no answer'}`).join(', ');
  const verdict =
    v.prefers === null
      ? `no verdict: ${v.error?.message ?? 'no usable reply'}`
      : `prefers ${v.prefers === 'tie' ? 'neither document (tie)' : `the ${v.prefers} document`}${v.agreed ? ', both orders agreeing' : ', the two orders disagreeing'}`;
  const lines = [`judge ${v.agent}: ${verdict}${calls ? ` (${calls})` : ''}`];
  if (v.warning) lines.push(`warning: ${v.warning}`);
  return `${lines.join('\n')}\n`;
}

type DeepJudge = NonNullable<ManifestView['judge']>;

/**
 * The flags that ask again for this session's extension (`resume --passes N`, its agents)
 * when it ended before its first dispatch: run.json then kept the run as it was
 * (src/store/recorder.ts), so a plain resume would not extend it.
 */
function unstartedExtension(m: RunResult['manifest']): string {
  const ext = m.extensions?.at(-1);
  if (!ext || m.pass_records.some((p) => p.pass > ext.after_pass && p.dispatches.length > 0)) return '';
  const agents = Object.entries(ext.agents).map(([role, a]) => ` --${role} ${shellWord(a.to)}`);
  return ` --passes ${m.passes.requested}${agents.join('')}`;
}

/**
 * The step that works from here, as a command where there is one. `cwd` makes the paths it
 * names relative, as the summary prints them; null leaves them as they are. `place` is what the
 * command needs to find the run (` --runs-dir DIR`) and the most passes it may offer
 * (src/store/run-location.ts), so it works as printed.
 */
export function nextStep(r: RunResult, cwd: string | null, place: StepPlace): string | null {
  const m = r.manifest;
  const where = place.flags;
  const resume = `bounce resume ${r.runId}${where}${unstartedExtension(m)}`;
  const show = (path: string): string => (cwd ? displayPath(path, cwd, 'absolute') : path);
  switch (r.status) {
    case 'converged':
      return null;
    case 'interrupted':
      return resume;
    case 'not-converged': {
      // What the run goes on from: the last accepted document, not the final pass's rejected one.
      const doc = show(join(r.runDir, lastAcceptedDocument(m)));
      const why = clause(r.error?.message ?? 'the final pass did not converge');
      const offer = offeredPasses(m, place.maxPasses);
      if (!offer)
        return `${why}; ${atMostPasses(place.maxPasses)}: ${newRunStep(m, doc, where, place.maxPasses)} starts a new run from its last accepted document`;
      const capped = offer.capped ? ` (${offer.capped})` : '';
      return `${why}; ${resume} --passes ${offer.passes} goes on from the last accepted document (${doc}) to a final ${offer.final} pass${capped}, with --${offer.final} <agent> to try another ${offer.final}`;
    }
    case 'failed': {
      const type = r.error?.type;
      if (type === 'timeout') {
        const longest = Math.max(m.agents.reviewer.timeout_s, m.agents.composer.timeout_s);
        return `${resume} --timeout ${Math.min(2_147_483, Math.ceil(longest * 2))}`;
      }
      if (type === 'quota') return r.error?.resets_at ? `${resume} after ${r.error.resets_at}` : `${resume} once the agent's limit has reset`;
      if (type === BUDGET_ERROR) return `${resume} with a larger budget (--max-cost-usd, --max-tokens or --max-dispatches, as the error says)`;
      if (type === 'storage') return `${resume} once the runs folder can be written again`;
      if (type === 'truncated') return `raise the agent's max_output_tokens as the error says, then ${resume}`;
      if (type === 'breaker' || type === 'auth' || type === 'config' || type === 'not_found') return `fix the cause above, then ${resume}`;
      // A resume runs the checks as recorded: the program can be installed, its time limit stays.
      if (type === 'check') return `fix the check as the error says (install its program, or make it finish within its timeout_s), then ${resume}`;
      return resume;
    }
  }
}

/** A message as a clause to go on from with `;`: without the full stop (or other mark) it ends on. */
export const clause = (message: string): string => message.trimEnd().replace(/[.;:,]+$/, '');

/** A pass budget `bounce resume --passes N` is offered (offeredPasses). */
export interface PassOffer {
  passes: number;
  /** Whose the final pass is: a composer's when the count is even. */
  final: Role;
  /** Why it is no more, when max_passes holds it below the smallest even count above the passes run; else null. */
  capped: string | null;
}

/**
 * The pass budget `bounce resume --passes N` is offered to take an ended run further: the
 * smallest even count above the passes it ran, so its final pass is a composer pass (a
 * reviewer's final pass may only resolve notes, and the document the run ends on is then not
 * a composer's). Passes run is at least the last completed pass, which the run goes on from.
 * It stays within `max`, the most passes a run may have (config `max_passes`): when that
 * count is more, the largest even count that still goes past the last completed pass (for a
 * not-converged run, its rejected final pass run again), else `max` itself, whose final pass
 * is a reviewer's. Null when no count within `max` goes past the last completed pass: the
 * run has had the most passes it may have, and newRunStep is the step that goes on.
 */
export function offeredPasses(m: Pick<ManifestView, 'passes' | 'pass_records'>, max: number): PassOffer | null {
  const even = m.passes.run + (m.passes.run % 2 === 0 ? 2 : 1);
  if (even <= max) return { passes: even, final: 'composer', capped: null };
  const done = lastCompletedPass(m);
  const capped = `max_passes allows at most ${max}`;
  const evenMax = max - (max % 2);
  if (evenMax > done) return { passes: evenMax, final: 'composer', capped };
  return max > done ? { passes: max, final: 'reviewer', capped } : null;
}

/** Why an offered pass count is that one, in words: after it in parentheses. */
export function offerReason(o: PassOffer): string {
  const parity = o.final === 'composer' ? 'an even count, so the final pass is a composer pass' : 'an odd count, so the final pass is a reviewer pass';
  return o.capped ? `${parity}; ${o.capped}` : parity;
}

/** What a run that no pass count within `max` takes further is told: it has had the most passes it may have. */
export const atMostPasses = (max: number): string => `it has had the most passes a run may have (max_passes: ${max})`;

/** The run's last accepted document, relative to its folder: its last completed pass's, else its original. */
export function lastAcceptedDocument(m: Pick<ManifestView, 'pass_records' | 'original'>): string {
  return [...m.pass_records].reverse().find((p) => p.status === 'completed' && p.document)?.document ?? m.original;
}

/**
 * A new run from `doc` (as printed, a path) with the run's agents: what goes on from a run
 * that has had the most passes it may have. `where` carries the --config and --runs-dir of
 * the run's, so the new run reads the same config and lands beside it.
 */
export function newRunStep(m: Pick<ManifestView, 'agents'>, doc: string, where: string, maxPasses: number): string {
  // Under a max_passes below a refine's default the new run must ask for fewer passes (refine refuses it otherwise).
  const passes = maxPasses < DEFAULT_PASSES ? ` --passes ${maxPasses}` : '';
  return `bounce refine ${shellWord(doc)} --reviewer ${shellWord(m.agents.reviewer.spec)} --composer ${shellWord(m.agents.composer.spec)}${passes}${where}`;
}

/** The --json object of a refine or resume that ended before a run folder was made. */
export function errorJson(exitCode: number, type: string, message: string): RefineJson {
  return {
    run_id: null,
    run_dir: null,
    status: 'error',
    exit_code: exitCode,
    notes_left: null,
    notes: { raised: 0, acted: 0, dismissed: 0 },
    output: null,
    passes_run: 0,
    passes: [],
    duration_ms: 0,
    usage: { input_tokens: null, output_tokens: null },
    cost_usd: null,
    cost_source: null,
    cache_hits: 0,
    evidence: null,
    error: { type, message },
    next: null,
  };
}

/** After the dispatch count: how many of them the response cache answered, if any. */
export const fromCache = (hits: number): string => (hits > 0 ? ` (${hits} from the response cache)` : '');

/** The summary on stderr: outcome, passes, dispatches, tokens, cost, time, per-pass times, the run folder, the error. */
export function summaryLines(r: RunResult, io: Io, place: StepPlace): string {
  const m = r.manifest;
  const c = createColors(Boolean(io.stderr.isTTY) && !io.env.NO_COLOR);
  const t = m.totals;
  const total = sumTokens(t);
  const tokens = total === null ? 'tokens unknown' : `${total} tokens`;
  const partial =
    t.cost_source === 'unknown'
      ? ' (some cost unknown)'
      : t.cost_source === 'table'
        ? ' (list prices)'
        : t.cost_source === 'subscription'
          ? ' (list price: a subscription login, not billed by the token)'
          : '';
  const cost = t.cost_usd === null ? 'cost unknown' : `$${t.cost_usd.toFixed(4)}${partial}`;
  const head = r.exitCode === EXIT.ok ? c.green(r.status) : c.red(r.status);
  const mockNote = mockEvidence(m);
  const mock = mockNote ? c.yellow(` (${mockNote}: not a live result)`) : '';
  const facts = `${m.passes.run}/${m.passes.requested} passes, ${plural(t.dispatches, 'dispatch', 'dispatches')}${fromCache(cacheHitsOf(m))}, ${tokens}, ${cost}, ${(t.duration_ms / 1000).toFixed(1)}s`;
  // A pass tried again after an interruption or a failure lists each attempt, the earlier ones with how they ended.
  const perPass = m.pass_records
    .map((p) => `${p.pass} ${p.role} ${((p.duration_ms ?? 0) / 1000).toFixed(1)}s${p.status === 'completed' ? '' : ` (${p.status})`}`)
    .join(', ');
  const lines = [`${head}${mock}: ${facts}`, ...(perPass ? [`pass times: ${perPass}`] : []), `run folder: ${displayPath(r.runDir, io.cwd, 'absolute')}`];
  if (r.error) lines.push(`${c.red('error')}: ${r.error.message}`);
  const next = nextStep(r, io.cwd, place);
  if (next) lines.push(`next: ${next}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The mock agents behind the run's recorded evidence: `all` when its evidence is `mock`;
 * `one` when it is `mixed` and one agent is a mock (the other live or external); else null.
 */
export function mockAgents(m: Pick<ManifestView, 'evidence' | 'agents'>): 'all' | 'one' | null {
  if (m.evidence === 'mock') return 'all';
  return m.evidence === 'mixed' && [m.agents.reviewer, m.agents.composer].some((a) => a.evidence === 'mock') ? 'one' : null;
}

/** mockAgents in words, as the summary and the report say them. */
export function mockEvidence(m: Pick<ManifestView, 'evidence' | 'agents'>): string | null {
  const mock = mockAgents(m);
  return mock === null ? null : mock === 'all' ? 'mock agents' : 'a mock agent';
}

/** What -q leaves of the summary when a run fails: the error and the step that goes on from here. */
function errorLines(r: RunResult, io: Io, place: StepPlace): string {
  const next = nextStep(r, io.cwd, place);
  const lines = [`bounce: ${r.status}: ${r.error?.message ?? `exit ${r.exitCode}`}`, ...(next ? [`next: ${next}`] : [])];
  return `${lines.join('\n')}\n`;
}

/**
 * What refine and resume print when a run ends: the output (or its path, or --json) on stdout,
 * the summary on stderr. `config` is the command's --config: the next step carries it, and
 * --runs-dir when the run is not where the defaults look (src/store/run-location.ts).
 */
export function printRunResult(r: RunResult, io: Io, opts: { json?: boolean; quiet?: boolean; stdoutDocument: boolean; config?: string | undefined }): void {
  const place = stepPlace({ runsDir: dirname(r.runDir), config: opts.config }, io);
  if (opts.stdoutDocument && r.document !== null && r.exitCode === EXIT.ok) {
    io.stdout.wholeDocument?.();
    io.stdout.write(r.document);
  }
  if (opts.json) io.stdout.write(`${JSON.stringify(runJson(r, place))}\n`);
  else if (r.outputPath && r.exitCode === EXIT.ok) io.stdout.write(`${displayPath(r.outputPath, io.cwd, 'absolute')}\n`);
  if (!opts.quiet) io.stderr.write(summaryLines(r, io, place));
  else if (r.exitCode !== EXIT.ok) io.stderr.write(errorLines(r, io, place));
}
