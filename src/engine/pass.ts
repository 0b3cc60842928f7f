import { ulid } from 'ulid';
import { type AdapterRequest, type AdapterSuccess, CONTRACT_VERSION } from '../contract/contract.js';
import type { HostError } from '../contract/host.js';
import { agentSettingFix, timeoutFix } from '../adapters/agent-entry.js';
import { settleDispatch } from './settle.js';
import type { DispatchEnd, DispatchStart } from '../store/dispatch-record.js';
import type { NoteOrigins } from '../protocol/ledger.js';
import { diffNotes, mdxForPath, type Note, scanNotes } from '../protocol/scanner.js';
import { structureProblems } from '../protocol/structure.js';
import { parseError } from '../protocol/substrate.js';
import { sha256 } from '../store/hash.js';
import type { RunManifest } from '../store/manifest.js';
import { openClosing, type PassClosing, type RunRecorder } from '../store/recorder.js';
import { dispatchStem } from '../store/run-folder.js';
import { type AttemptKind, type PassStatus, type Role, type RunErrorType, TRANSIENT_ERROR_TYPES } from '../vocabulary.js';
import { backoffMs, nextTurn } from './backoff.js';
import { BUDGET_ERROR, type BudgetHold, type BudgetAccount, estimateDispatch, expectedModel, hasLimit, bySubscription } from './budget.js';
import { type LintFinding, lintAdded, lintLines, lintRepairReason } from './lint-notes.js';
import type { Clock } from './clock.js';
import type { DispatchResult, EngineDeps, EventSink } from './deps.js';
import { framingOf, lensForPass, type RunPlan, roleForPass, seatForPass } from './plan.js';
import { buildPassPrompt, buildRepairPrompt, type Delimiters, type PassPromptInput, promptDocument } from './prompt.js';
import { dismissedContested, type PassLedger, passLedger } from './notes-ledger.js';
import { type ReplyMode, replyMode } from './reply.js';
import { type EditReport, editsReason } from '../text/edit-blocks.js';
import { finalPassNotes, noteLines, structureCounts } from './final-pass.js';
import { type FailedCheck, checkErrorMessage, checkName, checkRepairReason, checkRepairSummary, finalCheckReason, repairOutput } from './checks.js';
import type { CheckRunRecord } from '../store/record-schema.js';
import { resolve } from 'node:path';
import { type Decision, decide, type Finding, type PassState } from './verdict.js';

/** The document the next pass revises: its text, its run-folder file, and what is known of it. */
export interface Current {
  text: string;
  file: string;
  notes: Note[];
  words: number;
  /** It fails a check command (kept by a pass before the final one after its repairs): the run cannot converge on it, even with no note left. */
  failsChecks?: boolean;
}

/** What one run shares between its passes. */
export interface RunContext {
  plan: RunPlan;
  deps: EngineDeps & { clock: Clock; events: EventSink; retryBaseMs: number };
  rec: RunRecorder;
  current: Current;
  breaker: RunManifest['breaker'];
  /** The run's own budget first, then any shared ones (EngineDeps.budgets): a dispatch needs them all. */
  budgets: readonly BudgetAccount[];
  /** Wall time of the run so far, earlier sessions of a resumed run included. */
  runMs(): number;
  /** Who raised each note open in `current` (the ledger of notes). */
  origins: NoteOrigins;
  /** Aborted when the run returns: what its agents left winding down is stopped (CallOptions.release). */
  released: AbortSignal;
}

export type PassOutcome =
  | { kind: 'accepted'; current: Current }
  | { kind: 'not-converged'; notes: Note[]; reason: string }
  | { kind: 'failed'; type: RunErrorType; message: string; resetsAt?: string | null }
  | { kind: 'interrupted' };

/** What one dispatch led to: the pass is over, or another attempt follows. */
type Step = PassOutcome | 'again';

export const BREAKER_THRESHOLD = 3;
export { MAX_TRANSIENT_RETRIES } from './verdict.js';

/** A provider error is transient only when it is a 5xx (or carries no HTTP status). */
export const isTransient = (e: HostError): boolean => TRANSIENT_ERROR_TYPES.has(e.type) && (e.type !== 'provider' || e.status === undefined || e.status >= 500);

/** A fence, or a line indented far enough for indented code; `includes` rather than a multiline regex, which is slow on megabytes. */
const mayHoldCode = (text: string): boolean =>
  text.includes('```') || text.includes('~~~') || text.includes('\n    ') || text.includes('\n\t') || text.startsWith('    ') || text.startsWith('\t');

/** How the run reads its document: its syntax, MDX rules for `.mdx`, its markers. */
export function readingOf(plan: RunPlan): { syntax: RunPlan['input']['syntax']; mdx: boolean; markers: string[] } {
  return { syntax: plan.input.syntax, mdx: mdxForPath(plan.input.path ?? undefined), markers: plan.markers };
}

export function scan(plan: RunPlan, text: string): Note[] {
  return scanNotes(text, readingOf(plan));
}

interface Attempt {
  kind: AttemptKind;
  index: number;
  parentId: string | null;
  prompt: string;
  /** Leading lines of the prompt that other dispatches of the run send alike (BuiltPrompt.stablePrefixLines). */
  stablePrefixLines: number[];
  /** The document the agent revises in this attempt (for a repair of notes: the rejected reply). */
  documentFile: string;
  documentText: string;
  repairError: string | null;
}

interface Dispatched {
  start: DispatchStart;
  host: DispatchResult;
  /** What the dispatch holds of each budget until it is charged. */
  holds: { account: BudgetAccount; hold: BudgetHold }[];
}

/**
 * One pass: dispatch, validate, then retry, repair, accept or fail per the policy table
 * (README "Replies, retries and repairs"), recording every step through the recorder.
 */
export function runPass(ctx: RunContext, pass: number): Promise<PassOutcome> {
  return new PassRun(ctx, pass).run();
}

class PassRun {
  private readonly role: Role;
  /** Whose agent plays this pass (seatForPass): the role itself, unless --alternate swapped them. */
  private readonly seat: Role;
  private readonly final: boolean;
  private readonly sent: Current;
  private readonly index: number;
  private readonly started: number;
  private readonly mode: ReplyMode;
  private readonly promptInput: PassPromptInput;
  private readonly closing: PassClosing;
  private attempt: Attempt;
  private delimiters: Delimiters;
  private emptyResent = false;
  private dismissalRepaired = false;
  private transient = 0;
  /** What the reply being handled did as edit blocks (edit mode), for its dispatch record. */
  private replyEdits: EditReport | null = null;
  /** The check commands run on the reply being handled, for its dispatch record. */
  private replyChecks: CheckRunRecord[] | null = null;
  /** What the checks that failed on the rejected reply printed, for the repair request that follows. */
  private quotedChecks: FailedCheck[] = [];
  /** The ids of this pass's dispatches so far, in order (EngineDeps.accepted). */
  private readonly sentIds: string[] = [];

  constructor(
    private readonly ctx: RunContext,
    private readonly pass: number,
  ) {
    const { plan, rec, current } = ctx;
    this.role = roleForPass(pass);
    this.seat = seatForPass(plan, pass);
    this.final = pass === plan.passes;
    this.sent = current;
    this.started = ctx.deps.clock.now();
    ctx.deps.events({ type: 'pass-started', pass, totalPasses: plan.passes, role: this.role, agent: this.agent, notesIn: current.notes.length });
    this.index = rec.openPass({
      pass,
      role: this.role,
      agent: this.agent,
      final: this.final,
      notes_before: current.notes.length,
      words_before: current.words,
      ...lensField(plan, pass),
      input: { file: current.file, sha256: this.shaOf(current.file, current.text) },
    });
    this.closing = openClosing();
    this.mode = replyMode(plan.replyMode);
    this.promptInput = {
      document: current.text,
      pass,
      totalPasses: plan.passes,
      role: this.role,
      final: this.final,
      ...framingOf(plan, pass),
      editFormat: this.mode.editFormat,
    };
    const first = buildPassPrompt(plan.templates, this.promptInput);
    this.delimiters = first.delimiters;
    this.attempt = {
      kind: 'pass',
      index: 0,
      parentId: null,
      prompt: first.prompt,
      stablePrefixLines: first.stablePrefixLines,
      documentFile: current.file,
      documentText: current.text,
      repairError: null,
    };
  }

  /** The sha256 of a run file the recorder holds (it hashed it once, when writing it). */
  private shaOf(file: string, text: string): string {
    return this.ctx.rec.factsOf(file).sha256 ?? sha256(text);
  }

  private get agent(): string {
    return this.ctx.plan.agents[this.seat].spec;
  }

  async run(): Promise<PassOutcome> {
    for (;;) {
      if (this.ctx.deps.signal.aborted) return this.close('interrupted', { kind: 'interrupted' });
      if (!(await this.waitForThrottle())) return this.close('interrupted', { kind: 'interrupted' });
      const admitted = this.admit();
      // Refused before anything is written for it: no prompt, no record; the pass fails and the run can be resumed with more budget.
      if (typeof admitted === 'string') return this.close('failed', { kind: 'failed', type: BUDGET_ERROR, message: admitted });
      const d = await this.dispatch(admitted);
      const step = d.host.ok ? await this.onReply(d, d.host.response) : await this.onFailure(d, d.host.error);
      if (step !== 'again') return step;
    }
  }

  /** In a batch, waits out a rate limit another run met with this agent; false if interrupted meanwhile. */
  private async waitForThrottle(): Promise<boolean> {
    const { throttle, signal, events } = this.ctx.deps;
    const ms = throttle?.remaining(this.agent) ?? 0;
    if (!throttle || ms === 0) return true;
    events({
      type: 'retry-scheduled',
      pass: this.pass,
      agent: this.agent,
      why: 'shared',
      message: `${this.agent} is rate limited (backoff shared by the batch)`,
      waitMs: ms,
    });
    return throttle.wait(this.agent, signal);
  }

  /** The model this role's replies name so far, else the one it is expected to use: what a dispatch is priced for. */
  private get model(): string | null {
    return this.ctx.rec.manifest.agents[this.seat].model ?? expectedModel(this.ctx.plan, this.seat);
  }

  /** Every budget's hold on the next dispatch (none for a cache hit), or the first refusal (in words). */
  private admit(): Dispatched['holds'] | string {
    const { plan, deps } = this.ctx;
    // A dispatch the response cache answers is free: no budget is asked, none holds anything for it.
    if (deps.cached?.(plan.agents[this.seat], this.attempt.prompt)) return [];
    const estimate = estimateDispatch({
      prompt: this.attempt.prompt,
      document: this.attempt.documentText,
      outputBudget: plan.maxOutputTokens[this.seat],
      model: this.model,
      prices: plan.prices,
      charsPerToken: plan.charsPerToken,
    });
    for (const account of this.ctx.budgets) {
      const refused = account.admit(estimate);
      if (refused) return refused;
    }
    return this.ctx.budgets.map((account) => ({ account, hold: account.reserve(estimate) }));
  }

  /**
   * One call: the prompt is written and the record opened before anything is sent, the raw
   * reply and stderr kept after it. The dispatcher is called first with a `ready` that opens
   * only once those writes are done: an agent CLI loads meanwhile, and gets its prompt then.
   */
  private async dispatch(holds: Dispatched['holds']): Promise<Dispatched> {
    const { plan, rec, deps } = this.ctx;
    const agent = plan.agents[this.seat];
    const now = deps.clock.now();
    const id = ulid(now);
    const stem = rec.freeStem(dispatchStem(this.pass, this.role, agent.slug, this.attempt.kind, this.attempt.index));
    const timeoutMs = plan.timeoutMs[this.seat];
    const request: AdapterRequest = {
      contract_version: CONTRACT_VERSION,
      dispatch_id: id,
      run_id: rec.manifest.run_id,
      pass: this.pass,
      total_passes: plan.passes,
      role: this.role,
      final: this.final,
      prompt: this.attempt.prompt,
      options: agent.options,
      deadline: new Date(now + timeoutMs).toISOString(),
      ...(this.attempt.repairError ? { repair_error: this.attempt.repairError } : {}),
      attempt: { kind: this.attempt.kind, index: this.attempt.index },
      ...(this.attempt.stablePrefixLines.length ? { stable_prefix_lines: this.attempt.stablePrefixLines } : {}),
    };
    let open: () => void = () => {};
    let callOff: (err: unknown) => void = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      open = resolve;
      callOff = reject;
    });
    ready.catch(() => {}); // a call that never looks at it must not leave it unhandled
    // Room for the reply (bounded by max_bytes, JSON-escaped) plus the envelope.
    const call = deps.dispatch(agent, request, {
      timeoutMs,
      signal: deps.signal,
      maxOutputBytes: plan.maxBytes * 8 + 1_000_000,
      env: deps.env,
      release: this.ctx.released,
      ready,
    });
    // One turn of the event loop: a built-in CLI adapter starts its CLI now.
    await nextTurn();
    let start: DispatchStart;
    try {
      start = this.recordStart(id, stem, now, timeoutMs);
    } catch (err) {
      // The dispatch could not be recorded: nothing is sent, and what was started is stopped.
      callOff(err);
      await call.catch(() => undefined);
      throw err;
    }
    open();
    this.sentIds.push(id);
    deps.events({ type: 'dispatch-started', pass: this.pass, id, kind: start.kind, index: start.index, stem });
    const host = await call;
    const replyText = host.ok ? host.response.reply : host.stdout;
    if (replyText) rec.artifact(`${stem}.reply.txt`, replyText);
    rec.artifact(`${stem}.stderr.log`, host.stderr);
    return { start, host, holds };
  }

  /** The prompt artifact, then the pending record and run.json listing it. */
  private recordStart(id: string, stem: string, now: number, timeoutMs: number): DispatchStart {
    const { plan, rec } = this.ctx;
    const agent = plan.agents[this.seat];
    const promptFile = rec.artifact(`${stem}.prompt.md`, this.attempt.prompt);
    const start: DispatchStart = {
      id,
      runId: rec.manifest.run_id,
      stem,
      pass: this.pass,
      totalPasses: plan.passes,
      role: this.role,
      agent,
      agentVersion: plan.agentVersions[this.seat],
      final: this.final,
      kind: this.attempt.kind,
      index: this.attempt.index,
      parentId: this.attempt.parentId,
      promptFile,
      documentFile: this.attempt.documentFile,
      documentSha256: this.shaOf(this.attempt.documentFile, this.attempt.documentText),
      documentLines: rec.factsOf(this.attempt.documentFile).lines,
      inputPath: plan.input.path,
      issuedAt: new Date(now),
      deadlineSeconds: Math.round(timeoutMs / 1000),
      maxOutputTokens: plan.maxOutputTokens[this.seat],
      repairError: this.attempt.repairError,
      editFormat: this.mode.editFormat,
      documentGoal: plan.goal,
      context: plan.context.files,
    };
    rec.startDispatch(this.index, start);
    return start;
  }

  /** Closes a dispatch: its outcome goes to the record and run.json. */
  private finish(
    d: Dispatched,
    status: DispatchEnd['status'],
    reason: string | null,
    doc?: { file: string; text: string; added: Note[]; resolved: Note[]; ledger?: PassLedger },
  ): void {
    const { host } = d;
    const model = (host.ok ? host.response.model : null) ?? this.model;
    const { usage, cost, totals } = settleDispatch(host, model, this.ctx.plan.prices, d.holds, bySubscription(this.ctx.plan, this.seat));
    const end: DispatchEnd = {
      start: d.start,
      completedAt: new Date(this.ctx.deps.clock.now()),
      durationMs: host.durationMs,
      status,
      reason,
      response: host.ok ? host.response : null,
      error: host.ok ? null : host.error,
      document: doc ? { file: doc.file, sha256: this.shaOf(doc.file, doc.text), lines: this.ctx.rec.factsOf(doc.file).lines } : null,
      added: doc?.added ?? [],
      resolved: doc?.resolved ?? [],
      ...(doc?.ledger ? { fates: doc.ledger.fates } : {}),
      cost,
      edits: this.replyEdits,
      ...(host.cache ? { cache: host.cache } : {}),
      ...(host.replay ? { replay: host.replay } : {}),
      ...(this.replyChecks ? { checks: this.replyChecks } : {}),
    };
    this.replyEdits = null;
    this.replyChecks = null;
    this.ctx.rec.finishDispatch(this.index, end, {
      usage: totals,
      providerReported: usage ? usage.provider_reported : null,
      model: host.ok ? host.response.model : null,
      agentVersion: host.ok ? host.response.agent_version : null,
      breaker: this.ctx.breaker,
    });
    this.ctx.deps.events({ type: 'dispatch-finished', pass: this.pass, id: d.start.id, status, reason, durationMs: host.durationMs });
  }

  private async onFailure(d: Dispatched, error: HostError): Promise<Step> {
    if (error.type === 'interrupted') {
      this.finish(d, 'error', 'interrupted by the user');
      return this.conclude(decide({ kind: 'interrupted' }, this.state), d);
    }
    if (error.type === 'quota') {
      this.finish(d, 'error', `quota: ${error.message}`);
      return this.conclude(decide({ kind: 'quota', message: error.message, resetsAt: error.resets_at ?? null }, this.state), d);
    }
    const b = this.ctx.breaker;
    b.consecutive_failures += 1;
    b.last_error = `${error.type}: ${error.message}`.slice(0, 500);
    if (b.consecutive_failures >= BREAKER_THRESHOLD) b.open = true;
    this.finish(d, error.type === 'timeout' ? 'timeout' : 'error', `${error.type}: ${error.message}`);
    const found: Finding = {
      kind: 'agent-error',
      type: error.type,
      message: error.message,
      transient: isTransient(error),
      breakerOpen: b.open,
      breakerThreshold: BREAKER_THRESHOLD,
      ...(error.type === 'timeout' ? { timeoutFix: timeoutFix(this.ctx.plan.agents[this.seat], this.ctx.plan.timeoutMs[this.seat]) } : {}),
    };
    const decision = decide(found, this.state);
    if (decision.kind !== 'retry') return this.conclude(decision, d);
    this.transient += 1;
    const wait = backoffMs(this.transient, error.retry_after_ms, this.ctx.deps.retryBaseMs);
    // A rate limit holds for every run of a batch that calls this agent, not only for this one.
    if (error.type === 'rate_limit' || error.status === 429) this.ctx.deps.throttle?.pause(this.agent, wait);
    this.ctx.deps.events({
      type: 'retry-scheduled',
      pass: this.pass,
      agent: this.agent,
      why: 'transient',
      message: this.cause(error),
      waitMs: wait,
    });
    if (!(await this.ctx.deps.clock.sleep(wait, this.ctx.deps.signal))) return this.close('interrupted', { kind: 'interrupted' });
    this.retry(d);
    return 'again';
  }

  /** Where the pass stands, for the decision table. */
  private get state(): PassState {
    return {
      agent: this.agent,
      final: this.final,
      repairs: this.closing.repairs,
      maxRepairs: this.ctx.plan.maxRepairs,
      transient: this.transient,
      emptyResent: this.emptyResent,
      dismissalRepaired: this.dismissalRepaired,
      sentNotes: this.sent.notes.length,
    };
  }

  /**
   * Carries out a decision that ends the dispatch's handling: a repair (from the rejected
   * reply or the pass's input), a resend, or the pass's end. The run keeps the pass's input
   * when the pass gives up, so `notes_left` is that document's notes.
   */
  private conclude(decision: Decision, d: Dispatched, reply?: { text: string; file: string }, failures?: EditReport['failures']): Step {
    switch (decision.kind) {
      case 'repair':
        return this.repair(d, decision.from === 'reply' && reply ? reply : this.sent, decision.reason, decision.summary, failures);
      case 'resend':
        this.emptyResent = true;
        this.ctx.deps.events({
          type: 'retry-scheduled',
          pass: this.pass,
          agent: this.agent,
          why: 'empty',
          message: `empty reply from ${this.agent}`,
          waitMs: 0,
        });
        this.retry(d);
        return 'again';
      case 'not-converged':
        return this.close('failed', { kind: 'not-converged', notes: this.sent.notes, reason: decision.reason });
      case 'failed':
        return this.close('failed', {
          kind: 'failed',
          type: decision.type,
          message: decision.message,
          ...(decision.resetsAt !== undefined ? { resetsAt: decision.resetsAt } : {}),
        });
      case 'interrupted':
        return this.close('interrupted', { kind: 'interrupted' });
      case 'accept':
      case 'retry':
        throw new Error(`bug: a ${decision.kind} decision is carried out by its finder`);
    }
  }

  /** A failure in a few words for a retry line: `HTTP 500 from api.example.com`, `network error from claude`. */
  private cause(error: HostError): string {
    const resolved = this.ctx.plan.resolved[this.seat].base_url;
    let host: string = this.agent;
    if (typeof resolved === 'string') {
      try {
        host = new URL(resolved).host;
      } catch {
        // Not a URL: the agent's name says enough.
      }
    }
    if (error.status !== undefined) return `HTTP ${error.status} from ${host}`;
    const what = error.type === 'rate_limit' ? 'rate limit' : error.type === 'network' ? 'network error' : `${error.type} error`;
    return `${what} from ${host}`;
  }

  private async onReply(d: Dispatched, response: AdapterSuccess): Promise<Step> {
    const { plan } = this.ctx;
    this.ctx.breaker.consecutive_failures = 0;
    for (const w of response.warnings ?? []) this.warn(`${this.agent}: ${w}`);
    if (response.stop === 'truncated') {
      this.finish(d, 'rejected', 'reply cut at the output limit');
      const budget = plan.maxOutputTokens[this.seat] ?? null;
      const fix = agentSettingFix(plan.agents[this.seat], 'max_output_tokens', budget ? budget * 2 : 32_000);
      return this.conclude(decide({ kind: 'truncated', outputBudget: budget, fix }, this.state), d);
    }
    // Edit blocks are written against the document in this attempt's frame (a repair's may differ from the pass's).
    const framed = this.mode.editFormat === 'edits' && this.attempt.documentText !== this.sent.text;
    const verdict = this.mode.accept(response.reply, {
      sent: promptDocument(framed ? this.attempt.documentText : this.sent.text),
      sentWords: framed ? undefined : this.sent.words,
      original: plan.input.text,
      delimiters: this.delimiters,
      maxBytes: plan.maxBytes,
      summaryRatio: plan.summaryRatio,
      summaryMinWords: plan.summaryMinWords,
    });
    if (verdict.ok) {
      this.replyEdits = verdict.edits ?? null;
      const failed = verdict.edits?.failures.length ?? 0;
      if (failed > 0) {
        const edits = verdict.edits as EditReport;
        const decision = decide({ kind: 'failed-blocks', reason: editsReason(edits) }, this.state);
        if (decision.kind !== 'accept') return this.onFailedBlocks(d, verdict.document, edits, decision);
      }
      // The blocks that applied stand and the result is checked like any document.
      const fixes = failed > 0 ? [...verdict.fixes, `left out ${failed} edit block${failed === 1 ? '' : 's'} that did not apply`] : verdict.fixes;
      for (const f of fixes) if (!this.closing.fixes.includes(f)) this.closing.fixes.push(f);
      return this.onDocument(d, verdict.document, verdict.words);
    }
    const found: Finding = verdict.kind === 'empty' ? { kind: 'empty' } : { kind: 'unusable', reason: verdict.reason };
    const decision = decide(found, this.state);
    const reason =
      decision.kind === 'resend'
        ? 'empty reply; the same prompt is sent once more'
        : verdict.kind === 'empty'
          ? 'the reply was empty again after a resend'
          : verdict.reason;
    this.finish(d, 'rejected', reason);
    return this.conclude(decision, d);
  }

  /**
   * Edit blocks that did not apply: the document with those that did is kept, and one repair
   * shows the failed blocks with the closest lines of that document.
   */
  private onFailedBlocks(d: Dispatched, text: string, edits: EditReport, decision: Decision): Step {
    const file = this.ctx.rec.artifact(`${d.start.stem}.${this.ctx.plan.input.ext}`, text);
    const { added, resolved } = diffNotes(this.sent.notes, scan(this.ctx.plan, text));
    this.finish(d, 'rejected', editsReason(edits), { file, text, added, resolved });
    return this.conclude(decision, d, { file, text }, edits.failures);
  }

  /** A reply that reads as a document: accepted, unless a check finds something against it. */
  private async onDocument(d: Dispatched, text: string, words: number): Promise<Step> {
    const { plan } = this.ctx;
    const file = this.ctx.rec.artifact(`${d.start.stem}.${plan.input.ext}`, text);
    const notes = scan(plan, text);
    const { added, resolved } = diffNotes(this.sent.notes, notes);
    const ledger = passLedger(plan, this.ctx.origins, this.sent, { text, notes }, resolved);
    const doc = { file, text, added, resolved, ledger };
    Object.assign(this.closing, {
      notes_after: notes.length,
      added: added.length,
      resolved: resolved.length,
      acted: ledger.acted,
      dismissed: ledger.dismissed,
      document: file,
      document_sha256: this.shaOf(file, text),
    });
    const reply = { file, text };
    /** A finding against the reply: the record says why, and the table decides what follows. */
    const reject = (found: Finding & { reason: string }, recorded: typeof doc | Omit<typeof doc, 'ledger'> = doc): Step => {
      this.finish(d, 'rejected', found.reason, recorded);
      return this.conclude(decide(found, this.state), d, reply);
    };
    // A reply that breaks the document's structure could hide notes (an unclosed fence makes the rest code).
    const broken = this.structure(text);
    if (broken) return reject({ kind: 'broken', reason: broken });
    // A JSON or YAML document must still parse: its parser's one-line error goes back in a repair.
    const unparsed = parseError(text, plan.input.syntax);
    if (unparsed) return reject({ kind: 'unparsed', reason: unparsed }, { file, text, added, resolved });
    const left = this.final ? finalPassNotes(notes) : null;
    if (left) return reject({ kind: 'notes-left', reason: left, count: notes.length });
    const lint = lintAdded(plan, text, added);
    if (lint.length > 0 && plan.lint === 'repair') {
      const found: Finding = { kind: 'lint', reason: lintRepairReason(lint) };
      const decision = decide(found, this.state);
      if (decision.kind !== 'accept') return reject(found);
    }
    if (this.final) {
      const dismissed = dismissedContested(ledger);
      if (dismissed.length > 0) {
        const which = `${dismissed.length} [CONTESTED] note${dismissed.length === 1 ? '' : 's'} of the document you were sent (${noteLines(dismissed)})`;
        const decision = decide({ kind: 'dismissed', policy: plan.dismissals ?? 'allow', which }, this.state);
        if (decision.kind === 'repair') {
          this.dismissalRepaired = true;
          this.finish(d, 'rejected', decision.reason, doc);
          return this.conclude(decision, d, reply);
        }
        if (decision.kind === 'accept' && decision.warning) this.warn(decision.warning);
      }
    }
    const checked = await this.runChecks(d, text);
    if (checked?.kind === 'interrupted') {
      this.finish(d, 'rejected', 'interrupted while its checks ran', doc);
      return this.close('interrupted', { kind: 'interrupted' });
    }
    if (checked?.kind === 'error') return reject({ kind: 'check-error', message: checked.message, reason: checked.message });
    if (checked?.kind === 'failed') {
      const found: Finding & { reason: string } = {
        kind: 'check',
        reason: checkRepairReason(checked.failed),
        summary: checkRepairSummary(checked.failed),
        finalReason: finalCheckReason(checked.failed, this.closing.repairs),
        warning: `the document of pass ${this.pass} still fails ${checked.failed.map((f) => checkName(f)).join(', ')} after its repairs: kept, and checked again on the next pass`,
      };
      const decision = decide(found, this.state);
      if (decision.kind !== 'accept') {
        this.quotedChecks = checked.failed;
        return reject(found);
      }
      if (decision.warning) this.warn(decision.warning);
    }
    const failsChecks = checked?.kind === 'failed';
    if (plan.lint !== 'off') this.keepLint(lint);
    await this.warmNext(notes.length > 0 || failsChecks);
    this.finish(d, 'completed', null, doc);
    this.ctx.deps.accepted?.(this.sentIds);
    Object.assign(this.closing, { misplaced_after: notes.filter((n) => !n.canonical).length, words_after: words });
    return this.close('completed', { kind: 'accepted', current: { text, file, notes, words, ...(failsChecks ? { failsChecks } : {}) } });
  }

  /**
   * Runs the plan's check commands on the reply's document, each on a fresh copy of it in the
   * run folder (`<stem>.check.<ext>`: a check that rewrites its file changes neither the reply
   * nor what the next check sees), each one's output kept as `<stem>.check-<n>.log` and cited
   * in the dispatch record. Null when the run has none or every one passed; a check that could
   * not start or ran out of time stops at once.
   */
  private async runChecks(
    d: Dispatched,
    text: string,
  ): Promise<{ kind: 'failed'; failed: FailedCheck[] } | { kind: 'error'; message: string } | { kind: 'interrupted' } | null> {
    const { plan, rec, deps } = this.ctx;
    const checks = plan.checks ?? [];
    if (checks.length === 0) return null;
    if (!deps.check) throw new Error('bug: the plan has checks but the engine was given no check runner');
    const records: CheckRunRecord[] = [];
    this.replyChecks = records;
    const failed: FailedCheck[] = [];
    for (const [i, check] of checks.entries()) {
      const file = resolve(rec.path(rec.artifact(`${d.start.stem}.check.${plan.input.ext}`, text)));
      const run = await deps.check(check, file);
      const output = rec.artifact(`${d.start.stem}.check-${i + 1}.log`, run.output);
      records.push({
        command: check.command,
        status: run.status,
        exit_code: run.exitCode,
        duration_ms: run.durationMs,
        timeout_s: check.timeout_s,
        output: { path: output, sha256: this.shaOf(output, run.output) },
        dropped_bytes: run.droppedBytes,
      });
      const line = `pass ${this.pass}: ${checkName(check)}: ${run.status}${run.exitCode === null ? '' : ` (exit ${run.exitCode})`} in ${run.durationMs} ms`;
      rec.log(line);
      if (deps.signal.aborted) return { kind: 'interrupted' };
      if (run.status === 'not-started' || run.status === 'timed-out') return { kind: 'error', message: checkErrorMessage(check, run) };
      if (run.status === 'failed') failed.push({ command: check.command, exitCode: run.exitCode, output: repairOutput(rec.redact(run.output), file) });
    }
    return failed.length > 0 ? { kind: 'failed', failed } : null;
  }

  /**
   * An accepted reply after which another pass runs (not the final pass, and notes left, a
   * check failing or --all-passes): that pass's CLI is started now, to load while this pass is recorded.
   */
  private async warmNext(goesOn: boolean): Promise<void> {
    const { plan, deps } = this.ctx;
    if (!deps.warm || this.final || (!goesOn && !plan.allPasses)) return;
    // A budget may refuse the next dispatch: then it is no certain thing.
    if (this.ctx.budgets.some((b) => hasLimit(b.limits))) return;
    deps.warm.start(plan.agents[seatForPass(plan, this.pass + 1)]);
    await nextTurn();
  }

  /**
   * Lint problems of an accepted document are kept with a warning, repairs or not: lint is
   * advisory (its content rules are heuristics), while the protocol's hard rules (the final
   * pass, the document's structure) are enforced above.
   */
  private keepLint(lint: LintFinding[]): void {
    this.closing.lint = lint;
    if (lint.length === 0) return;
    this.ctx.rec.log(`pass ${this.pass}: kept ${lint.length} lint problem(s) in the notes it added: ${lintLines(lint)}`);
    this.ctx.deps.events({ type: 'lint-warning', pass: this.pass, agent: this.agent, problems: lint });
  }

  /**
   * Why the reply breaks the document's structure, or null: a fence left open where the sent
   * document closed all of them (every pass), code blocks changed (the final pass, which may
   * only resolve notes).
   */
  private structure(text: string): string | null {
    // No fence and no indented line on either side: there is no code whose structure could break.
    if (!mayHoldCode(this.sent.text) && !mayHoldCode(text)) return null;
    const { syntax, mdx } = readingOf(this.ctx.plan);
    const problems = structureProblems(this.sent.text, text, syntax, { mdx }).filter((p) => structureCounts(p, this.final));
    return problems.length ? problems.map((p) => p.reason).join(' ') : null;
  }

  /** A warning of this pass: kept in its record and run.log, and shown as a progress line. */
  private warn(warning: string): void {
    const line = this.ctx.rec.redact(warning.replace(/\s+/g, ' ').trim());
    if (this.closing.warnings.includes(line)) return;
    this.closing.warnings.push(line);
    this.ctx.rec.log(`pass ${this.pass}: warning: ${line}`);
    this.ctx.deps.events({ type: 'warning', pass: this.pass, message: line });
  }

  private retry(d: Dispatched): void {
    this.closing.retries += 1;
    this.attempt = { ...this.attempt, kind: 'retry', index: this.closing.retries, parentId: d.start.id };
  }

  /** `reason` is what the agent is sent; `summary`, why in a few words, is what progress shows. */
  private repair(d: Dispatched, rejected: { text: string; file: string }, reason: string, summary: string, failures?: EditReport['failures']): 'again' {
    this.closing.repairs += 1;
    const built = buildRepairPrompt(this.ctx.plan.templates, { ...this.promptInput, rejected: rejected.text, reason, failures, checks: this.quotedChecks });
    this.quotedChecks = [];
    this.delimiters = built.delimiters;
    this.attempt = {
      kind: 'repair',
      index: this.closing.repairs,
      parentId: d.start.id,
      prompt: built.prompt,
      stablePrefixLines: built.stablePrefixLines,
      documentFile: rejected.file,
      documentText: rejected.text,
      repairError: reason,
    };
    this.ctx.deps.events({ type: 'retry-scheduled', pass: this.pass, agent: this.agent, why: 'repair', message: reason, summary, waitMs: 0 });
    return 'again';
  }

  private close(status: PassStatus, outcome: PassOutcome): PassOutcome {
    this.closing.status = status;
    if (outcome.kind === 'failed') this.closing.errors.push(`${outcome.type}: ${outcome.message}`);
    if (outcome.kind === 'not-converged') this.closing.errors.push(outcome.reason);
    const accepted = outcome.kind === 'accepted';
    const notConverged = outcome.kind === 'not-converged';
    const { rec } = this.ctx;
    rec.closePass(this.index, this.closing, {
      passesRun: accepted || notConverged ? this.pass : null,
      notesLeft: accepted ? outcome.current.notes.length : notConverged ? outcome.notes.length : rec.manifest.notes_left,
      passMs: this.ctx.deps.clock.now() - this.started,
      runMs: this.ctx.runMs(),
    });
    return outcome;
  }
}

/** The pass record's `lens`: present only on a reviewer pass that has one. */
function lensField(plan: RunPlan, pass: number): { lens?: string } {
  const lens = lensForPass(plan.lenses, pass);
  return lens ? { lens: lens.name } : {};
}
