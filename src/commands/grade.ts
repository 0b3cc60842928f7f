import { resolve } from 'node:path';
import { verifyRun } from '../audit/verify.js';
import { EXIT, usageError } from '../errors.js';
import { nextGrading, type GradeMode } from '../grade/apply.js';
import { readVerdicts } from '../grade/from-file.js';
import { currentVerdict, type GradableFinding, type GradableRun, gradableRun } from '../grade/gradable.js';
import { graderName } from '../grade/grader.js';
import { GradingSession, splitKeys } from '../grade/picker.js';
import type { Io } from '../io.js';
import { plural } from '../plural.js';
import { GradeWriter } from '../store/grade-writer.js';
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

/** Reads keys from a terminal (raw, so each key arrives alone) until the session ends or stdin does. */
async function pick(session: GradingSession, io: Io): Promise<void> {
  const stdin = io.stdin as Io['stdin'] & { setRawMode?: (raw: boolean) => unknown; setEncoding?: (e: BufferEncoding) => unknown };
  const raw = typeof stdin.setRawMode === 'function';
  io.stderr.write(session.screen());
  await new Promise<void>((done, fail) => {
    const finish = (err?: unknown): void => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      io.signal.removeEventListener('abort', onEnd);
      if (raw) stdin.setRawMode?.(false);
      stdin.pause();
      if (err) fail(err);
      else done();
    };
    const onData = (chunk: Buffer | string): void => {
      try {
        for (const key of splitKeys(chunk.toString())) {
          io.stderr.write(session.press(key));
          if (session.state !== 'grading') return finish();
        }
      } catch (err) {
        finish(err);
      }
    };
    const onEnd = (): void => {
      if (session.state === 'grading') io.stderr.write('\n');
      finish();
    };
    if (raw) stdin.setRawMode?.(true);
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    io.signal.addEventListener('abort', onEnd, { once: true });
    stdin.resume();
    if (io.signal.aborted) onEnd();
  });
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
  if (opts.from === undefined && !io.stdin.isTTY)
    throw usageError('bounce grade asks on a terminal, and stdin is none', 'run it on a terminal, or give the verdicts with --from FILE (docs/grading.md)');
  const grader = graderName(opts.grader, io.env, io.cwd);
  const writer = GradeWriter.open(dir);
  const given = zero();
  let summary = '';
  let run: GradableRun;
  try {
    const audit = verifyRun(dir);
    if (audit.problems.length > 0)
      throw usageError(
        `run ${audit.runId} does not pass bounce audit (${plural(audit.problems.length, 'problem')})`,
        'bounce audit names them; only a run as it was recorded is graded',
        'tampered',
      );
    run = gradableRun(dir, readManifest(dir));
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
      const earlier = verdictsNow(run);
      const todo = opts.again ? run.findings : run.findings.filter((f) => !earlier.has(f.id));
      if (run.findings.length === 0) io.stderr.write(`run ${run.manifest.run_id} kept no findings: there is nothing to grade\n`);
      else if (todo.length === 0) io.stderr.write(`every finding of run ${run.manifest.run_id} is graded; bounce grade --again grades them anew\n`);
      else await pick(new GradingSession(todo, earlier, (f, v) => save(f, v)), io);
    }
    const n = given.accepted + given.rejected + given.skipped;
    summary = `graded by ${grader}: ${plural(n, 'verdict')} (${given.accepted} accepted, ${given.rejected} rejected, ${given.skipped} skipped)`;
  } finally {
    writer.close(summary || undefined);
  }
  const after = verdictsNow(gradableRun(dir, readManifest(dir)));
  const counts = zero();
  for (const v of after.values()) counts[v] += 1;
  if (opts.json) {
    const out = {
      run_id: run.manifest.run_id,
      run_dir: dir,
      grader,
      given: { ...given },
      findings: run.findings.length,
      graded: after.size,
      verdicts: counts,
    };
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    io.stderr.write(`${run.manifest.run_id}: ${summary}; ${after.size} of ${plural(run.findings.length, 'finding')} graded\n`);
  }
  return EXIT.ok;
}
