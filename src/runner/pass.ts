import type { HostError } from '../adapters/host.js';
import { diffNotes, scanNotes, type Note } from '../protocol/scanner.js';
import { sha256 } from '../store/hash.js';
import { writeManifest, type PassRecord } from '../store/manifest.js';
import { backoffMs, sleep } from './backoff.js';
import { dispatch, finishDispatch, type Attempt, type Dispatched } from './dispatch.js';
import { roleForPass } from './plan.js';
import { buildPassPrompt, buildRepairPrompt, promptDocument } from './prompt.js';
import { countWords, replyMode } from './reply.js';
import { BREAKER_THRESHOLD, emptyTotals, type RunState } from './state.js';

export type PassOutcome =
  | { kind: 'accepted'; text: string; file: string; notes: Note[] }
  | { kind: 'not-converged'; notes: Note[]; reason: string }
  | { kind: 'failed'; type: string; message: string }
  | { kind: 'interrupted' };

/** Transient errors are retried with backoff; everything else fails the pass at once. */
const TRANSIENT = new Set(['rate_limit', 'network', 'provider']);
/** A provider error is transient only when it is a 5xx (or carries no HTTP status). */
const isTransient = (e: HostError): boolean => TRANSIENT.has(e.type) && (e.type !== 'provider' || e.status === undefined || e.status >= 500);
const MAX_TRANSIENT_RETRIES = 2;

export function scan(state: RunState, text: string): Note[] {
  return scanNotes(text, { syntax: state.plan.input.syntax, markers: state.plan.markers });
}

function summarise(notes: Note[]): string {
  const shown = notes.slice(0, 3).map((n) => `line ${n.line}: ${n.text.slice(0, 80)}`);
  return shown.join('; ') + (notes.length > 3 ? `; and ${notes.length - 3} more` : '');
}

function openPassRecord(state: RunState, pass: number, notesBefore: number): PassRecord {
  const role = roleForPass(pass);
  const rec: PassRecord = {
    pass,
    role,
    agent: state.plan.agents[role].spec,
    final: pass === state.plan.passes,
    status: 'running',
    notes_before: notesBefore,
    notes_after: null,
    added: null,
    resolved: null,
    misplaced_after: null,
    words_before: countWords(state.current.text),
    words_after: null,
    document: null,
    document_sha256: null,
    usage: emptyTotals(),
    duration_ms: null,
    retries: 0,
    repairs: 0,
    fixes: [],
    errors: [],
    dispatches: [],
    started_at: new Date().toISOString(),
    finished_at: null,
  };
  // A pass left half-done (interrupted, crashed, failed) keeps its record; the rerun gets a new one.
  state.manifest.pass_records.push(rec);
  writeManifest(state.folder.dir, state.manifest);
  return rec;
}

/** Counts a failure toward the breaker; true when it opened. */
function countFailure(state: RunState, error: HostError): boolean {
  const b = state.manifest.breaker;
  b.consecutive_failures += 1;
  b.last_error = `${error.type}: ${error.message}`.slice(0, 500);
  if (b.consecutive_failures >= BREAKER_THRESHOLD) b.open = true;
  return b.open;
}

/**
 * One pass: dispatch, validate, repair or retry per the policy table, record. Returns
 * the accepted document or why the pass could not produce one.
 */
export async function runPass(state: RunState, pass: number): Promise<PassOutcome> {
  const { plan } = state;
  const role = roleForPass(pass);
  const agent = plan.agents[role];
  const final = pass === plan.passes;
  const sent = state.current;
  const notesBefore = scan(state, sent.text);
  state.progress.passStarted(pass, plan.passes, role, agent.spec, notesBefore.length);
  const rec = openPassRecord(state, pass, notesBefore.length);
  const started = Date.now();
  const mode = replyMode(plan.replyMode);
  const promptInput = { document: sent.text, pass, totalPasses: plan.passes, role, final, markers: plan.markers };
  const first = buildPassPrompt(plan.templates, promptInput);
  let attempt: Attempt = { pass, role, final, kind: 'pass', index: 0, parentId: null, prompt: first.prompt, documentFile: sent.file, documentText: sent.text, repairError: null };
  let delimiters = first.delimiters;
  let emptyResent = false;
  let transient = 0;

  const close = (status: PassRecord['status'], outcome: PassOutcome): PassOutcome => {
    rec.status = status;
    rec.duration_ms = Date.now() - started;
    rec.finished_at = new Date().toISOString();
    if (outcome.kind === 'failed') rec.errors.push(`${outcome.type}: ${outcome.message}`);
    if (outcome.kind === 'not-converged') rec.errors.push(outcome.reason);
    writeManifest(state.folder.dir, state.manifest);
    return outcome;
  };
  const retry = (d: Dispatched): void => {
    rec.retries += 1;
    attempt = { ...attempt, kind: 'retry', index: rec.retries, parentId: d.start.id };
  };
  const repair = (d: Dispatched, rejected: { text: string; file: string }, reason: string): void => {
    rec.repairs += 1;
    const built = buildRepairPrompt(plan.templates, { ...promptInput, rejected: rejected.text, reason });
    delimiters = built.delimiters;
    attempt = { ...attempt, kind: 'repair', index: rec.repairs, parentId: d.start.id, prompt: built.prompt, documentFile: rejected.file, documentText: rejected.text, repairError: reason };
    state.progress.note(`pass ${pass}: ${reason}; sending a repair request to ${agent.spec}`);
  };

  for (;;) {
    if (state.io.signal.aborted) return close('interrupted', { kind: 'interrupted' });
    const d = await dispatch(state, rec, attempt);
    if (!d.host.ok) {
      const error = d.host.error;
      if (error.type === 'interrupted') {
        finishDispatch(state, d, { status: 'error', reason: 'interrupted by the user' });
        return close('interrupted', { kind: 'interrupted' });
      }
      finishDispatch(state, d, { status: error.type === 'timeout' ? 'timeout' : 'error', reason: `${error.type}: ${error.message}` });
      if (countFailure(state, error)) {
        return close('failed', { kind: 'failed', type: 'breaker', message: `circuit breaker opened after ${BREAKER_THRESHOLD} consecutive agent failures (last: ${error.type}: ${error.message})` });
      }
      if (isTransient(error) && transient < MAX_TRANSIENT_RETRIES) {
        transient += 1;
        const wait = backoffMs(transient, error.retry_after_ms, state.retryBaseMs);
        state.progress.note(`pass ${pass}: ${error.type} from ${agent.spec}; retrying in ${(wait / 1000).toFixed(1)}s`);
        if (!(await sleep(wait, state.io.signal))) return close('interrupted', { kind: 'interrupted' });
        retry(d);
        continue;
      }
      return close('failed', { kind: 'failed', type: error.type, message: error.message });
    }
    state.manifest.breaker.consecutive_failures = 0;
    const response = d.host.response;
    if (response.stop === 'truncated') {
      finishDispatch(state, d, { status: 'rejected', reason: 'reply cut at the output limit' });
      const budget = plan.maxOutputTokens[role];
      return close('failed', {
        kind: 'failed',
        type: 'truncated',
        message: `${agent.spec} stopped at its output limit${budget ? ` (${budget} tokens)` : ''}, so its reply is a cut-off document: raise max_output_tokens for this agent in bounce.config.yaml`,
      });
    }
    const verdict = mode.accept(response.reply, {
      sent: promptDocument(sent.text),
      original: plan.input.text,
      delimiters,
      maxBytes: plan.maxBytes,
      summaryRatio: plan.summaryRatio,
      summaryMinWords: plan.summaryMinWords,
    });
    if (!verdict.ok && verdict.kind === 'empty' && !emptyResent) {
      emptyResent = true;
      finishDispatch(state, d, { status: 'rejected', reason: 'empty reply; the same prompt is sent once more' });
      state.progress.note(`pass ${pass}: empty reply from ${agent.spec}; resending`);
      retry(d);
      continue;
    }
    if (verdict.ok) {
      const file = state.folder.write(`${d.start.stem}.${plan.input.ext}`, verdict.document);
      const notes = scan(state, verdict.document);
      const { added, resolved } = diffNotes(notesBefore, notes);
      const document = { file, text: verdict.document };
      rec.fixes.push(...verdict.fixes.filter((f) => !rec.fixes.includes(f)));
      if (!(final && notes.length > 0)) {
        finishDispatch(state, d, { status: 'completed', reason: null, document, added, resolved });
        Object.assign(rec, {
          notes_after: notes.length,
          added: added.length,
          resolved: resolved.length,
          misplaced_after: notes.filter((n) => !n.canonical).length,
          words_after: countWords(verdict.document),
          document: file,
          document_sha256: sha256(verdict.document),
        });
        close('completed', { kind: 'accepted', text: verdict.document, file, notes });
        return { kind: 'accepted', text: verdict.document, file, notes };
      }
      const reason = `${notes.length} note${notes.length === 1 ? '' : 's'} left on the final pass, which must resolve every note and add none (${summarise(notes)})`;
      finishDispatch(state, d, { status: 'rejected', reason, document, added, resolved });
      Object.assign(rec, { notes_after: notes.length, added: added.length, resolved: resolved.length, document: file, document_sha256: sha256(verdict.document) });
      if (rec.repairs < plan.maxRepairs) {
        repair(d, document, reason);
        continue;
      }
      return close('failed', { kind: 'not-converged', notes, reason });
    }
    const reason = verdict.kind === 'empty' ? 'the reply was empty again after a resend' : verdict.reason;
    finishDispatch(state, d, { status: 'rejected', reason });
    if (rec.repairs < plan.maxRepairs) {
      // A summary or a broken reply is no document to correct: the repair revises the pass's input again.
      repair(d, sent, `your previous reply was rejected: ${reason}`);
      continue;
    }
    if (final && notesBefore.length > 0) return close('failed', { kind: 'not-converged', notes: notesBefore, reason: `no usable reply on the final pass: ${reason}` });
    return close('failed', { kind: 'failed', type: 'malformed', message: `${agent.spec} gave no usable document after ${rec.repairs} repair${rec.repairs === 1 ? '' : 's'}: ${reason}` });
  }
}
