/**
 * Side dispatches: one-off agent calls outside the reviewer/composer passes (a run's judge,
 * a grader of its findings, the live gate's fixture). Each goes the way a pass's dispatch
 * goes: through the run's dispatcher (the adapter host, or an adapter in-process), with a
 * deadline, transient retries with backoff, a breaker, the run's budgets, and, when a run
 * keeps it, its own record, prompt and reply files in the run folder under its role
 * (docs/architecture.md, "Side dispatches").
 *
 * A caller says what a usable reply is (`read`); a reply that is not one is repaired once
 * (the repair prompt opens with the wording of prompts/repair.md), and what the caller gets
 * back is the value read from the reply, or why there is none.
 */
import { ulid } from 'ulid';
import { type AdapterRequest, CONTRACT_VERSION } from '../contract/contract.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import type { PriceOverrides } from '../prices.js';
import { type Settled, settleDispatch } from '../engine/settle.js';
import { packageTemplate } from '../prompt-files.js';
import { backoffMs, nextTurn } from '../engine/backoff.js';
import { BUDGET_ERROR, type BudgetHold, type BudgetAccount, estimateDispatch } from '../engine/budget.js';
import type { Clock } from '../engine/clock.js';
import type { DispatchResult, Dispatcher } from '../engine/deps.js';
import { BREAKER_THRESHOLD, isTransient } from '../engine/pass.js';
import { MAX_TRANSIENT_RETRIES } from '../engine/verdict.js';
import type { SideStart } from '../store/dispatch-record.js';
import type { RunRecorder } from '../store/recorder.js';
import type { AttemptKind, CostSource, RunErrorType, SideRole } from '../vocabulary.js';

/** What a reply reads as: the caller's value, or why it is malformed (sent back in the repair). */
export type SideRead<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Consecutive failed calls of one context; at BREAKER_THRESHOLD it opens and the context calls no agent again. */
export interface SideBreaker {
  consecutiveFailures: number;
  open: boolean;
  lastError: string | null;
}

export function closedBreaker(): SideBreaker {
  return { consecutiveFailures: 0, open: false, lastError: null };
}

/** Where side dispatches go and what they share: one per run (or per live gate). */
export interface SideContext {
  dispatch: Dispatcher;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  /** Base delay of transient retries in ms. */
  retryBaseMs: number;
  /** The run that keeps the records and files; null: nothing is written (the live gate). */
  rec: RunRecorder | null;
  /** The request's run id, pass and total passes (a run's last pass; the gate's own id and 1 of 1). */
  runId: string;
  pass: number;
  totalPasses: number;
  /** Budgets every call must be admitted by and is charged to (a run's own, a batch's); none: no limit. */
  budgets: readonly BudgetAccount[];
  prices?: PriceOverrides;
  /** Bound on a reply in bytes (config max_bytes). */
  maxBytes: number;
  /** Aborted when the caller is done: a CLI still winding down is killed. */
  release?: AbortSignal;
  breaker: SideBreaker;
}

/** One side dispatch: who, what prompt, what its record says, and what a usable reply is. */
export interface SideCall<T> {
  role: SideRole;
  agent: ResolvedAgent;
  agentVersion: string | null;
  /** Artifact stem: `<stem>.prompt.md`, `<stem>.reply.txt`; retries and repairs add `.retry-<k>`, `.repair-<k>`. */
  stem: string;
  prompt: string;
  /** The record's `request.goal`: what the agent is asked, in one sentence. */
  goal: string;
  /** The record's `expected_output.contract`: the reply expected. */
  contract: string;
  /** Run-folder files the agent was shown (the first is the record's document); ignored without a recorder. */
  documents: readonly { file: string; text: string }[];
  timeoutMs: number;
  maxOutputTokens: number | null;
  /** Reads a reply; a malformed one is repaired `maxRepairs` times (default 1). */
  read(reply: string): SideRead<T>;
  maxRepairs?: number;
}

/** What a side dispatch spent, all its attempts together. */
export interface SideSpend {
  durationMs: number;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  costSource: CostSource | null;
  model: string | null;
}

export type SideOutcome<T> = { ids: string[]; spend: SideSpend; reply: string | null } & (
  | { ok: true; value: T }
  | {
      ok: false;
      /** `malformed` (no usable reply after the repairs), `budget`, `breaker`, `interrupted`, or the agent's error type. */
      type: RunErrorType;
      message: string;
    }
);

/** The repair's opening: prompts/repair.md's own first line, so every repair of bounce is worded alike. */
export function repairHeading(): string {
  return packageTemplate('repair').split('\n')[0] ?? 'REPAIR: your previous reply was rejected and must be corrected.';
}

/** A repair of a side dispatch: the heading and the reason, then the prompt it answered, sent again whole. */
export function sideRepairPrompt(prompt: string, reason: string, reply: string): string {
  const quoted = reply.replace(/\0/g, '').trim().split('\n').slice(0, 5).join('\n');
  return `${repairHeading()}\n\nReason: ${reason.replace(/\s+/g, ' ').trim()}\n\nYour previous reply began:\n${quoted}\n\nAnswer the request below again.\n\n${prompt}`;
}

interface Attempt {
  kind: AttemptKind;
  index: number;
  parentId: string | null;
  prompt: string;
  repairError: string | null;
}

/** Runs one side call to its end: a value, or why there is none. Never throws for an agent's failure. */
export async function sideDispatch<T>(ctx: SideContext, call: SideCall<T>): Promise<SideOutcome<T>> {
  const ids: string[] = [];
  const spend: SideSpend = { durationMs: 0, inputTokens: null, outputTokens: null, costUsd: null, costSource: null, model: null };
  const maxRepairs = call.maxRepairs ?? 1;
  let attempt: Attempt = { kind: 'pass', index: 0, parentId: null, prompt: call.prompt, repairError: null };
  let transient = 0;
  let repairs = 0;
  let lastReply: string | null = null;
  const fail = (type: RunErrorType, message: string): SideOutcome<T> => ({ ok: false, type, message, ids, spend, reply: lastReply });
  for (;;) {
    if (ctx.signal.aborted) return fail('interrupted', 'interrupted by the user');
    if (ctx.breaker.open) return fail('breaker', `${call.agent.spec} failed ${BREAKER_THRESHOLD} times in a row (last: ${ctx.breaker.lastError ?? 'unknown'})`);
    const holds = admit(ctx, call, attempt.prompt);
    if (typeof holds === 'string') return fail(BUDGET_ERROR, holds);
    const id = ulid(ctx.clock.now());
    ids.push(id);
    const sent = await send(ctx, call, attempt, id, holds, spend);
    const { host } = sent;
    if (host.ok) {
      ctx.breaker.consecutiveFailures = 0;
      const reply = host.response.reply;
      lastReply = reply;
      const read: SideRead<T> =
        host.response.stop === 'truncated'
          ? { ok: false, reason: 'the reply was cut at the output limit' }
          : reply.trim() === ''
            ? { ok: false, reason: 'the reply was empty' }
            : Buffer.byteLength(reply) > ctx.maxBytes
              ? { ok: false, reason: `the reply is over max_bytes (${ctx.maxBytes} bytes)` }
              : call.read(reply);
      finish(ctx, sent, read.ok ? 'completed' : 'rejected', read.ok ? null : read.reason);
      if (read.ok) return { ok: true, value: read.value, ids, spend, reply };
      if (repairs >= maxRepairs) return fail('malformed', `${call.agent.spec}: ${read.reason}${maxRepairs > 0 ? ' (still so after a repair)' : ''}`);
      repairs += 1;
      attempt = { kind: 'repair', index: repairs, parentId: id, prompt: sideRepairPrompt(call.prompt, read.reason, reply), repairError: read.reason };
      continue;
    }
    const error = host.error;
    finish(ctx, sent, error.type === 'timeout' ? 'timeout' : 'error', `${error.type}: ${error.message}`);
    if (error.type === 'interrupted') return fail('interrupted', 'interrupted by the user');
    const b = ctx.breaker;
    b.consecutiveFailures += 1;
    b.lastError = `${error.type}: ${error.message}`.slice(0, 500);
    if (b.consecutiveFailures >= BREAKER_THRESHOLD) b.open = true;
    if (error.type === 'quota' || !isTransient(error) || transient >= MAX_TRANSIENT_RETRIES || b.open)
      return fail(error.type, `${call.agent.spec}: ${error.message}`);
    transient += 1;
    if (!(await ctx.clock.sleep(backoffMs(transient, error.retry_after_ms, ctx.retryBaseMs), ctx.signal)))
      return fail('interrupted', 'interrupted by the user');
    attempt = { ...attempt, kind: 'retry', index: transient, parentId: id };
  }
}

/** Every budget's hold on the call, or the first refusal in words. */
function admit<T>(ctx: SideContext, call: SideCall<T>, prompt: string): { account: BudgetAccount; hold: BudgetHold }[] | string {
  const estimate = estimateDispatch({
    prompt,
    document: '',
    outputBudget: call.maxOutputTokens,
    model: call.agent.options.model ?? null,
    prices: ctx.prices,
  });
  for (const ledger of ctx.budgets) {
    const refused = ledger.admit(estimate);
    if (refused) return refused;
  }
  return ctx.budgets.map((account) => ({ account, hold: account.reserve(estimate) }));
}

const stemOf = (stem: string, a: Attempt): string => (a.kind === 'pass' ? stem : `${stem}.${a.kind}-${a.index}`);

/** Records the start (when a run keeps it), calls the agent once the record is down, keeps the reply and charges the budgets. */
async function send<T>(
  ctx: SideContext,
  call: SideCall<T>,
  attempt: Attempt,
  id: string,
  holds: { account: BudgetAccount; hold: BudgetHold }[],
  spend: SideSpend,
): Promise<Sent> {
  const now = ctx.clock.now();
  const request: AdapterRequest = {
    contract_version: CONTRACT_VERSION,
    dispatch_id: id,
    run_id: ctx.runId,
    pass: ctx.pass,
    total_passes: ctx.totalPasses,
    // The contract knows two roles: a side dispatch reads and answers, as a reviewer does, and revises nothing.
    role: 'reviewer',
    final: false,
    prompt: attempt.prompt,
    options: call.agent.options,
    deadline: new Date(now + call.timeoutMs).toISOString(),
    ...(attempt.repairError ? { repair_error: attempt.repairError } : {}),
    attempt: { kind: attempt.kind, index: attempt.index },
  };
  let open: () => void = () => {};
  let callOff: (err: unknown) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    open = resolve;
    callOff = reject;
  });
  ready.catch(() => {});
  const pending = ctx.dispatch(call.agent, request, {
    timeoutMs: call.timeoutMs,
    signal: ctx.signal,
    maxOutputBytes: ctx.maxBytes * 8 + 1_000_000,
    env: ctx.env,
    ...(ctx.release ? { release: ctx.release } : {}),
    ready,
  });
  await nextTurn();
  const rec = ctx.rec;
  let start: SideStart | null = null;
  if (rec) {
    try {
      start = startOf(ctx, rec, call, attempt, id, rec.freeStem(stemOf(call.stem, attempt)), now);
    } catch (err) {
      callOff(err);
      await pending.catch(() => undefined);
      throw err;
    }
  }
  open();
  const host = await pending;
  if (rec && start) {
    const text = host.ok ? host.response.reply : host.stdout;
    if (text) rec.artifact(`${start.stem}.reply.txt`, text);
    rec.artifact(`${start.stem}.stderr.log`, host.stderr);
  }
  const model = (host.ok ? host.response.model : null) ?? call.agent.options.model ?? null;
  const settled = settleDispatch(host, model, ctx.prices, holds);
  const { usage, cost } = settled;
  spend.durationMs += host.durationMs;
  if (usage?.input_tokens != null) spend.inputTokens = (spend.inputTokens ?? 0) + usage.input_tokens;
  if (usage?.output_tokens != null) spend.outputTokens = (spend.outputTokens ?? 0) + usage.output_tokens;
  if (cost.cost_usd !== null) spend.costUsd = (spend.costUsd ?? 0) + cost.cost_usd;
  spend.costSource = spend.costSource === null || spend.costSource === cost.cost_source ? cost.cost_source : 'unknown';
  spend.model ??= model;
  return { host, start, ...settled };
}

/** One call as sent: its result, its start as recorded (null when no run keeps it), what it used and cost. */
type Sent = { host: DispatchResult; start: SideStart | null } & Settled;

function startOf<T>(ctx: SideContext, rec: RunRecorder, call: SideCall<T>, attempt: Attempt, id: string, stem: string, now: number): SideStart {
  const promptFile = rec.artifact(`${stem}.prompt.md`, attempt.prompt);
  const [first, ...others] = call.documents;
  if (!first) throw new Error('bug: a recorded side dispatch names no document');
  const facts = (f: { file: string; text: string }) => rec.factsOf(f.file);
  const start: SideStart = {
    id,
    runId: ctx.runId,
    stem,
    pass: ctx.pass,
    totalPasses: ctx.totalPasses,
    role: call.role,
    agent: call.agent,
    agentVersion: call.agentVersion,
    final: false,
    kind: attempt.kind,
    index: attempt.index,
    parentId: attempt.parentId,
    promptFile,
    documentFile: first.file,
    documentSha256: facts(first).sha256 ?? '',
    documentLines: facts(first).lines,
    inputPath: null,
    issuedAt: new Date(now),
    deadlineSeconds: Math.round(call.timeoutMs / 1000),
    maxOutputTokens: call.maxOutputTokens,
    repairError: attempt.repairError,
    goalText: call.goal,
    contract: call.contract,
    documents: others.map((d) => ({ file: d.file, sha256: facts(d).sha256 ?? '', lines: facts(d).lines })),
  };
  rec.startSide(start);
  return start;
}

function finish(ctx: SideContext, sent: Sent, status: 'completed' | 'rejected' | 'timeout' | 'error', reason: string | null): void {
  const { host, start, cost, totals } = sent;
  if (!ctx.rec || !start) return;
  ctx.rec.finishSide(
    {
      start,
      completedAt: new Date(ctx.clock.now()),
      durationMs: host.durationMs,
      status,
      reason,
      response: host.ok ? host.response : null,
      error: host.ok ? null : host.error,
      document: null,
      added: [],
      resolved: [],
      cost,
      edits: null,
      ...(host.cache ? { cache: host.cache } : {}),
      ...(host.replay ? { replay: host.replay } : {}),
    },
    totals,
  );
}
