import type { AdapterRequest, Usage } from '../../src/contract/contract.js';
import type { CallOptions, HostResult } from '../../src/contract/host.js';
import type { ResolvedAgent } from '../../src/adapters/registry.js';
import type { Clock } from '../../src/engine/clock.js';
import type { Dispatcher, EngineDeps, EngineEvent } from '../../src/engine/deps.js';
import type { RunPlan } from '../../src/engine/plan.js';
import { loadTemplates } from '../../src/engine/prompt.js';
import { sha256 } from '../../src/store/hash.js';
import type { HostErrorType } from '../../src/vocabulary.js';
import { testAgent } from './test-agent.js';

export const DOC = `# Rollout plan

We ship the feature to every user on Monday.

Rollback is manual.
`;

/** The document with one note, as a reviewer would leave it. */
export const NOTED = DOC.replace('Rollback is manual.\n', 'Rollback is manual.\n[CLARIFY] Who runs the rollback: (A) on-call, (B) the release owner?\n');

/** A plan as refine would build it, for an engine test: agents that only the fake dispatcher answers. */
export async function testPlan(runsDir: string, over: Partial<RunPlan> = {}, text = DOC): Promise<RunPlan> {
  return {
    input: { path: null, display: 'plan.md', text, bytes: Buffer.byteLength(text), sha256: sha256(text), ext: 'md', syntax: 'markdown' },
    passes: 2,
    allPasses: false,
    agents: { reviewer: testAgent({ spec: 'rev', command: 'fake-rev' }), composer: testAgent({ spec: 'com', command: 'fake-com' }) },
    agentVersions: { reviewer: '1.0', composer: '1.0' },
    resolved: { reviewer: {}, composer: {} },
    chosenBy: { reviewer: 'flag', composer: 'flag' },
    templates: await loadTemplates(),
    promptsDir: null,
    markers: ['CONTESTED', 'CLARIFY'],
    maxRepairs: 1,
    maxBytes: 1_000_000,
    timeoutMs: { reviewer: 60_000, composer: 60_000 },
    maxOutputTokens: { reviewer: null, composer: null },
    summaryRatio: 0.3,
    summaryMinWords: 50,
    output: { kind: 'run' },
    runsDir,
    name: 'plan',
    replyMode: 'document',
    lint: 'off',
    goal: null,
    context: { nonce: 'c0c0c0c0c0c0', budget: 262_144, files: [] },
    lenses: [],
    ...over,
  };
}

/** One scripted answer of the fake dispatcher. */
export type Answer =
  | { reply: string; stop?: 'complete' | 'truncated'; usage?: Partial<Usage>; model?: string | null }
  | {
      error: {
        type: Exclude<HostErrorType, 'interrupted'>;
        status?: number;
        retry_after_ms?: number;
        resets_at?: string;
      };
    }
  | ((request: AdapterRequest) => string);

/**
 * A dispatcher that answers from a script, one answer a call, and keeps every request.
 * It tests the engine's rules, not any transport: no process, no socket. Like a transport
 * it sends nothing before `ready` (CallOptions.ready) settles, and nothing if it rejects.
 */
export function fakeDispatcher(script: Answer[]): Dispatcher & { requests: AdapterRequest[] } {
  const requests: AdapterRequest[] = [];
  const dispatch = async (_agent: ResolvedAgent, request: AdapterRequest, opts: CallOptions): Promise<HostResult> => {
    if (
      opts.ready &&
      !(await opts.ready.then(
        () => true,
        () => false,
      ))
    )
      return { stdout: '', stderr: '', exitCode: null, durationMs: 0, ok: false, error: { type: 'interrupted', message: 'interrupted' } };
    requests.push(request);
    const answer = script.shift();
    if (answer === undefined) throw new Error(`the script has no answer for call ${requests.length} (pass ${request.pass}, ${request.attempt?.kind})`);
    const base = { stdout: '', stderr: `call ${requests.length}\n`, exitCode: 0, durationMs: 5 };
    const usage = { input_tokens: 10, output_tokens: 20, cost_usd: null, provider_reported: true };
    if (typeof answer === 'function')
      return { ...base, ok: true, response: { ok: true, reply: answer(request), stop: 'complete', usage, model: 'm', agent_version: '1.0' } };
    if ('error' in answer) return { ...base, ok: false, error: { message: `${answer.error.type} from the fake`, ...answer.error } };
    const response = {
      ok: true as const,
      reply: answer.reply,
      stop: answer.stop ?? 'complete',
      usage: { ...usage, ...answer.usage },
      model: answer.model === undefined ? 'm' : answer.model,
      agent_version: '1.0',
    };
    return { ...base, ok: true, response };
  };
  return Object.assign(dispatch, { requests });
}

/** A clock whose sleeps end at once (and are counted), so backoff costs no time. */
export function instantClock(): Clock & { slept: number[] } {
  const slept: number[] = [];
  return {
    slept,
    now: () => Date.now(),
    sleep: async (ms, signal) => {
      slept.push(ms);
      return !signal.aborted;
    },
  };
}

export function engineDeps(dispatch: Dispatcher, over: Partial<EngineDeps> = {}): EngineDeps & { seen: EngineEvent[] } {
  const seen: EngineEvent[] = [];
  return { dispatch, signal: new AbortController().signal, env: {}, clock: instantClock(), events: (e) => seen.push(e), seen, ...over };
}
