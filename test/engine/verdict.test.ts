import { describe, expect, it } from 'vitest';
import { type Decision, decide, type Finding, MAX_TRANSIENT_RETRIES, type PassState } from '../../src/engine/verdict.js';

const state = (over: Partial<PassState> = {}): PassState => ({
  agent: 'rev',
  final: false,
  repairs: 0,
  maxRepairs: 1,
  transient: 0,
  emptyResent: false,
  dismissalRepaired: false,
  sentNotes: 0,
  ...over,
});

const agentError = (over: Partial<Extract<Finding, { kind: 'agent-error' }>> = {}): Finding => ({
  kind: 'agent-error',
  type: 'network',
  message: 'connection reset',
  transient: true,
  breakerOpen: false,
  breakerThreshold: 3,
  ...over,
});

interface Row {
  row: string;
  found: Finding;
  state?: Partial<PassState>;
  expected: Decision['kind'] | Partial<Decision>;
  /** The decision is exactly `expected`, nothing more (no warning, say). */
  exact?: boolean;
}

const spent = { repairs: 1, maxRepairs: 1 };
const CHECK: Finding = { kind: 'check', reason: 'fix MD022', summary: 'check failed', finalReason: 'still fails', warning: 'kept' };

// The README's table "Replies, retries and repairs", one row of it per case, as a pure function.
const ROWS: Row[] = [
  { row: 'empty reply: the same prompt once more', found: { kind: 'empty' }, expected: 'resend' },
  {
    row: 'empty again after its resend: repaired from the input',
    found: { kind: 'empty' },
    state: { emptyResent: true },
    expected: { kind: 'repair', from: 'input' },
  },
  {
    row: 'a summary: repaired from the input',
    found: { kind: 'unusable', reason: 'a summary' },
    expected: { kind: 'repair', from: 'input', reason: 'your previous reply was rejected: a summary' },
  },
  {
    row: 'still a summary on a pass that is not final: failed, malformed',
    found: { kind: 'unusable', reason: 'a summary' },
    state: spent,
    expected: { kind: 'failed', type: 'malformed', message: 'rev gave no usable document after 1 repair: a summary' },
  },
  {
    row: 'still unusable on the final pass with notes in its input: not-converged',
    found: { kind: 'unusable', reason: 'a summary' },
    state: { ...spent, final: true, sentNotes: 2 },
    expected: { kind: 'not-converged', reason: 'no usable reply on the final pass: a summary' },
  },
  {
    row: 'still unusable on a final pass whose input had no notes: failed',
    found: { kind: 'unusable', reason: 'a summary' },
    state: { ...spent, final: true, sentNotes: 0 },
    expected: { kind: 'failed', type: 'malformed' },
  },
  {
    row: 'notes left on the final pass: repaired from the reply',
    found: { kind: 'notes-left', reason: '1 note left', count: 1 },
    state: { final: true },
    expected: { kind: 'repair', from: 'reply' },
  },
  {
    row: 'notes left after the repair: not-converged',
    found: { kind: 'notes-left', reason: '1 note left', count: 1 },
    state: { ...spent, final: true },
    expected: { kind: 'not-converged', reason: '1 note left' },
  },
  {
    row: 'edit blocks that did not apply: repaired from the reply',
    found: { kind: 'failed-blocks', reason: '2 blocks' },
    expected: { kind: 'repair', from: 'reply', reason: '2 blocks' },
  },
  {
    row: 'edit blocks still failing after the repair: the others stand',
    found: { kind: 'failed-blocks', reason: '2 blocks' },
    state: spent,
    expected: 'accept',
  },
  {
    row: 'a fence left open: repaired from the reply',
    found: { kind: 'broken', reason: 'fence open' },
    expected: { kind: 'repair', from: 'reply', reason: 'fence open' },
  },
  {
    row: 'still broken on the final pass: not-converged',
    found: { kind: 'broken', reason: 'fence open' },
    state: { ...spent, final: true },
    expected: 'not-converged',
  },
  {
    row: 'still broken on a pass that is not final: failed, malformed',
    found: { kind: 'broken', reason: 'fence open' },
    state: spent,
    expected: { kind: 'failed', type: 'malformed', message: 'rev gave no usable document after 1 repair(s): fence open' },
  },
  {
    row: 'a document that does not parse: repaired',
    found: { kind: 'unparsed', reason: 'line 2' },
    expected: { kind: 'repair', from: 'reply', reason: 'the reply does not parse: line 2' },
  },
  {
    row: 'still unparsable on the final pass: not-converged',
    found: { kind: 'unparsed', reason: 'line 2' },
    state: { ...spent, final: true },
    expected: 'not-converged',
  },
  {
    row: 'still unparsable before the final pass: failed',
    found: { kind: 'unparsed', reason: 'line 2' },
    state: spent,
    expected: { kind: 'failed', type: 'malformed' },
  },
  {
    row: 'reply cut at the output limit: failed at once',
    found: { kind: 'truncated', outputBudget: 4096, fix: 'add max_output_tokens: 8192' },
    expected: { kind: 'failed', type: 'truncated' },
  },
  { row: 'rate limit, network error, 5xx: retried', found: agentError(), expected: 'retry' },
  {
    row: 'at most 2 transient retries',
    found: agentError(),
    state: { transient: MAX_TRANSIENT_RETRIES },
    expected: { kind: 'failed', type: 'network', message: 'connection reset' },
  },
  { row: 'auth and the like fail at once', found: agentError({ type: 'auth', transient: false }), expected: { kind: 'failed', type: 'auth' } },
  {
    row: 'a timeout fails at once, with the way to allow more time',
    found: agentError({ type: 'timeout', transient: false }),
    expected: { kind: 'failed', type: 'timeout' },
  },
  { row: 'an open breaker ends the pass', found: agentError({ breakerOpen: true }), expected: { kind: 'failed', type: 'breaker' } },
  {
    row: 'a quota: failed, with its reset time',
    found: { kind: 'quota', message: 'limit', resetsAt: '2026-12-02T04:20:00Z' },
    expected: { kind: 'failed', type: 'quota', resetsAt: '2026-12-02T04:20:00Z' },
  },
  { row: 'interrupted', found: { kind: 'interrupted' }, expected: 'interrupted' },
  { row: 'lint problems under lint: repair: repaired', found: { kind: 'lint', reason: 'lint' }, expected: { kind: 'repair', from: 'reply' } },
  { row: 'lint problems with no repair left: kept', found: { kind: 'lint', reason: 'lint' }, state: spent, expected: 'accept' },
  {
    row: 'dismissals allowed',
    found: { kind: 'dismissed', policy: 'allow', which: '1 note' },
    state: { final: true },
    expected: { kind: 'accept' },
    exact: true,
  },
  {
    row: 'dismissals under repair: repaired from the input',
    found: { kind: 'dismissed', policy: 'repair', which: '1 note' },
    state: { final: true },
    expected: { kind: 'repair', from: 'input' },
  },
  {
    row: 'dismissals are repaired once at most, then warned about',
    found: { kind: 'dismissed', policy: 'repair', which: '1 note' },
    state: { final: true, dismissalRepaired: true },
    expected: { kind: 'accept', warning: 'the final pass dismissed 1 note: deleted, the text each refers to left as it was' },
  },
  {
    row: 'dismissals under warn: a warning',
    found: { kind: 'dismissed', policy: 'warn', which: '1 note' },
    state: { final: true },
    expected: { kind: 'accept', warning: 'the final pass dismissed 1 note: deleted, the text each refers to left as it was' },
  },
  { row: 'a failing check: repaired from the reply', found: CHECK, expected: { kind: 'repair', from: 'reply', reason: 'fix MD022', summary: 'check failed' } },
  {
    row: 'a failing check with no repair left, before the final pass: kept with a warning',
    found: CHECK,
    state: spent,
    expected: { kind: 'accept', warning: 'kept' },
    exact: true,
  },
  {
    row: 'a failing check with no repair left on the final pass: not converged',
    found: CHECK,
    state: { ...spent, final: true },
    expected: { kind: 'not-converged', reason: 'still fails' },
    exact: true,
  },
  {
    row: 'a check that could not start or ran out of time: failed, no repair',
    found: { kind: 'check-error', message: 'check `vale {file}` could not start' },
    expected: { kind: 'failed', type: 'check', message: 'check `vale {file}` could not start' },
    exact: true,
  },
  { row: 'a document with nothing against it: accepted', found: { kind: 'document' }, expected: 'accept' },
];

describe('the decision table', () => {
  it.each(ROWS)('$row', ({ found, state: over, expected, exact }) => {
    const decision = decide(found, state(over));
    if (typeof expected === 'string') expect(decision.kind).toBe(expected);
    else if (exact) expect(decision).toEqual(expected);
    else expect(decision).toMatchObject(expected);
  });

  it('every finding with a repair left asks for a repair, never gives up, unless repairs do not apply to it', () => {
    const repairable: Finding[] = [
      { kind: 'unusable', reason: 'x' },
      { kind: 'broken', reason: 'x' },
      { kind: 'unparsed', reason: 'x' },
      { kind: 'notes-left', reason: 'x', count: 1 },
      { kind: 'failed-blocks', reason: 'x' },
      { kind: 'lint', reason: 'x' },
      CHECK,
    ];
    for (const found of repairable) {
      for (const final of [false, true]) {
        expect(decide(found, state({ final, repairs: 1, maxRepairs: 2 })).kind, `${found.kind} final=${final}`).toBe('repair');
        expect(decide(found, state({ final, repairs: 2, maxRepairs: 2 })).kind, `${found.kind} final=${final}`).not.toBe('repair');
      }
    }
  });

  it('only a final pass ends not-converged', () => {
    const findings: Finding[] = [
      { kind: 'unusable', reason: 'x' },
      { kind: 'broken', reason: 'x' },
      { kind: 'unparsed', reason: 'x' },
      { kind: 'truncated', outputBudget: null, fix: 'x' },
      agentError({ transient: false }),
    ];
    for (const found of findings) expect(decide(found, state({ ...spent, final: false, sentNotes: 3 })).kind).not.toBe('not-converged');
  });
});
