import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { callAgent } from '../adapters/call-agent.js';
import { resolveAgent } from '../adapters/registry.js';
import { secretValues } from '../adapters/secrets.js';
import { runReading } from '../audit/run-notes.js';
import { verifyRun } from '../audit/verify.js';
import { loadConfig, runsDirFor } from '../config/load.js';
import { type Decision, readAnswers } from '../decide/answers.js';
import {
  COMPOSER_TEMPLATE,
  composerTemplateProblem,
  type Debater,
  REVIEWER_TEMPLATE,
  reviewerTemplateProblem,
  stateAlternative,
  stateCounter,
} from '../decide/debate.js';
import { type Decided, decidedDocument } from '../decide/decided-document.js';
import { personAnswers } from '../decide/person-dispatcher.js';
import { DecisionSession } from '../decide/session.js';
import { undecidedNotes } from '../decide/undecided.js';
import { systemClock } from '../engine/clock.js';
import type { Dispatcher } from '../engine/deps.js';
import { seatForPass } from '../engine/plan.js';
import { runDocument } from '../engine/run-document.js';
import { BounceError, EXIT, usageError } from '../errors.js';
import { type GradableFinding, gradableRun } from '../grade/gradable.js';
import { graderName } from '../grade/grader.js';
import type { Io } from '../io.js';
import { HUMAN_VERSION } from '../kit/person-reply.js';
import { plural } from '../plural.js';
import { secretsOf } from '../redact.js';
import { engineDeps } from '../request/engine-deps.js';
import { runProbe } from '../request/plan-request.js';
import { secondsFlag } from '../request/refine-request.js';
import { readForResume, resumePlan } from '../request/resume-request.js';
import { planSideAgent } from '../request/side-agent.js';
import { closedBreaker, type SideContext, sideDispatch } from '../side/dispatch.js';
import { GradeWriter } from '../store/grade-writer.js';
import { lastCompletedPass, type RunManifest } from '../store/manifest.js';
import type { RunRecorder } from '../store/recorder.js';
import { resolveRunDir } from '../store/resolve-run.js';
import { runHintFlags } from '../store/run-location.js';
import { readKeys } from '../ui/key-reader.js';
import { lastAcceptedDocument, newRunStep, printRunResult } from '../ui/run-summary.js';
import { displayPath } from '../documents.js';
import { configInUse } from '../config/in-use.js';
import type { Role } from '../vocabulary.js';

export interface DecideOptions {
  run: string;
  runsDir?: string;
  /** A YAML map of finding id to `reviewer`, `composer` or `{text: ...}`, instead of the terminal. */
  answers?: string;
  /** Who decides (`human:<name>`); default: git's user name, else the OS user. */
  decider?: string;
  /** The agents that argue the two sides (and the composer that integrates); default: the run's. */
  reviewer?: string;
  composer?: string;
  /** Print the notes to decide; decide nothing. */
  list?: boolean;
  /** A decide-reviewer.md or decide-composer.md here replaces the package's. */
  prompts?: string;
  timeout?: string;
  config?: string;
  json?: boolean;
  quiet?: boolean;
}

/** Ended runs a decision round takes further. */
const DECIDABLE = new Set(['converged', 'not-converged']);
/** Substrates whose notes are lines of their own: a decision note can be written into them as one. */
const LINE_NOTES = new Set(['markdown', 'plain']);

/** The run's last document (its last completed pass's, else the original) as the run folder keeps it. */
function lastDocument(dir: string, m: RunManifest): { file: string; text: string } {
  const file = [...m.pass_records].reverse().find((p) => p.status === 'completed' && p.document)?.document ?? m.original;
  return { file, text: readFileSync(join(dir, file), 'utf8') };
}

/** The run, refused (exit 2) unless it ended converged or not-converged, is Markdown or plain text, and passes bounce audit. */
function decidableRun(dir: string, where: () => string): RunManifest {
  const m = readForResume(dir);
  if (!DECIDABLE.has(m.status))
    throw usageError(
      `run ${m.run_id} is ${m.status}: a decision round takes a run that ended converged or not-converged`,
      m.status === 'running' ? 'let it end first' : `bounce resume ${m.run_id}${where()} finishes it first`,
      'resume',
    );
  if (!LINE_NOTES.has(m.input.syntax))
    throw usageError(
      `run ${m.run_id} is a ${m.input.syntax} document: bounce decide writes decisions as note lines, in Markdown or plain text only`,
      'decide its notes by hand, then bounce resume --passes N',
      'usage',
    );
  const audit = verifyRun(dir, { resuming: true });
  if (audit.problems.length > 0)
    throw usageError(
      `run ${m.run_id} does not pass bounce audit (${plural(audit.problems.length, 'problem')})`,
      'bounce audit names them; only a run as it was recorded is decided',
      'tampered',
    );
  return m;
}

function listNotes(notes: readonly GradableFinding[], m: RunManifest, io: Io, json: boolean | undefined): number {
  if (json) {
    const rows = notes.map((f) => ({ id: f.id, pass: f.pass, role: f.role, agent: f.agent, kind: f.kind, message: f.message, fate: f.fate }));
    io.stdout.write(`${JSON.stringify({ run_id: m.run_id, notes: rows }, null, 2)}\n`);
    return EXIT.ok;
  }
  for (const f of notes) io.stdout.write(`${f.id}  pass ${f.pass}  ${f.kind}  ${f.fate}  ${f.message.replace(/\s+/g, ' ')}\n`);
  io.stderr.write(`${m.run_id}: ${plural(notes.length, 'note')} to decide\n`);
  return EXIT.ok;
}

/** The side context of a decision round: the run's recorder, the real adapters (or the person's answers), no budget. */
function sideContext(
  rec: RunRecorder,
  io: Io,
  dispatch: Dispatcher,
  at: { pass: number; total: number },
  maxBytes: number,
  released: AbortSignal,
): SideContext {
  return {
    dispatch,
    signal: io.signal,
    env: io.env,
    clock: systemClock,
    retryBaseMs: Number(io.env.BOUNCE_RETRY_BASE_MS) || 1000,
    rec,
    runId: rec.manifest.run_id,
    pass: at.pass,
    totalPasses: at.total,
    budgets: [],
    maxBytes,
    release: released,
    breaker: closedBreaker(),
  };
}

/** Runs `work` with a recorder for side dispatches under the run's lock, released (and run.log told) afterwards. */
async function underLock<T>(
  dir: string,
  secrets: readonly string[],
  work: (rec: RunRecorder, released: AbortSignal) => Promise<T>,
  summary: (t: T) => string,
): Promise<T> {
  const writer = GradeWriter.open(dir);
  const released = new AbortController();
  let said: string | undefined;
  try {
    const rec = writer.sideRecorder({ secrets: secretsOf(secrets) });
    try {
      const out = await work(rec, released.signal);
      said = summary(out);
      return out;
    } finally {
      released.abort();
      rec.close();
    }
  } finally {
    writer.close(said);
  }
}

/** How a decision reads in its record's reply: the side, then the text the composer is to integrate. */
export function decisionReply(d: Decided): string {
  if (d.decision.side === 'own') return `decision: own text\n${d.decision.text}\n`;
  return `decision: the ${d.decision.side}'s side\n${d.decision.side === 'reviewer' ? d.alternative : d.counter}\n`;
}

/**
 * `bounce decide <run>` (docs/human.md, "A decision round"): the notes a run could not settle
 * each get one bounded round, the reviewer's alternative and the composer's counter-argument
 * (side dispatches), then a person's decision (on a terminal, or `--answers FILE`), each
 * recorded as a dispatch of `human:<name>`. The run is then taken further, as `bounce resume
 * --passes` does: a pass of the person's writes the decisions into the document as notes, and
 * a final pass of the composer integrates them under the final-pass rule.
 */
export async function runDecide(opts: DecideOptions, io: Io): Promise<number> {
  const loaded = loadConfig(io.cwd, io.env, opts.config);
  const dir = resolveRunDir(opts.run, runsDirFor(io.cwd, loaded, opts.runsDir), io.cwd);
  const flags = (): string => runHintFlags(dir, io, opts.config);
  const m = decidableRun(dir, flags);
  const notes = undecidedNotes(gradableRun(dir, m));
  if (opts.list) return listNotes(notes, m, io, opts.json);
  if (notes.length === 0) {
    io.stderr.write(`run ${m.run_id} left no note to decide: none open, no [CONTESTED] note dismissed\n`);
    return EXIT.ok;
  }
  const decisionPass = lastCompletedPass(m) + 1;
  const finalPass = decisionPass + 1;
  // The round's two passes stay within max_passes: refused now, before any note is argued.
  const max = loaded.config.max_passes;
  if (finalPass > max) {
    const doc = displayPath(join(dir, lastAcceptedDocument(m)), io.cwd, 'absolute');
    throw usageError(
      `a decision round takes run ${m.run_id} to pass ${finalPass}, and max_passes allows at most ${max}`,
      `${newRunStep(m, doc, flags(), max)} starts a new run from its last accepted document, or raise max_passes in ${configInUse()}`,
      'usage',
    );
  }
  const ids = notes.map((f) => f.id);
  const answers = opts.answers !== undefined ? readAnswers(resolve(io.cwd, opts.answers), opts.answers, ids) : null;
  if (!answers && !io.stdin.isTTY)
    throw usageError('bounce decide asks on a terminal, and stdin is none', 'run it on a terminal, or give the decisions with --answers FILE (docs/human.md)');
  const person = graderName(opts.decider, io.env, io.cwd, '--decider');
  const alternate = { alternate: m.policy.alternate === true };
  const personSeat = seatForPass(alternate, decisionPass);
  const composerSeat = seatForPass(alternate, finalPass);
  if (personSeat === composerSeat)
    throw usageError(
      `run ${m.run_id} swaps its agents (--alternate) between passes ${decisionPass} and ${finalPass}, so the person and the composer would share one seat`,
      `take it one pass further first (bounce resume ${m.run_id}${flags()} --passes ${decisionPass}), then decide`,
      'usage',
    );
  const probe = runProbe(io);
  const where = { cwd: io.cwd, env: io.env, probe, ...(opts.config ? { configFile: opts.config } : {}) };
  const timeoutS = secondsFlag(opts.timeout);
  const promptsDir = opts.prompts ? resolve(io.cwd, opts.prompts) : null;
  const side = async (flag: string, spec: string, name: string, problem: (t: string) => string | null): Promise<Debater> => {
    const { planned, warnings } = await planSideAgent(
      { flag, spec, template: { name, problem, doc: 'docs/human.md' }, ...(timeoutS !== undefined ? { timeoutS } : {}), promptsDir },
      where,
    );
    if (!opts.json && !opts.quiet) for (const w of warnings) io.stderr.write(`warning: ${w.message}\n`);
    return planned;
  };
  const reviewer = await side('--reviewer', opts.reviewer ?? m.agents.reviewer.spec, REVIEWER_TEMPLATE, reviewerTemplateProblem);
  const composer = await side('--composer', opts.composer ?? m.agents.composer.spec, COMPOSER_TEMPLATE, composerTemplateProblem);
  const personAgent = resolveAgent(person, loaded.config, io.cwd, null);
  const secrets = secretValues([reviewer.agent, composer.agent], io.env);
  const document = lastDocument(dir, m);
  const at = { pass: decisionPass, total: finalPass };
  const real: Dispatcher = (agent, request, o) => callAgent(agent, request, { ...o, probe });

  // The debate: each note's two statements, recorded as the run's side dispatches.
  const debated = await underLock(
    dir,
    secrets,
    async (rec, released) => {
      const ctx = sideContext(rec, io, real, at, loaded.config.max_bytes, released);
      const out: Omit<Decided, 'decision'>[] = [];
      for (const [i, note] of notes.entries()) {
        const input = { note, document, goal: m.goal ?? null };
        const alt = await stateAlternative(ctx, reviewer, input, i + 1);
        if (!alt.ok) return { out, failure: alt };
        const counter = await stateCounter(ctx, composer, input, alt.value, i + 1);
        if (!counter.ok) return { out, failure: counter };
        out.push({ note, alternative: rec.redact(alt.value), counter: rec.redact(counter.value) });
        if (!answers && !opts.quiet) io.stderr.write(`argued ${i + 1} of ${plural(notes.length, 'note')}\n`);
      }
      return { out, failure: null };
    },
    (d) =>
      `decide: ${plural(d.out.length, 'note')} argued by ${reviewer.agent.spec} and ${composer.agent.spec}${d.failure ? `; stopped: ${d.failure.message}` : ''}`,
  );
  if (debated.failure) {
    const f = debated.failure;
    if (f.type === 'interrupted') throw new BounceError('interrupted: nothing was decided', { exitCode: EXIT.interrupted, code: 'interrupted' });
    throw new BounceError(`the debate stopped (${f.type}): ${f.message}`, {
      exitCode: EXIT.agent,
      code: 'agent',
      hint: `nothing was decided; bounce decide ${m.run_id}${flags()} starts the round again (its prompts and replies are in the run folder)`,
    });
  }

  // The person's decisions: from the file, or one key a note on the terminal.
  let decisions: ReadonlyMap<string, Decision> | null = answers;
  if (!decisions) {
    const session = new DecisionSession(debated.out);
    await readKeys(session, io);
    decisions = session.decisions;
    if (!decisions) {
      io.stderr.write(`nothing decided; bounce decide ${m.run_id}${flags()} asks again\n`);
      return EXIT.ok;
    }
  }
  const decided: Decided[] = debated.out.map((d) => ({ ...d, decision: decisions.get(d.note.id) as Decision }));

  // Each decision a dispatch of the person's, recorded and chained like any other.
  let reply = '';
  const byPerson = personAnswers(real, person, () => reply);
  await underLock(
    dir,
    [],
    async (rec, released) => {
      const ctx = sideContext(rec, io, byPerson, at, loaded.config.max_bytes, released);
      for (const [i, d] of decided.entries()) {
        reply = decisionReply(d);
        await sideDispatch(ctx, {
          role: 'decision',
          agent: personAgent,
          agentVersion: HUMAN_VERSION,
          stem: `decide-${decisionPass}-${i + 1}-decision`,
          prompt: `Decide the note ${d.note.id}: the reviewer's side, the composer's, or your own text.\n\nThe note: [${d.note.kind}] ${d.note.message}\n\nThe reviewer: ${d.alternative}\n\nThe composer: ${d.counter}\n`,
          goal: `As ${person}, decide the note ${d.note.id}: the reviewer's side, the composer's, or your own text.`,
          contract: "decision: the reviewer's side, the composer's side or own text, then the text the composer integrates",
          documents: [document],
          timeoutMs: 60_000,
          maxOutputTokens: null,
          read: (text) => ({ ok: true, value: text }),
          maxRepairs: 0,
        });
      }
    },
    () => `decide: ${plural(decided.length, 'decision')} by ${person}`,
  );

  // The run taken further: the person's pass writes the decisions in, the composer's final pass integrates them.
  const decidedText = decidedDocument(document.text, decided, person, { ...runReading(m), markers: m.policy.markers });
  const seats = { [personSeat]: person, [composerSeat]: composer.agent.spec } as Record<Role, string>;
  const fresh = readForResume(dir);
  const plan = await resumePlan(
    fresh,
    dir,
    { passes: finalPass, reviewer: seats.reviewer, composer: seats.composer, quiet: opts.quiet, json: opts.json, config: opts.config, timeout: opts.timeout },
    io,
    probe,
    {
      versions: { [personSeat]: HUMAN_VERSION, [composerSeat]: composer.agentVersion } as Record<Role, string | null>,
      resolved: { reviewer: {}, composer: {} },
    },
  );
  const deps = engineDeps(io, Boolean(opts.quiet), probe, plan);
  deps.dispatch = personAnswers(deps.dispatch, person, (request) => (request.pass === decisionPass ? decidedText : null));
  const result = await runDocument(plan, deps, { runDir: dir, extend: true });
  printRunResult(result, io, { json: opts.json, quiet: opts.quiet, stdoutDocument: plan.output.kind === 'stdout', config: opts.config });
  return result.exitCode;
}
