/**
 * The Dispatcher of `bounce replay`: each dispatch is answered from the recorded run, matched
 * by pass, attempt (kind and index) and the prompt's sha256 with its frame nonces set aside.
 * No agent is called. A dispatch the recording has no twin for, or whose prompt differs, is a
 * drift: the replay stops there (the dispatch fails with error type `drift`), unless
 * `acceptDrift` lets a differing prompt take the recorded reply anyway.
 */
import { putNoncesBack, setNoncesAside } from '../cache/key.js';
import type { AdapterSuccess } from '../contract/contract.js';
import type { DispatchResult, Dispatcher } from '../engine/deps.js';
import type { AttemptKind } from '../vocabulary.js';
import { callKey, normalisedPrompt, type RecordedCall } from './recorded.js';

/** A replay answers with no tokens spent. */
const FREE = { input_tokens: 0, output_tokens: 0, cost_usd: 0, provider_reported: false } as const;

/** Where a replay left the recording: the attempt, the prompt sent, and the recorded one (null: no such dispatch was recorded). */
export interface Drift {
  pass: number;
  kind: AttemptKind;
  index: number;
  prompt: string;
  recorded: RecordedCall | null;
  /** The recorded reply was used anyway (`--accept-drift`). */
  accepted: boolean;
}

/** "pass 2 (attempt: repair 1)": an attempt in the words messages use. */
export const attemptName = (d: Pick<Drift, 'pass' | 'kind' | 'index'>): string => `pass ${d.pass} (attempt: ${d.kind} ${d.index})`;

export function driftMessage(d: Drift, run: string): string {
  if (!d.recorded) return `${attemptName(d)} was not dispatched in run ${run}: the replay took another path than the recording`;
  return `the prompt of ${attemptName(d)} differs from the one recorded in run ${run}`;
}

export function replayDispatcher(
  calls: ReadonlyMap<string, RecordedCall>,
  run: string,
  opts: { acceptDrift: boolean; onDrift: (d: Drift) => void },
): Dispatcher {
  return async (_agent, request, callOpts) => {
    const started = Date.now();
    const kind = request.attempt?.kind ?? 'pass';
    const index = request.attempt?.index ?? 0;
    const base = { stderr: '', exitCode: null };
    const sent = await (callOpts.ready ?? Promise.resolve()).then(
      () => true,
      () => false,
    );
    const ended = { ...base, durationMs: Date.now() - started };
    if (!sent) return { ...ended, stdout: '', ok: false, error: { type: 'interrupted', message: 'interrupted' } };
    const recorded = calls.get(callKey(request.pass, kind, index)) ?? null;
    const { sha256, nonces } = normalisedPrompt(request.prompt);
    const drifted = !recorded || recorded.promptSha256 !== sha256;
    if (drifted) {
      const drift: Drift = { pass: request.pass, kind, index, prompt: request.prompt, recorded, accepted: Boolean(recorded && opts.acceptDrift) };
      opts.onDrift(drift);
      if (!drift.accepted) return { ...ended, stdout: '', ok: false, error: { type: 'drift', message: driftMessage(drift, run) } };
    }
    return answer(recorded as RecordedCall, nonces, drifted, ended);
  };
}

/** The recorded answer as an adapter would give it, the reply's nonces those of this prompt. */
function answer(
  recorded: RecordedCall,
  nonces: readonly string[],
  drift: boolean,
  base: { stderr: string; exitCode: null; durationMs: number },
): DispatchResult {
  const replay = { of: recorded.id, run: recorded.run, ...(drift ? { drift: true as const } : {}) };
  const a = recorded.answer;
  if (!a.ok) return { ...base, stdout: '', ok: false, error: a.error, replay };
  const reply = putNoncesBack(setNoncesAside(a.response.reply, recorded.nonces), nonces);
  const response: AdapterSuccess = { ...a.response, reply, usage: { ...FREE } };
  return { ...base, stdout: `${JSON.stringify(response)}\n`, ok: true, response, replay };
}
