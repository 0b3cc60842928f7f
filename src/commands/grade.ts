import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { callAgent } from '../adapters/call-agent.js';
import { secretValues } from '../adapters/secrets.js';
import { verifyRun } from '../audit/verify.js';
import { loadConfigKeys } from '../config/load.js';
import { systemClock } from '../engine/clock.js';
import { BounceError, EXIT, usageError } from '../errors.js';
import { agentGrader, GRADER_TEMPLATE, type GraderBatch, gradeBatch, graderTemplateProblem } from '../grade/agent-grader.js';
import { createProbe, type Probe } from '../kit/detect.js';
import { secretsOf } from '../redact.js';
import { planSideAgent, type PlannedSideAgent } from '../request/side-agent.js';
import { secondsFlag } from '../request/refine-request.js';
import { closedBreaker, type SideContext, type SideSpend } from '../side/dispatch.js';
import { nextGrading, type GradeMode } from '../grade/apply.js';
import { readVerdicts } from '../grade/from-file.js';
import { currentVerdict, type GradableFinding, type GradableRun, gradableRun } from '../grade/gradable.js';
import { graderName } from '../grade/grader.js';
import { GradingSession } from '../grade/picker.js';
import { readKeys } from '../ui/key-reader.js';
import type { Io } from '../io.js';
import { plural } from '../plural.js';
import { GradeWriter } from '../store/grade-writer.js';
import type { RunRecorder } from '../store/recorder.js';
import { readManifest } from '../store/manifest.js';
import { resolveRunDir } from '../store/resolve-run.js';
import type { GradeVerdict } from '../vocabulary.js';

export interface GradeOptions {
  run: string;
  /** Absolute or cwd-relative; the CLI passes config runs_dir or `runs`. */
  runsDir?: string;
  /** A YAML map of finding id to verdict, instead of the terminal. */
  from?: string;
  /** The grader's name (`human:<name>`); default: git's user name, else the OS user. */
  grader?: string;
  /** Grade every finding anew: each record's grade so far goes to its history. */
  again?: boolean;
  /** Print the run's gradable findings and their verdicts; grade nothing. */
  list?: boolean;
  /** An agent grades instead (`--judge <agent>`): one side dispatch per record, its verdicts written as `agent:<agent>`. */
  judge?: string;
  /** With --judge: a grader.md here replaces the package's. */
  prompts?: string;
  /** With --judge: the deadline of each call in seconds. */
  timeout?: string;
  /** The config file (agents, prices, max_bytes); default: found from the cwd. */
  config?: string;
  json?: boolean;
}

type Counts = Record<GradeVerdict, number>;
const zero = (): Counts => ({ accepted: 0, rejected: 0, skipped: 0 });

/** The verdicts every record holds now, by finding id. */
function verdictsNow(run: GradableRun): Map<string, GradeVerdict> {
  const out = new Map<string, GradeVerdict>();
  for (const f of run.findings) {
    const v = currentVerdict(run.records.get(f.record), f.id);
    if (v) out.set(f.id, v);
  }
  return out;
}

const SHORT = 72;
const short = (s: string): string => {
  const line = s.replace(/\s+/g, ' ');
  return line.length > SHORT ? `${line.slice(0, SHORT - 1)}…` : line;
};

function list(run: GradableRun, io: Io, json: boolean | undefined): number {
  const now = verdictsNow(run);
  if (json) {
    const rows = run.findings.map((f) => ({
      id: f.id,
      record: f.record,
      pass: f.pass,
      role: f.role,
      agent: f.agent,
      kind: f.kind,
      message: f.message,
      fate: f.fate,
      verdict: now.get(f.id) ?? null,
    }));
    io.stdout.write(`${JSON.stringify({ run_id: run.manifest.run_id, findings: rows }, null, 2)}\n`);
    return EXIT.ok;
  }
  for (const f of run.findings) io.stdout.write(`${f.id}  pass ${f.pass}  ${f.kind}  ${f.fate ?? 'resolved'}  ${now.get(f.id) ?? '-'}  ${short(f.message)}\n`);
  io.stderr.write(`${run.manifest.run_id}: ${plural(run.findings.length, 'finding')}, ${now.size} graded\n`);
  return EXIT.ok;
}

/** The run, once it passes the same verification as `bounce audit` (one that does not is refused: exit 2). */
function auditedRun(dir: string): GradableRun {
  const audit = verifyRun(dir);
  if (audit.problems.length > 0)
    throw usageError(
      `run ${audit.runId} does not pass bounce audit (${plural(audit.problems.length, 'problem')})`,
      'bounce audit names them; only a run as it was recorded is graded',
      'tampered',
    );
  return gradableRun(dir, readManifest(dir));
}

/** The findings to grade: those with no verdict yet, or all with --again; when there are none, says why on stderr. */
function toGrade(run: GradableRun, again: boolean | undefined, io: Io): { earlier: Map<string, GradeVerdict>; todo: GradableFinding[] } {
  const earlier = verdictsNow(run);
  const todo = again ? run.findings : run.findings.filter((f) => !earlier.has(f.id));
  if (run.findings.length === 0) io.stderr.write(`run ${run.manifest.run_id} kept no findings: there is nothing to grade\n`);
  else if (todo.length === 0) io.stderr.write(`every finding of run ${run.manifest.run_id} is graded; bounce grade --again grades them anew\n`);
  return { earlier, todo };
}

/**
 * `bounce grade <run>` (docs/grading.md): fills `outcome.grade` of each record whose findings
 * the run kept, one verdict per finding, on a terminal (one finding at a time, each verdict
 * saved as it is given) or from `--from FILE`. Everything is read and written under the run's
 * lock; a run that does not pass `bounce audit` is not graded.
 */
export async function runGrade(opts: GradeOptions, io: Io): Promise<number> {
  const dir = resolveRunDir(opts.run, opts.runsDir ?? 'runs', io.cwd);
  if (opts.list) return list(gradableRun(dir, readManifest(dir)), io, opts.json);
  if (opts.judge !== undefined) return gradeByAgent(dir, opts, io);
  for (const [flag, set] of [
    ['--prompts', opts.prompts],
    ['--timeout', opts.timeout],
  ] as const)
    if (set !== undefined) throw usageError(`${flag} is for an agent grading`, `pass --judge <agent> with it, or leave ${flag} out`);
  if (opts.from === undefined && !io.stdin.isTTY)
    throw usageError('bounce grade asks on a terminal, and stdin is none', 'run it on a terminal, or give the verdicts with --from FILE (docs/grading.md)');
  const grader = graderName(opts.grader, io.env, io.cwd);
  const writer = GradeWriter.open(dir);
  const given = zero();
  let summary = '';
  let run: GradableRun;
  try {
    run = auditedRun(dir);
    const first: GradeMode = opts.again ? 'fresh' : 'auto';
    const touched = new Set<string>();
    const save = (f: GradableFinding, verdict: GradeVerdict, at = new Date()): void => {
      const next = nextGrading(writer.read(f.record), new Map([[f.id, verdict]]), grader, at, touched.has(f.record) ? 'continue' : first);
      touched.add(f.record);
      if (next) writer.write(f.record, next);
      given[verdict] += 1;
    };
    if (opts.from !== undefined) {
      const verdicts = readVerdicts(
        resolve(io.cwd, opts.from),
        opts.from,
        run.findings.map((f) => f.id),
      );
      const at = new Date();
      for (const rel of new Set(run.findings.filter((f) => verdicts.has(f.id)).map((f) => f.record))) {
        const next = nextGrading(writer.read(rel), verdicts, grader, at, first);
        if (next) writer.write(rel, next);
      }
      for (const v of verdicts.values()) given[v] += 1;
    } else {
      const { earlier, todo } = toGrade(run, opts.again, io);
      if (todo.length > 0) await readKeys(new GradingSession(todo, earlier, (f, v) => save(f, v)), io);
    }
    const n = given.accepted + given.rejected + given.skipped;
    summary = `graded by ${grader}: ${plural(n, 'verdict')} (${given.accepted} accepted, ${given.rejected} rejected, ${given.skipped} skipped)`;
  } finally {
    writer.close(summary || undefined);
  }
  printResult(run, { grader, given, summary }, opts.json, io);
  return EXIT.ok;
}

/** What a grading session did, read back from the records: `--json`'s object (with `extra`), else one line on stderr. */
function printResult(
  run: GradableRun,
  done: { grader: string; given: Counts; summary: string; extra?: Record<string, unknown> },
  json: boolean | undefined,
  io: Io,
): void {
  const after = verdictsNow(gradableRun(run.dir, readManifest(run.dir)));
  const counts = zero();
  for (const v of after.values()) counts[v] += 1;
  if (json) {
    const out = {
      run_id: run.manifest.run_id,
      run_dir: run.dir,
      grader: done.grader,
      given: { ...done.given },
      findings: run.findings.length,
      graded: after.size,
      verdicts: counts,
      ...done.extra,
    };
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    io.stderr.write(`${run.manifest.run_id}: ${done.summary}; ${after.size} of ${plural(run.findings.length, 'finding')} graded\n`);
  }
}

/** A record's findings to grade and the document they stand in: one call each. */
function batchesOf(run: GradableRun, todo: readonly GradableFinding[]): GraderBatch[] {
  const byRecord = new Map<string, GradableFinding[]>();
  for (const f of todo) byRecord.set(f.record, [...(byRecord.get(f.record) ?? []), f]);
  return [...byRecord.values()].map((findings) => {
    const first = findings[0]!;
    return { record: first.record, pass: first.pass, document: { file: first.document, text: readFileSync(join(run.dir, first.document), 'utf8') }, findings };
  });
}

const addSpend = (into: Pick<SideSpend, 'inputTokens' | 'outputTokens' | 'costUsd'>, s: SideSpend): void => {
  if (s.inputTokens !== null) into.inputTokens = (into.inputTokens ?? 0) + s.inputTokens;
  if (s.outputTokens !== null) into.outputTokens = (into.outputTokens ?? 0) + s.outputTokens;
  if (s.costUsd !== null) into.costUsd = (into.costUsd ?? 0) + s.costUsd;
};

/**
 * `bounce grade <run> --judge <agent>` (docs/grading.md, "An agent grades"): the findings
 * with no verdict yet (all with --again), one side dispatch per record (role `grader`, its
 * record, prompt and reply in the run folder), each record's verdicts written as the reply
 * comes, under the run's lock. A reply that is not one line per finding is repaired once; a
 * call with no usable reply stops the grading (exit 3), the grades given so far kept.
 */
async function gradeByAgent(dir: string, opts: GradeOptions, io: Io): Promise<number> {
  for (const [flag, set] of [
    ['--from', opts.from],
    ['--grader', opts.grader],
  ] as const)
    if (set !== undefined) throw usageError(`--judge and ${flag} both say who grades`, `pass one of them`);
  const probe = createProbe(io.signal);
  const where = { cwd: io.cwd, env: io.env, probe, ...(opts.config ? { configFile: opts.config } : {}) };
  const timeoutS = secondsFlag(opts.timeout);
  const { planned, warnings } = await planSideAgent(
    {
      flag: '--judge',
      spec: opts.judge ?? '',
      template: { name: GRADER_TEMPLATE, problem: graderTemplateProblem, doc: 'docs/grading.md' },
      ...(timeoutS !== undefined ? { timeoutS } : {}),
      promptsDir: opts.prompts ? resolve(io.cwd, opts.prompts) : null,
    },
    where,
  );
  if (!opts.json) for (const w of warnings) io.stderr.write(`warning: ${w.message}\n`);
  const { config } = loadConfigKeys(io.cwd, io.env, opts.config, ['prices', 'max_bytes']);
  const grader = agentGrader(planned.agent.spec);
  const secrets = secretsOf(secretValues([planned.agent], io.env));
  const writer = GradeWriter.open(dir);
  const given = zero();
  const spend = { inputTokens: null as number | null, outputTokens: null as number | null, costUsd: null as number | null };
  const dispatches: string[] = [];
  const reasons: Record<string, string> = {};
  let failure: { type: string; message: string } | null = null;
  let summary = '';
  let run: GradableRun;
  const released = new AbortController();
  try {
    run = auditedRun(dir);
    const { todo } = toGrade(run, opts.again, io);
    if (todo.length > 0) {
      const rec = writer.sideRecorder({ secrets });
      try {
        failure = await askAgent(
          sideContext(rec, io, { probe, maxBytes: config.max_bytes, prices: config.prices, released: released.signal }),
          planned,
          batchesOf(run, todo),
          (batch, outcome) => {
            dispatches.push(...outcome.ids);
            addSpend(spend, outcome.spend);
            if (!outcome.ok) return;
            // A reason is the agent's text: the run's key values are blanked out of it, as in every file the recorder writes.
            const kept = new Map([...outcome.value.reasons].map(([id, reason]) => [id, rec.redact(reason)]));
            for (const [id, reason] of kept) reasons[id] = reason;
            const next = nextGrading(writer.read(batch.record), outcome.value.verdicts, grader, new Date(), opts.again ? 'fresh' : 'auto', kept);
            if (next) writer.write(batch.record, next);
            for (const v of outcome.value.verdicts.values()) given[v] += 1;
          },
          io,
        );
      } finally {
        released.abort();
        rec.close();
      }
    }
    const n = given.accepted + given.rejected;
    summary = `graded by ${grader}: ${plural(n, 'verdict')} (${given.accepted} accepted, ${given.rejected} rejected) in ${plural(dispatches.length, 'dispatch', 'dispatches')}${failure ? `; stopped: ${failure.message}` : ''}`;
  } finally {
    writer.close(summary || undefined);
  }
  const usage = { input_tokens: spend.inputTokens, output_tokens: spend.outputTokens, cost_usd: spend.costUsd };
  const spent = [
    usage.input_tokens === null && usage.output_tokens === null ? 'tokens unknown' : plural((usage.input_tokens ?? 0) + (usage.output_tokens ?? 0), 'token'),
    usage.cost_usd === null ? 'cost unknown' : `$${usage.cost_usd.toFixed(4)}`,
  ].join(', ');
  printResult(run, { grader, given, summary: `${summary} (${spent})`, extra: { reasons, dispatches, usage, error: failure } }, opts.json, io);
  if (!failure) return EXIT.ok;
  if (failure.type === 'interrupted')
    throw new BounceError('interrupted: the grades given so far are kept', { exitCode: EXIT.interrupted, code: 'interrupted' });
  throw new BounceError(`${grader} gave no usable grades (${failure.type}): ${failure.message}`, {
    exitCode: EXIT.agent,
    code: 'agent',
    hint: 'the grades given so far are kept; bounce grade --judge again asks about the rest (its prompts and replies are in the run folder)',
  });
}

/** Each batch in turn; stops at the first with no usable reply and returns why (its message with the agent's keys blanked). */
async function askAgent(
  ctx: SideContext,
  planned: PlannedSideAgent,
  batches: readonly GraderBatch[],
  told: (batch: GraderBatch, outcome: Awaited<ReturnType<typeof gradeBatch>>) => void,
  io: Io,
): Promise<{ type: string; message: string } | null> {
  const req = { ...planned, goal: ctx.rec?.manifest.goal ?? null };
  for (const batch of batches) {
    if (io.signal.aborted) return { type: 'interrupted', message: 'interrupted by the user' };
    const outcome = await gradeBatch(ctx, req, batch);
    told(batch, outcome);
    if (!outcome.ok) return { type: outcome.type, message: ctx.rec ? ctx.rec.redact(outcome.message) : outcome.message };
  }
  return null;
}

/** The side context of an agent grading an ended run: its recorder, the real adapters, no budget. */
function sideContext(rec: RunRecorder, io: Io, o: { probe: Probe; maxBytes: number; prices: SideContext['prices']; released: AbortSignal }): SideContext {
  const m = rec.manifest;
  const { probe } = o;
  return {
    dispatch: (agent, request, opts) => callAgent(agent, request, { ...opts, probe }),
    signal: io.signal,
    env: io.env,
    clock: systemClock,
    retryBaseMs: Number(io.env.BOUNCE_RETRY_BASE_MS) || 1000,
    rec,
    runId: m.run_id,
    pass: 1,
    totalPasses: Math.max(1, m.passes.requested, ...m.pass_records.map((p) => p.pass)),
    budgets: [],
    ...(o.prices ? { prices: o.prices } : {}),
    maxBytes: o.maxBytes,
    release: o.released,
    breaker: closedBreaker(),
  };
}
