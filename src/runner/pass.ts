import type { HostError } from '../adapters/host.js';
import type { AdapterSuccess, Role } from '../adapters/contract.js';
import { diffNotes, scanNotes, type Note } from '../protocol/scanner.js';
import { sha256 } from '../store/hash.js';
import { writeManifest, type PassRecord } from '../store/manifest.js';
import { backoffMs, sleep } from './backoff.js';
import { dispatch, finishDispatch, type Attempt, type Dispatched } from './dispatch.js';
import { countFailure, openPassRecord, summariseNotes } from './pass-record.js';
import { roleForPass } from './plan.js';
import { buildPassPrompt, buildRepairPrompt, promptDocument, type Delimiters, type PassPromptInput } from './prompt.js';
import { countWords, replyMode, type ReplyMode } from './reply.js';
import { BREAKER_THRESHOLD, type RunState } from './state.js';

export type PassOutcome =
  | { kind: 'accepted'; text: string; file: string; notes: Note[] }
  | { kind: 'not-converged'; notes: Note[]; reason: string }
  | { kind: 'failed'; type: string; message: string }
  | { kind: 'interrupted' };

/** What one dispatch led to: the pass is over, or another attempt follows. */
type Step = PassOutcome | 'again';

/** Transient errors are retried with backoff; everything else fails the pass at once. */
const TRANSIENT = new Set(['rate_limit', 'network', 'provider']);
/** A provider error is transient only when it is a 5xx (or carries no HTTP status). */
const isTransient = (e: HostError): boolean => TRANSIENT.has(e.type) && (e.type !== 'provider' || e.status === undefined || e.status >= 500);
const MAX_TRANSIENT_RETRIES = 2;

export function scan(state: RunState, text: string): Note[] {
  return scanNotes(text, { syntax: state.plan.input.syntax, markers: state.plan.markers });
}

/**
 * One pass: dispatch, validate, then retry, repair, accept or fail per the policy table
 * (README "Replies, retries and repairs"), recording every step.
 */
export function runPass(state: RunState, pass: number): Promise<PassOutcome> {
  return new PassRun(state, pass).run();
}

class PassRun {
  private readonly role: Role;
  private readonly final: boolean;
  private readonly sent: RunState['current'];
  private readonly notesBefore: Note[];
  private readonly rec: PassRecord;
  private readonly started = Date.now();
  private readonly mode: ReplyMode;
  private readonly promptInput: PassPromptInput;
  private attempt: Attempt;
  private delimiters: Delimiters;
  private emptyResent = false;
  private transient = 0;

  constructor(
    private readonly state: RunState,
    private readonly pass: number,
  ) {
    const { plan } = state;
    this.role = roleForPass(pass);
    this.final = pass === plan.passes;
    this.sent = state.current;
    this.notesBefore = scan(state, this.sent.text);
    state.progress.passStarted(pass, plan.passes, this.role, this.agent, this.notesBefore.length);
    this.rec = openPassRecord(state, pass, this.notesBefore.length);
    this.mode = replyMode(plan.replyMode);
    this.promptInput = { document: this.sent.text, pass, totalPasses: plan.passes, role: this.role, final: this.final, markers: plan.markers };
    const first = buildPassPrompt(plan.templates, this.promptInput);
    this.delimiters = first.delimiters;
    this.attempt = {
      pass,
      role: this.role,
      final: this.final,
      kind: 'pass',
      index: 0,
      parentId: null,
      prompt: first.prompt,
      documentFile: this.sent.file,
      documentText: this.sent.text,
      repairError: null,
    };
  }

  private get agent(): string {
    return this.state.plan.agents[this.role].spec;
  }

  async run(): Promise<PassOutcome> {
    for (;;) {
      if (this.state.io.signal.aborted) return this.close('interrupted', { kind: 'interrupted' });
      const d = await dispatch(this.state, this.rec, this.attempt);
      const step = d.host.ok ? this.onReply(d, d.host.response) : await this.onFailure(d, d.host.error);
      if (step !== 'again') return step;
    }
  }

  private async onFailure(d: Dispatched, error: HostError): Promise<Step> {
    if (error.type === 'interrupted') {
      finishDispatch(this.state, d, { status: 'error', reason: 'interrupted by the user' });
      return this.close('interrupted', { kind: 'interrupted' });
    }
    finishDispatch(this.state, d, { status: error.type === 'timeout' ? 'timeout' : 'error', reason: `${error.type}: ${error.message}` });
    if (countFailure(this.state, error)) {
      return this.close('failed', {
        kind: 'failed',
        type: 'breaker',
        message: `circuit breaker opened after ${BREAKER_THRESHOLD} consecutive agent failures (last: ${error.type}: ${error.message})`,
      });
    }
    if (!isTransient(error) || this.transient >= MAX_TRANSIENT_RETRIES)
      return this.close('failed', { kind: 'failed', type: error.type, message: error.message });
    this.transient += 1;
    const wait = backoffMs(this.transient, error.retry_after_ms, this.state.retryBaseMs);
    this.state.progress.note(`pass ${this.pass}: ${error.type} from ${this.agent}; retrying in ${(wait / 1000).toFixed(1)}s`);
    if (!(await sleep(wait, this.state.io.signal))) return this.close('interrupted', { kind: 'interrupted' });
    this.retry(d);
    return 'again';
  }

  private onReply(d: Dispatched, response: AdapterSuccess): Step {
    const { plan } = this.state;
    this.state.manifest.breaker.consecutive_failures = 0;
    if (response.stop === 'truncated') {
      finishDispatch(this.state, d, { status: 'rejected', reason: 'reply cut at the output limit' });
      const budget = plan.maxOutputTokens[this.role];
      const message = `${this.agent} stopped at its output limit${budget ? ` (${budget} tokens)` : ''}, so its reply is a cut-off document: raise max_output_tokens for this agent in bounce.config.yaml`;
      return this.close('failed', { kind: 'failed', type: 'truncated', message });
    }
    const verdict = this.mode.accept(response.reply, {
      sent: promptDocument(this.sent.text),
      original: plan.input.text,
      delimiters: this.delimiters,
      maxBytes: plan.maxBytes,
      summaryRatio: plan.summaryRatio,
      summaryMinWords: plan.summaryMinWords,
    });
    if (verdict.ok) {
      this.rec.fixes.push(...verdict.fixes.filter((f) => !this.rec.fixes.includes(f)));
      return this.onDocument(d, verdict.document);
    }
    if (verdict.kind === 'empty' && !this.emptyResent) {
      this.emptyResent = true;
      finishDispatch(this.state, d, { status: 'rejected', reason: 'empty reply; the same prompt is sent once more' });
      this.state.progress.note(`pass ${this.pass}: empty reply from ${this.agent}; resending`);
      this.retry(d);
      return 'again';
    }
    return this.onUnusable(d, verdict.kind === 'empty' ? 'the reply was empty again after a resend' : verdict.reason);
  }

  /** A reply that reads as a document: accepted, unless the final pass left notes in it. */
  private onDocument(d: Dispatched, text: string): Step {
    const file = this.state.folder.write(`${d.start.stem}.${this.state.plan.input.ext}`, text);
    const notes = scan(this.state, text);
    const { added, resolved } = diffNotes(this.notesBefore, notes);
    const document = { file, text };
    const counts = { notes_after: notes.length, added: added.length, resolved: resolved.length, document: file, document_sha256: sha256(text) };
    if (!(this.final && notes.length > 0)) {
      finishDispatch(this.state, d, { status: 'completed', reason: null, document, added, resolved });
      Object.assign(this.rec, counts, { misplaced_after: notes.filter((n) => !n.canonical).length, words_after: countWords(text) });
      return this.close('completed', { kind: 'accepted', text, file, notes });
    }
    const reason = `${notes.length} note${notes.length === 1 ? '' : 's'} left on the final pass, which must resolve every note and add none (${summariseNotes(notes)})`;
    finishDispatch(this.state, d, { status: 'rejected', reason, document, added, resolved });
    Object.assign(this.rec, counts);
    if (this.rec.repairs < this.state.plan.maxRepairs) return this.repair(d, document, reason);
    return this.close('failed', { kind: 'not-converged', notes, reason });
  }

  /** A summary, a malformed or a twice-empty reply: repaired while repairs remain. */
  private onUnusable(d: Dispatched, reason: string): Step {
    finishDispatch(this.state, d, { status: 'rejected', reason });
    // Such a reply is no document to correct: the repair revises the pass's input again.
    if (this.rec.repairs < this.state.plan.maxRepairs) return this.repair(d, this.sent, `your previous reply was rejected: ${reason}`);
    if (this.final && this.notesBefore.length > 0)
      return this.close('failed', { kind: 'not-converged', notes: this.notesBefore, reason: `no usable reply on the final pass: ${reason}` });
    const repairs = `${this.rec.repairs} repair${this.rec.repairs === 1 ? '' : 's'}`;
    return this.close('failed', { kind: 'failed', type: 'malformed', message: `${this.agent} gave no usable document after ${repairs}: ${reason}` });
  }

  private retry(d: Dispatched): void {
    this.rec.retries += 1;
    this.attempt = { ...this.attempt, kind: 'retry', index: this.rec.retries, parentId: d.start.id };
  }

  private repair(d: Dispatched, rejected: { text: string; file: string }, reason: string): 'again' {
    this.rec.repairs += 1;
    const built = buildRepairPrompt(this.state.plan.templates, { ...this.promptInput, rejected: rejected.text, reason });
    this.delimiters = built.delimiters;
    this.attempt = {
      ...this.attempt,
      kind: 'repair',
      index: this.rec.repairs,
      parentId: d.start.id,
      prompt: built.prompt,
      documentFile: rejected.file,
      documentText: rejected.text,
      repairError: reason,
    };
    this.state.progress.note(`pass ${this.pass}: ${reason}; sending a repair request to ${this.agent}`);
    return 'again';
  }

  private close(status: PassRecord['status'], outcome: PassOutcome): PassOutcome {
    const rec = this.rec;
    rec.status = status;
    rec.duration_ms = Date.now() - this.started;
    rec.finished_at = new Date().toISOString();
    if (outcome.kind === 'failed') rec.errors.push(`${outcome.type}: ${outcome.message}`);
    if (outcome.kind === 'not-converged') rec.errors.push(outcome.reason);
    writeManifest(this.state.folder.dir, this.state.manifest);
    return outcome;
  }
}
