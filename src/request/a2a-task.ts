/**
 * bounce as an A2A agent (`bounce serve --a2a`): one task is one refine of the document it
 * carries, built and run as `bounce refine -` builds and runs one (buildPlan, the live gate
 * when config asks, engineDeps, runDocument), so the config, the budgets and the run
 * folder's lock are the same. Pass events go out as the task's status updates; the converged
 * document and the run's summary (refine's --json object) come back as its artifacts. A
 * cancelled task aborts the run, which ends `interrupted` and resumable.
 */
import { basename, dirname, extname } from 'node:path';
import { Readable } from 'node:stream';
import type { Artifact, Message, Part } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { z } from 'zod';
import { cacheFolderOf } from '../cache/folder.js';
import { withOwnConfigInUse } from '../config/in-use.js';
import type { EngineEvent } from '../engine/deps.js';
import { runDocument } from '../engine/run-document.js';
import { isBounceError } from '../errors.js';
import type { Io } from '../io.js';
import { a2aCore, a2aServer } from '../kit/a2a-sdk.js';
import { plural } from '../plural.js';
import { syntaxForPath } from '../protocol/scanner.js';
import { runLocationFlags, stepPlace } from '../store/run-location.js';
import { runJson } from '../ui/run-summary.js';
import { engineDeps } from './engine-deps.js';
import { assertGate } from './gate-request.js';
import { agentsCalled, buildPlan, gateOn, type RefineOptions } from './refine-request.js';

/** What a task may say besides its document, in a data part `{ bounce: {...} }`. */
export const TaskOptionsSchema = z
  .object({
    passes: z.number().int().positive().optional(),
    goal: z.string().min(1).optional(),
    name: z.string().min(1).optional(),
  })
  .strict();

/** Where the served agent runs its refines: the folder and environment `bounce serve` was started in, its --config and --runs-dir. */
export interface ServeBase {
  cwd: string;
  env: NodeJS.ProcessEnv;
  config?: string;
  runsDir?: string;
  reviewer?: string;
  composer?: string;
  /** One line per task begun and ended, for the server's log. */
  log(line: string): void;
}

/** The document a task carries: a file part (its bytes inline) or a text part; its name from the file's. */
export type TaskDocument = { ok: true; bytes: Buffer; filename: string | null; options: z.infer<typeof TaskOptionsSchema> } | { ok: false; reason: string };

export function taskDocument(message: Message): TaskDocument {
  let options: z.infer<typeof TaskOptionsSchema> = {};
  let doc: { bytes: Buffer; filename: string | null } | null = null;
  for (const part of message.parts) {
    const c = part.content;
    if (c?.$case === 'data' && c.value && typeof c.value === 'object' && 'bounce' in c.value) {
      const parsed = TaskOptionsSchema.safeParse((c.value as { bounce: unknown }).bounce);
      if (!parsed.success) {
        const i = parsed.error.issues[0];
        return { ok: false, reason: `the task's bounce options are not valid: ${i?.path.join('.') || 'bounce'}: ${i?.message}; send passes, goal or name` };
      }
      options = parsed.data;
    } else if (doc === null && c?.$case === 'raw') doc = { bytes: Buffer.from(c.value), filename: part.filename || null };
    else if (doc === null && c?.$case === 'text') doc = { bytes: Buffer.from(c.value, 'utf8'), filename: part.filename || null };
    else if (doc === null && c?.$case === 'url')
      return { ok: false, reason: 'a file part by URL is not fetched: send the document as a text part or a file part with its bytes' };
  }
  if (doc === null) return { ok: false, reason: 'the task carries no document: send it as a text part or a file part' };
  return { ok: true, ...doc, options };
}

const text = (value: string, mediaType = 'text/plain'): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType });
const data = (value: Record<string, unknown>): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** A pass event in one line, as a status update says it; null for the ones not worth a line (each dispatch). */
export function eventLine(e: EngineEvent): string | null {
  switch (e.type) {
    case 'run-started':
      return e.resumedAfter === null
        ? `run ${e.runId} started: ${plural(e.totalPasses, 'pass', 'passes')}`
        : `run ${e.runId} resumed after pass ${e.resumedAfter}`;
    case 'pass-started':
      return `pass ${e.pass}/${e.totalPasses}: ${e.role} ${e.agent}, ${plural(e.notesIn, 'note')} in`;
    case 'pass-finished':
      return `pass ${e.pass}: ${e.outcome}${e.notesAfter === null ? '' : `, ${plural(e.notesAfter, 'note')} left`}`;
    case 'retry-scheduled':
      return `pass ${e.pass}: ${e.summary ?? e.message}; ${e.why === 'repair' ? `sending a repair request to ${e.agent}` : 'sending again'}`;
    case 'warning':
      return `pass ${e.pass}: warning: ${e.message}`;
    case 'run-finished':
      return `run ${e.runId} ${e.status}`;
    default:
      return null;
  }
}

/** The served agent: each task a refine, each cancel an abort of its run; `stopAll` aborts every run and waits for them to end. */
export function refineExecutor(base: ServeBase): AgentExecutor & { stopAll(): Promise<void> } {
  const running = new Map<string, { stop: AbortController; done: Promise<void> }>();
  return {
    async execute(ctx, bus) {
      const stop = new AbortController();
      // Tasks run at once: each names in its hints the config it read.
      const done = withOwnConfigInUse(() => refineTask(ctx, bus, base, stop.signal)).finally(() => {
        running.delete(ctx.taskId);
        bus.finished();
      });
      running.set(ctx.taskId, { stop, done });
      await done;
    },
    async stopAll() {
      const all = [...running.values()];
      for (const r of all) r.stop.abort();
      await Promise.allSettled(all.map((r) => r.done));
    },
    async cancelTask(taskId, bus) {
      const run = running.get(taskId);
      // A run in progress ends as interrupted, and its task as cancelled (refineTask says so).
      if (run) return run.stop.abort();
      bus.finished();
    },
  };
}

async function refineTask(ctx: RequestContext, bus: ExecutionEventBus, base: ServeBase, signal: AbortSignal): Promise<void> {
  const { TaskState } = a2aCore();
  const { AgentEvent } = a2aServer();
  const at = (): string => new Date().toISOString();
  const status = (state: number, line: string | null, extra: Part[] = [], metadata?: Record<string, unknown>): void =>
    bus.publish(
      AgentEvent.statusUpdate({
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        status: {
          state,
          message:
            line === null
              ? undefined
              : {
                  messageId: `${ctx.taskId}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
                  contextId: ctx.contextId,
                  taskId: ctx.taskId,
                  role: 2,
                  parts: [text(line), ...extra],
                  metadata: undefined,
                  extensions: [],
                  referenceTaskIds: [],
                },
          timestamp: at(),
        },
        metadata,
      }),
    );
  const artifact = (a: Omit<Artifact, 'metadata' | 'extensions' | 'description'> & { description: string }): void =>
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        artifact: { ...a, metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
  bus.publish(
    AgentEvent.task({
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: at() },
      artifacts: [],
      history: [ctx.userMessage],
      metadata: undefined,
    }),
  );
  const doc = taskDocument(ctx.userMessage);
  if (!doc.ok) {
    base.log(`task ${ctx.taskId}: rejected: ${doc.reason}`);
    return status(TaskState.TASK_STATE_REJECTED, doc.reason);
  }
  const name = doc.options.name ?? (doc.filename ? basename(doc.filename, extname(doc.filename)) : 'a2a');
  const opts: RefineOptions = {
    doc: '-',
    json: true,
    quiet: true,
    name,
    ...(doc.filename && extname(doc.filename) ? { syntax: syntaxForPath(doc.filename) } : {}),
    ...(doc.options.passes !== undefined ? { passes: doc.options.passes } : {}),
    ...(doc.options.goal !== undefined ? { goal: doc.options.goal } : {}),
    ...(base.config ? { config: base.config } : {}),
    ...(base.runsDir ? { runsDir: base.runsDir } : {}),
    ...(base.reviewer ? { reviewer: base.reviewer } : {}),
    ...(base.composer ? { composer: base.composer } : {}),
  };
  const io: Io = {
    cwd: base.cwd,
    env: base.env,
    stdout: { write: () => true },
    stderr: { write: () => true },
    stdin: Readable.from([doc.bytes]),
    signal,
  };
  status(TaskState.TASK_STATE_WORKING, `refining ${name}`);
  let result: Awaited<ReturnType<typeof runDocument>>;
  try {
    const built = await buildPlan(opts, io, { checkAgents: true });
    if (gateOn(opts, built.config)) await assertGate(agentsCalled(built.plan), built.plan.templates, io, { probe: built.probe, quiet: true });
    const deps = engineDeps(io, true, built.probe, built.plan, cacheFolderOf(opts.cache, io, opts.config));
    const shown = deps.events;
    deps.events = (e) => {
      shown?.(e);
      const line = eventLine(e);
      if (line !== null) status(TaskState.TASK_STATE_WORKING, line, [data({ event: e })], 'runId' in e ? { run_id: e.runId } : undefined);
    };
    base.log(`task ${ctx.taskId}: refining ${name}`);
    result = await runDocument(built.plan, deps);
  } catch (err) {
    // A problem found before the run (the document, the config, an agent not ready): the refine's one line and its fix.
    const line = isBounceError(err) ? `${err.message}${err.hint ? `: ${err.hint}` : ''}` : `bounce failed: ${err instanceof Error ? err.message : String(err)}`;
    base.log(`task ${ctx.taskId}: failed: ${line}`);
    return status(signal.aborted ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED, line);
  }
  const summary = runJson(result, stepPlace({ runsDir: dirname(result.runDir), config: opts.config }, io));
  if (result.document !== null)
    artifact({
      artifactId: 'document',
      name: `${name}.${result.manifest.input.ext ?? 'md'}`,
      description: 'the converged document',
      parts: [text(result.document, 'text/markdown')],
    });
  artifact({
    artifactId: 'summary',
    name: 'summary',
    description: "the run's summary (bounce refine --json)",
    parts: [data(summary as unknown as Record<string, unknown>)],
  });
  base.log(`task ${ctx.taskId}: run ${result.runId} ${result.status}`);
  if (result.status === 'converged') return status(TaskState.TASK_STATE_COMPLETED, `converged: run ${result.runId}`, [], { run_id: result.runId });
  if (result.status === 'interrupted')
    return status(
      TaskState.TASK_STATE_CANCELED,
      `cancelled: run ${result.runId} is interrupted; bounce resume ${result.runId}${runLocationFlags({ runsDir: dirname(result.runDir), config: opts.config }, io)} finishes it`,
      [],
      {
        run_id: result.runId,
      },
    );
  return status(TaskState.TASK_STATE_FAILED, `${result.status}: ${result.error?.message ?? summary.next ?? 'see bounce show'}`, [], { run_id: result.runId });
}
