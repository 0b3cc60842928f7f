/**
 * The pass's decision table: what bounce does with each thing a dispatch can come back with
 * (README "Replies, retries and repairs"). Pure: the pass finds, this module decides, and the
 * pass only dispatches, records and emits. One row per case of `Finding`; `giveUp` is the
 * one place that tells not-converged from failed.
 */
import { plural } from '../plural.js';
import type { HostErrorType, RunErrorType } from '../vocabulary.js';

/** At most this many transient retries (rate limit, network, 5xx) per pass. */
export const MAX_TRANSIENT_RETRIES = 2;

/** What the pass has spent so far and what kind of pass it is. */
export interface PassState {
  /** The agent's spec, for messages. */
  agent: string;
  final: boolean;
  repairs: number;
  maxRepairs: number;
  /** Transient retries spent. */
  transient: number;
  /** True once an empty reply was answered by sending the same prompt again. */
  emptyResent: boolean;
  /** True once a final pass's dismissals were repaired (they are repaired once at most). */
  dismissalRepaired: boolean;
  /** Notes of the document the pass was sent: the one the run keeps if this pass gives up. */
  sentNotes: number;
}

/** What the pass found in one dispatch's result, one case per row of the table. */
export type Finding =
  | { kind: 'interrupted' }
  | { kind: 'quota'; message: string; resetsAt: string | null }
  /** `timeoutFix`: how to give the agent more time, for a timeout's message. */
  | { kind: 'agent-error'; type: HostErrorType; message: string; transient: boolean; breakerOpen: boolean; breakerThreshold: number; timeoutFix?: string }
  /** `fix`: the setting that raises the output limit, for the message. */
  | { kind: 'truncated'; outputBudget: number | null; fix: string }
  | { kind: 'empty' }
  /** A summary, a malformed reply, or one empty again after its resend: no document to correct. */
  | { kind: 'unusable'; reason: string }
  /** Edit blocks that did not apply; the others stand. */
  | { kind: 'failed-blocks'; reason: string }
  /** A fence left open, or code blocks changed on the final pass. */
  | { kind: 'broken'; reason: string }
  /** A JSON or YAML document that no longer parses. */
  | { kind: 'unparsed'; reason: string }
  /** Notes added that break the lint rules, under `lint: repair`. */
  | { kind: 'lint'; reason: string }
  /** [CONTESTED] notes the final pass deleted with their text left as it was. */
  | { kind: 'dismissed'; policy: 'allow' | 'warn' | 'repair'; which: string }
  /** Notes in the final pass's reply. */
  | { kind: 'notes-left'; reason: string; count: number }
  /** Check commands (config `checks:`) that failed on the reply: `reason` for the repair, `summary` for progress, `final` for a final pass that gives up. */
  | { kind: 'check'; reason: string; summary: string; finalReason: string; warning: string }
  /** A check command that could not start or ran out of time: the run stops, no repair can help. */
  | { kind: 'check-error'; message: string }
  /** A document with nothing against it. */
  | { kind: 'document' };

/** Where a repair starts from: the rejected reply (a document to correct) or the pass's input again. */
export type RepairFrom = 'reply' | 'input';

export type Decision =
  /** The reply stands (for failed blocks: those that applied); a warning may go with it. */
  | { kind: 'accept'; warning?: string }
  /** The same prompt once more. */
  | { kind: 'resend' }
  /** The same prompt after a backoff. */
  | { kind: 'retry' }
  /** `reason` is what the agent is sent; `summary`, why in a few words, is what progress shows. */
  | { kind: 'repair'; from: RepairFrom; reason: string; summary: string }
  /** The final pass ends with notes or a broken document: exit 1, the run keeps the pass's input. */
  | { kind: 'not-converged'; reason: string }
  | { kind: 'failed'; type: RunErrorType; message: string; resetsAt?: string | null }
  | { kind: 'interrupted' };

const repairsLeft = (s: PassState): boolean => s.repairs < s.maxRepairs;

/** The one decision for each finding. */
export function decide(found: Finding, s: PassState): Decision {
  switch (found.kind) {
    case 'interrupted':
      return { kind: 'interrupted' };
    case 'quota': {
      // A usage or subscription limit: retrying cannot help before it resets, and the agent is not failing.
      const when = found.resetsAt ? ` (it resets at ${found.resetsAt})` : '';
      return { kind: 'failed', type: 'quota', message: `${s.agent} hit its usage limit${when}: ${found.message}`, resetsAt: found.resetsAt };
    }
    case 'agent-error':
      return onAgentError(found, s);
    case 'truncated': {
      const limit = found.outputBudget ? ` (${plural(found.outputBudget, 'token')})` : '';
      const message = `${s.agent} stopped at its output limit${limit}, so its reply is a cut-off document: raise max_output_tokens: ${found.fix}`;
      return { kind: 'failed', type: 'truncated', message };
    }
    case 'empty':
      if (!s.emptyResent) return { kind: 'resend' };
      return decide({ kind: 'unusable', reason: 'the reply was empty again after a resend' }, s);
    case 'unusable':
      // Such a reply is no document to correct: the repair revises the pass's input again.
      if (repairsLeft(s))
        return { kind: 'repair', from: 'input', reason: `your previous reply was rejected: ${found.reason}`, summary: 'the reply was not a usable document' };
      return giveUp(found, s);
    case 'failed-blocks':
      // With no repair left, the blocks that applied stand and the result is checked like any document.
      return repairsLeft(s) ? { kind: 'repair', from: 'reply', reason: found.reason, summary: 'edit blocks did not apply' } : { kind: 'accept' };
    case 'broken':
      return repairsLeft(s) ? { kind: 'repair', from: 'reply', reason: found.reason, summary: "the reply broke the document's structure" } : giveUp(found, s);
    case 'unparsed':
      return repairsLeft(s)
        ? { kind: 'repair', from: 'reply', reason: `the reply does not parse: ${found.reason}`, summary: 'the reply does not parse' }
        : giveUp(found, s);
    case 'lint':
      // Lint is advisory: with no repair left the problems are kept with a warning (the pass keeps them).
      return repairsLeft(s) ? { kind: 'repair', from: 'reply', reason: found.reason, summary: 'notes added break lint rules' } : { kind: 'accept' };
    case 'dismissed':
      return onDismissed(found, s);
    case 'notes-left':
      return repairsLeft(s)
        ? { kind: 'repair', from: 'reply', reason: found.reason, summary: `${plural(found.count, 'note')} left on the final pass` }
        : giveUp(found, s);
    case 'check':
      // The final pass must pass every check to converge; before it, a document still failing is kept with a warning and checked again next pass.
      if (repairsLeft(s)) return { kind: 'repair', from: 'reply', reason: found.reason, summary: found.summary };
      return s.final ? { kind: 'not-converged', reason: found.finalReason } : { kind: 'accept', warning: found.warning };
    case 'check-error':
      return { kind: 'failed', type: 'check', message: found.message };
    case 'document':
      return { kind: 'accept' };
  }
}

function onAgentError(found: Extract<Finding, { kind: 'agent-error' }>, s: PassState): Decision {
  if (found.breakerOpen) {
    const message = `circuit breaker opened after ${found.breakerThreshold} consecutive agent failures (last: ${found.type}: ${found.message})`;
    return { kind: 'failed', type: 'breaker', message };
  }
  if (found.transient && s.transient < MAX_TRANSIENT_RETRIES) return { kind: 'retry' };
  const hint = found.type === 'timeout' && found.timeoutFix ? `: ${found.timeoutFix}` : '';
  return { kind: 'failed', type: found.type, message: `${found.message}${hint}` };
}

function onDismissed(found: Extract<Finding, { kind: 'dismissed' }>, s: PassState): Decision {
  if (found.policy === 'allow') return { kind: 'accept' };
  if (found.policy === 'repair' && !s.dismissalRepaired && repairsLeft(s)) {
    const reason = `your reply deleted ${found.which} without changing the text each refers to: decide each point in the text (revise the passage as the note argues, or state in the text why it stands), then delete the note`;
    return { kind: 'repair', from: 'input', reason, summary: `deleted ${found.which} without a change to the text each refers to` };
  }
  return { kind: 'accept', warning: `the final pass dismissed ${found.which}: deleted, the text each refers to left as it was` };
}

/**
 * A reply still bad when no repair is left. On the final pass a broken or unparsable
 * document, notes left, or (when its input had notes) an unusable reply is `not-converged`:
 * the run keeps the last accepted document and can be extended. Anything else is `failed`.
 */
function giveUp(found: Extract<Finding, { kind: 'unusable' | 'broken' | 'unparsed' | 'notes-left' }>, s: PassState): Decision {
  const after = `after ${s.repairs} repair(s)`;
  switch (found.kind) {
    case 'notes-left':
      return { kind: 'not-converged', reason: found.reason };
    case 'broken':
      if (s.final) return { kind: 'not-converged', reason: `the final pass broke the document's structure: ${found.reason}` };
      return { kind: 'failed', type: 'malformed', message: `${s.agent} gave no usable document ${after}: ${found.reason}` };
    case 'unparsed':
      if (s.final) return { kind: 'not-converged', reason: `the final pass left a document that does not parse: ${found.reason}` };
      return { kind: 'failed', type: 'malformed', message: `${s.agent} gave no document that parses ${after}: ${found.reason}` };
    case 'unusable': {
      if (s.final && s.sentNotes > 0) return { kind: 'not-converged', reason: `no usable reply on the final pass: ${found.reason}` };
      const repairs = `${s.repairs} repair${s.repairs === 1 ? '' : 's'}`;
      return { kind: 'failed', type: 'malformed', message: `${s.agent} gave no usable document after ${repairs}: ${found.reason}` };
    }
  }
}
