import { closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  buildRequest,
  buildResponse,
  type DispatchEnd,
  readRecord,
  recordAnchor,
  type DispatchStart,
  recordPath,
  renderRecord,
  type SideEnd,
  type SideStart,
} from './dispatch-record.js';
import { countLines, type Lines, lineView } from '../text/lines.js';
import { BINDING_FILE, boundFields, type Redact, renderRunBinding } from './binding.js';
import type { DispatchRecord, DispatchRequest, RecordBinding } from './record-schema.js';
import type { FinalStatus } from '../vocabulary.js';
import { redactCounting } from '../redact.js';
import { VERSION } from '../version.js';
import { siblingName, writeFileAtomic } from '../atomic.js';
import { sha256 } from './hash.js';
import { clearLeftovers, trackGroups } from './leftovers.js';
import { acquireLock, holdLock, leaveLock, lockNewFolder } from './lock.js';
import {
  type AgentRecord,
  addUsage,
  type DispatchRef,
  dispatchesInWriteOrder,
  type ForkOrigin,
  type JudgeVerdict,
  MANIFEST_FILE,
  type PassRecord,
  type RunExtension,
  type RunManifest,
  RunManifestSchema,
  readManifest,
  type UsageTotals,
} from './manifest.js';
import { cutShortExtension, reconcile } from './reconcile.js';
import { RUN_DIR_MODE, RUN_FILE_MODE } from './run-folder.js';

/**
 * The recorder is the only writer of a run's files: run.json, run.log, the dispatch
 * records and the artifacts. Every write is atomic (a rename), and they come in an order
 * that a crash between any two of them leaves a run `reopen` can make consistent again:
 *
 *   start of a dispatch:  prompt artifact -> record (pending) -> run.json (listed, pending)
 *   end of a dispatch:    reply, stderr, document artifacts -> record (outcome) -> run.json
 *
 * So a record is always at least as new as run.json: on reopen, a record run.json does not
 * list is adopted, an outcome run.json has not seen is copied into it, and a record still
 * pending becomes `error` (docs/run-folder.md, "Crashes and resume").
 */

export type WriteKind = 'folder' | 'artifact' | 'record' | 'binding' | 'manifest' | 'log';

export interface RecorderOptions {
  /** Fault injection for tests: called before every write; a throw there stands for a crash at that point. */
  beforeWrite?: (kind: WriteKind, name: string) => void;
  /** Key values that must never reach a file of the run: each is replaced by [REDACTED] wherever it would appear. */
  secrets?: readonly string[];
}

type DeepReadonly<T> = T extends (infer U)[] ? readonly DeepReadonly<U>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;
export type ManifestView = DeepReadonly<RunManifest>;

/** What a new run starts from: everything in run.json that the engine decides before pass 1. */
export type RunOpening = Pick<RunManifest, 'run_id' | 'batch_id' | 'input' | 'original' | 'passes' | 'agents' | 'evidence' | 'policy'> &
  Partial<Pick<RunManifest, 'goal' | 'context' | 'replay_of'>> & {
    createdAt: Date;
    originalText: string;
    /** The text of each context file's copy (`context` names them), written with the original. */
    contextTexts?: readonly { file: string; text: string }[];
    output: Pick<RunManifest['output'], 'target' | 'path'>;
    logLine: string;
    /** A fork's start (`bounce fork`): the passes it takes over, written with the original. */
    fork?: ForkBase;
  };

/** What a fork starts with: where from, the pass records it copies (their records linked, not copied), and their documents. */
export interface ForkBase {
  origin: ForkOrigin;
  passes: PassRecord[];
  /** The copied passes' documents, written into the fork's folder under the same names. */
  documents: readonly { file: string; text: string }[];
  /** The notes in the last copied document. */
  notesLeft: number | null;
}

/** What a resume may change of a run without changing its policy. */
export interface ResumeSettings {
  timeoutS: Record<'reviewer' | 'composer', number>;
  /** `bounce resume --passes N` (`--reviewer`, `--composer`): the run's new pass budget, agents and policy, recorded in `extensions`. */
  extension?: {
    passes: number;
    agents: Partial<Record<'reviewer' | 'composer', AgentRecord>>;
    evidence: RunManifest['evidence'];
    policy: RunManifest['policy'];
  };
}

/** What an extension replaced in run.json: enough to write run.json as it was before it. */
type ExtensionUndo = Pick<RunManifest, 'agents' | 'evidence' | 'policy' | 'passes' | 'extensions' | 'status' | 'exit_code' | 'error'>;

/**
 * run.json as it was before this session's extension: the fields it replaced restored, the
 * extension's entry and the pass records opened since (none with a dispatch yet) left out.
 */
function withoutExtension(m: RunManifest, undo: ExtensionUndo, afterPass: number): RunManifest {
  const view: RunManifest = {
    ...m,
    agents: undo.agents,
    evidence: undo.evidence,
    policy: undo.policy,
    passes: { ...m.passes, requested: undo.passes.requested },
  };
  if (undo.extensions === undefined) delete view.extensions;
  else view.extensions = undo.extensions;
  view.pass_records = m.pass_records.filter((p) => p.pass <= afterPass || p.dispatches.length > 0);
  return view;
}

/** Applies an extension to run.json in place, and records what it changed in `extensions`. */
function extend(m: RunManifest, ext: NonNullable<ResumeSettings['extension']>, at: Date): void {
  const agents: RunExtension['agents'] = {};
  for (const role of ['reviewer', 'composer'] as const) {
    const next = ext.agents[role];
    // The same agent keeps its record (what it reported so far included).
    if (!next || next.spec === m.agents[role].spec) continue;
    agents[role] = { from: m.agents[role].spec, to: next.spec };
    m.agents[role] = next;
  }
  const afterPass = Math.max(0, ...m.pass_records.filter((p) => p.status === 'completed').map((p) => p.pass));
  const entry: RunExtension = {
    at: at.toISOString(),
    status: m.status,
    after_pass: afterPass,
    passes: { from: m.passes.requested, to: ext.passes },
    agents,
    policy_version: m.policy.version,
  };
  m.extensions = [...(m.extensions ?? []), entry];
  m.passes = { ...m.passes, requested: ext.passes };
  m.evidence = ext.evidence;
  m.policy = ext.policy;
}

export type PassOpening = Pick<PassRecord, 'pass' | 'role' | 'agent' | 'final' | 'notes_before' | 'words_before' | 'lens'> & {
  /** The document the pass revises: resolved notes are cited against it. */
  input: { file: string; sha256: string };
};

/** Everything a pass learnt, handed over when it ends. */
export type PassClosing = Pick<
  PassRecord,
  | 'status'
  | 'notes_after'
  | 'added'
  | 'resolved'
  | 'acted'
  | 'dismissed'
  | 'misplaced_after'
  | 'words_after'
  | 'document'
  | 'document_sha256'
  | 'retries'
  | 'repairs'
  | 'fixes'
  | 'errors'
  | 'lint'
  | 'warnings'
>;

export interface DispatchTally {
  usage: UsageTotals | null;
  /** Whether the usage came from the provider; null when the agent reported none. */
  providerReported: boolean | null;
  model: string | null;
  agentVersion: string | null;
  breaker: RunManifest['breaker'];
}

export type RunClosing = Pick<RunManifest, 'exit_code' | 'error' | 'notes_left'> & {
  status: FinalStatus;
  output: Pick<RunManifest['output'], 'written' | 'sha256' | 'path'> | null;
};

/** What a pass's record says before the pass has learnt anything. */
export function openClosing(): PassClosing {
  return {
    status: 'running',
    notes_after: null,
    added: null,
    resolved: null,
    acted: null,
    dismissed: null,
    misplaced_after: null,
    words_after: null,
    document: null,
    document_sha256: null,
    retries: 0,
    repairs: 0,
    fixes: [],
    errors: [],
    warnings: [],
  };
}

export class RecorderCrashed extends Error {
  constructor() {
    super('the recorder stopped at an injected fault');
  }
}

const TEXTS_KEPT = 4;

export class RunRecorder {
  private readonly facts = new Map<string, { sha256: string; lines: number }>();
  /** The last few texts written, so records need not read back what was just written. */
  private readonly texts = new Map<string, string>();
  private readonly requests = new Map<string, DispatchRequest>();
  private readonly passInputs = new Map<number, { file: string; sha256: string }>();
  /** Each open dispatch's place in the chain of records, kept from its pending record to its outcome. */
  private readonly bindings = new Map<string, RecordBinding>();
  /** The sha256 of the newest file of the chain (audit/binding.yaml, then each record as written). */
  private chainTip: string | null = null;
  /**
   * This session's extension (`resume --passes N`) until its first record binds it: run.json
   * is written as it was before the extension until then, so a session that ends, is refused
   * (a budget) or is killed before its first dispatch leaves the run as it was, bound and
   * resumable, never a run.json its newest record does not bind.
   */
  private pendingExtension: { undo: ExtensionUndo; afterPass: number; tip: string | null } | null = null;
  private dead = false;
  /** processes.json names the agents' process groups while the run holds its lock (src/store/leftovers.ts). */
  private readonly untrack: () => void;
  /** run.json holds what this process last meant to write (false after a write of it failed). */
  private manifestCurrent = true;

  private constructor(
    readonly dir: string,
    private readonly m: RunManifest,
    private readonly opts: RecorderOptions,
    private readonly unlock: () => void,
  ) {
    this.untrack = trackGroups(dir);
  }

  /**
   * Creates the run folder whole or not at all: the original and the first run.json are
   * written into a hidden folder that is then renamed into place. The run's lock is written
   * there first, so the folder is never in place without it (src/store/lock.ts shownStatus).
   */
  static create(runsDir: string, o: RunOpening, opts: RecorderOptions = {}): RunRecorder {
    const step = (kind: WriteKind, name: string): void => opts.beforeWrite?.(kind, name);
    if (!existsSync(runsDir)) {
      mkdirSync(runsDir, { recursive: true });
      writeGitignore(runsDir);
    }
    const dir = join(runsDir, o.run_id);
    if (existsSync(dir)) throw new Error(`run folder ${dir} exists already`);
    const stamp = o.createdAt.toISOString();
    const manifest: RunManifest = {
      schema_version: 1,
      run_id: o.run_id,
      batch_id: o.batch_id,
      tool: { name: 'bounce', version: VERSION },
      created_at: stamp,
      updated_at: stamp,
      finished_at: null,
      status: 'running',
      exit_code: null,
      input: o.input,
      original: o.original,
      goal: o.goal ?? null,
      context: o.context ?? [],
      output: { ...o.output, written: false, sha256: null },
      passes: o.fork ? { ...o.passes, run: o.fork.origin.pass - 1 } : o.passes,
      agents: o.agents,
      evidence: o.evidence,
      policy: o.policy,
      ...(o.fork ? { forked_from: o.fork.origin } : {}),
      ...(o.replay_of ? { replay_of: o.replay_of } : {}),
      pass_records: o.fork?.passes ?? [],
      totals: { input_tokens: null, output_tokens: null, cost_usd: null, cost_source: null, duration_ms: 0, dispatches: 0 },
      breaker: { consecutive_failures: 0, open: false, last_error: null, reopened: 0 },
      redactions: 0,
      notes_left: o.fork?.notesLeft ?? null,
      error: null,
    };
    const texts = [...(o.contextTexts ?? []), ...(o.fork?.documents ?? [])];
    // A name no one can plant a symlink at in advance; mkdir never follows one anyway.
    const tmp = siblingName(dir, 'tmp');
    mkdirSync(tmp, { mode: RUN_DIR_MODE });
    let binding: string;
    try {
      lockNewFolder(tmp);
      step('artifact', o.original);
      writeFileAtomic(join(tmp, o.original), o.originalText, RUN_FILE_MODE);
      for (const c of texts) {
        step('artifact', c.file);
        mkdirSync(dirname(join(tmp, c.file)), { recursive: true, mode: RUN_DIR_MODE });
        writeFileAtomic(join(tmp, c.file), c.text, RUN_FILE_MODE);
      }
      step('manifest', MANIFEST_FILE);
      writeManifest(tmp, manifest);
      step('binding', BINDING_FILE);
      binding = writeBinding(tmp, manifest, (t) => redactCounting(t, opts.secrets ?? []).text);
      appendLog(join(tmp, 'run.log'), o.logLine);
      if (o.fork)
        appendLog(
          join(tmp, 'run.log'),
          `forked from run ${o.fork.origin.run}: passes 1 to ${o.fork.origin.pass - 1} copied, continuing at pass ${o.fork.origin.pass}`,
        );
      step('folder', o.run_id);
      renameSync(tmp, dir);
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true });
      throw err;
    }
    const rec = new RunRecorder(dir, manifest, opts, holdLock(dir));
    rec.chainTip = binding;
    rec.remember(o.original, o.originalText);
    for (const c of texts) rec.remember(c.file, c.text);
    return rec;
  }

  /** Reads run.json without taking the run: for the checks that come before a resume. */
  static read(runDir: string): RunManifest {
    return readManifest(runDir);
  }

  /**
   * Takes the run for a resume: locks it, then makes run.json and the records agree
   * (see the header) and marks a pass a crash cut short as interrupted. `locked`: the release
   * of the run's lock, which this process holds already (handOver), taken over instead.
   */
  static reopen(runDir: string, resume: ResumeSettings, opts: RecorderOptions = {}, locked?: () => void): { recorder: RunRecorder; reconciled: string[] } {
    const unlock = locked ?? acquireLock(runDir);
    try {
      const left = clearLeftovers(runDir);
      const manifest = readManifest(runDir);
      const cut = cutShortExtension(runDir, manifest);
      if (cut) rmSync(join(runDir, cut));
      const rec = new RunRecorder(runDir, manifest, opts, unlock);
      if (left.groups.length) rec.log(`resume killed the agent process groups its predecessor left running: ${left.groups.join(', ')}`);
      if (left.temps.length) rec.log(`resume removed the staged files of writes cut short: ${left.temps.join(', ')}`);
      if (cut) rec.log(`resume removed ${cut}, the record of an extension a crash cut short before run.json took it on (its call never started)`);
      const reconciled = reconcile(runDir, manifest, {
        writeRecord: (rel, record) => rec.writeRecord(rel, record),
      });
      // The records reconciling rewrote or adopted are anchored again as they now stand.
      rec.anchorAgain(reconciled);
      rec.chainTip = rec.findChainTip();
      if (resume.extension) {
        const undo: ExtensionUndo = structuredClone({
          agents: manifest.agents,
          evidence: manifest.evidence,
          policy: manifest.policy,
          passes: manifest.passes,
          extensions: manifest.extensions,
          status: manifest.status,
          exit_code: manifest.exit_code,
          error: manifest.error,
        });
        extend(manifest, resume.extension, new Date());
        rec.pendingExtension = { undo, afterPass: manifest.extensions!.at(-1)!.after_pass, tip: rec.chainTip };
      }
      manifest.status = 'running';
      // The breaker starts closed again: its cause was the user's to fix. An open one is counted as reopened.
      const b = manifest.breaker;
      manifest.breaker = { consecutive_failures: 0, open: false, last_error: b.last_error, reopened: b.reopened + (b.open ? 1 : 0) };
      // A deadline is not part of the policy: a resume may give the agents more time.
      for (const role of ['reviewer', 'composer'] as const) manifest.agents[role].timeout_s = resume.timeoutS[role];
      manifest.exit_code = null;
      manifest.error = null;
      manifest.finished_at = null;
      rec.saveManifest(true);
      return { recorder: rec, reconciled };
    } catch (err) {
      unlock();
      throw err;
    }
  }

  /**
   * Takes an ended run for side dispatches made after its end (`bounce grade --judge`), its
   * lock held by the caller (GradeWriter.sideRecorder): their records chain on from the run's
   * newest, run.json lists them in `side_dispatches` and counts them in `totals`; its status,
   * exit code and passes stay as they are.
   */
  static underLock(runDir: string, opts: RecorderOptions = {}): RunRecorder {
    const rec = new RunRecorder(runDir, readManifest(runDir), opts, () => {});
    rec.chainTip = rec.findChainTip();
    return rec;
  }

  /**
   * Makes an ended run's run.json and records agree again after a side dispatch made after its
   * end was cut short (`bounce grade --judge` killed mid-call), as a resume does for a run
   * (src/store/reconcile.ts): its record still pending becomes `error`, one run.json does not
   * list yet is adopted. The caller holds the lock. Returns the ids it changed; none: nothing is written.
   */
  static reconcileEnded(runDir: string, opts: RecorderOptions = {}): string[] {
    const m = readManifest(runDir);
    const rec = new RunRecorder(runDir, m, opts, () => {});
    try {
      const changed = reconcile(runDir, m, { writeRecord: (rel, record) => rec.writeRecord(rel, record) });
      if (changed.length === 0) return changed;
      rec.anchorAgain(changed);
      rec.saveManifest(true);
      rec.log(`reconciled ${changed.length} dispatch record(s) a process that stopped early left behind: ${changed.join(', ')}`);
      return changed;
    } finally {
      rec.close();
    }
  }

  /** The records reconciling rewrote or adopted, anchored again in run.json as they now stand. */
  private anchorAgain(ids: readonly string[]): void {
    for (const ref of dispatchesInWriteOrder(this.m))
      if (ids.includes(ref.id) && ref.record && existsSync(this.path(ref.record))) ref.record_sha256 = recordAnchor(readFileSync(this.path(ref.record)));
  }

  /** run.json as it stands, read-only: change it through the recorder's methods. */
  get manifest(): ManifestView {
    return this.m;
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  /** Writes a file of the run (prompt, reply, stderr, a pass's document, final.<ext>). */
  artifact(name: string, data: string): string {
    this.step('artifact', name);
    const text = this.redact(data, name);
    // Artifacts skip fsync (they are most of what a pass writes); run.json and the records, which
    // cite their shas, are synced, and a resume checks a document's sha before it builds on it.
    writeFileAtomic(this.path(name), text, { mode: RUN_FILE_MODE, sync: false });
    this.remember(name, text);
    return name;
  }

  /** Text with the run's key values blanked out; each blanking is counted in run.json and named in run.log. */
  redact(text: string, where?: string): string {
    const secrets = this.opts.secrets ?? [];
    if (secrets.length === 0) return text;
    const r = redactCounting(text, secrets);
    if (r.count > 0 && where !== undefined) {
      this.m.redactions += r.count;
      if (where !== 'run.log') this.log(`redacted ${r.count} occurrence(s) of a key value from ${where}`);
    }
    return r.text;
  }

  /** A stem whose artifacts do not exist yet: a pass rerun after a resume gets `.resume-<k>`. */
  freeStem(stem: string): string {
    if (!existsSync(this.path(`${stem}.prompt.md`))) return stem;
    for (let k = 1; ; k++) if (!existsSync(this.path(`${stem}.resume-${k}.prompt.md`))) return `${stem}.resume-${k}`;
  }

  /** Appends one timestamped line to run.log. */
  log(line: string): void {
    this.step('log', 'run.log');
    appendLog(this.path('run.log'), this.redact(line, 'run.log'));
  }

  /** Opens the record of a pass; a pass left half-done keeps its record and a rerun gets a new one. */
  openPass(p: PassOpening): number {
    const { input, ...fields } = p;
    const rec: PassRecord = {
      ...fields,
      ...openClosing(),
      usage: { input_tokens: null, output_tokens: null, cost_usd: null, cost_source: null },
      duration_ms: null,
      dispatches: [],
      started_at: new Date().toISOString(),
      finished_at: null,
    };
    const index = this.m.pass_records.push(rec) - 1;
    this.passInputs.set(index, input);
    this.saveManifest();
    return index;
  }

  /** Before the call: the record (pending), then run.json listing it. The prompt artifact is written already. */
  startDispatch(passIndex: number, start: DispatchStart): void {
    const ref = this.openRecord(start);
    this.pass(passIndex).dispatches.push(ref);
    this.m.totals.dispatches += 1;
    this.saveManifest();
    this.log(`dispatch ${start.id} ${start.stem} -> ${start.agent.spec}`);
  }

  /** After the call: the record's response and outcome, then run.json. Artifacts are written already. */
  finishDispatch(passIndex: number, end: DispatchEnd, tally: DispatchTally): void {
    const { id } = end.start;
    const input = this.passInputs.get(passIndex) ?? { file: end.start.documentFile, sha256: end.start.documentSha256 };
    const recordSha = this.closeRecord(end, input);
    const pass = this.pass(passIndex);
    const ref = pass.dispatches.find((d) => d.id === id);
    if (!ref) throw new Error(`dispatch ${id} was never started`);
    ref.status = end.status;
    ref.reason = end.reason;
    ref.record_sha256 = recordSha;
    ref.duration_ms = Math.max(0, Math.round(end.durationMs));
    const agent = this.m.agents[end.start.role];
    if (tally.usage) {
      ref.usage = { ...tally.usage };
      addUsage(pass.usage, tally.usage);
      addUsage(this.m.totals, tally.usage);
    }
    if (tally.providerReported !== null) agent.usage_provider_reported = (agent.usage_provider_reported ?? true) && tally.providerReported;
    agent.model ??= tally.model;
    agent.version ??= tally.agentVersion;
    this.m.breaker = { ...tally.breaker };
    this.saveManifest();
    this.log(`dispatch ${id} ${end.status}${end.reason ? `: ${end.reason}` : ''} (${ref.duration_ms} ms)`);
  }

  /**
   * A side dispatch (src/side/dispatch.ts), before the call: its record (pending), then
   * run.json listing it in `side_dispatches`. The prompt artifact is written already.
   */
  startSide(start: SideStart): void {
    const ref = this.openRecord(start);
    const after = this.m.pass_records.reduce((n, p) => n + p.dispatches.length, 0);
    this.m.side_dispatches = [...(this.m.side_dispatches ?? []), { ...ref, role: start.role, agent: start.agent.spec, after }];
    this.m.totals.dispatches += 1;
    this.saveManifest();
    this.log(`${start.role} dispatch ${start.id} ${start.stem} -> ${start.agent.spec}`);
  }

  /** A side dispatch, after the call: the record's response and outcome, then run.json (its usage in the totals). */
  finishSide(end: SideEnd, usage: UsageTotals | null): void {
    const { id } = end.start;
    const recordSha = this.closeRecord(end, { file: end.start.documentFile, sha256: end.start.documentSha256 });
    const ref = this.m.side_dispatches?.find((d) => d.id === id);
    if (!ref) throw new Error(`side dispatch ${id} was never started`);
    ref.status = end.status;
    ref.reason = end.reason;
    ref.record_sha256 = recordSha;
    ref.duration_ms = Math.max(0, Math.round(end.durationMs));
    if (usage) {
      ref.usage = { ...usage };
      addUsage(this.m.totals, usage);
    }
    this.saveManifest();
    this.log(`${end.start.role} dispatch ${id} ${end.status}${end.reason ? `: ${end.reason}` : ''} (${ref.duration_ms} ms)`);
  }

  /** The judge's verdict (`refine --judge`), in run.json's `judge`. */
  recordJudge(verdict: JudgeVerdict): void {
    this.m.judge = verdict;
    this.saveManifest(true);
    this.log(
      `judge ${verdict.agent}: ${verdict.prefers === null ? `no verdict (${verdict.error?.message ?? 'unknown'})` : `prefers ${verdict.prefers}${verdict.agreed ? '' : ' (the two orders disagreed)'}`}`,
    );
  }

  /** A dispatch's pending record, bound into the chain; returns its entry for run.json. */
  private openRecord(start: DispatchStart | SideStart): DispatchRef {
    const request = buildRequest(start, (rel) => this.factsOf(rel));
    const rel = recordPath(start.id, start.issuedAt);
    const binding: RecordBinding = { previous: this.chainTip, run: boundFields(this.m, (t) => this.redact(t)) };
    const recordSha = this.writeRecord(rel, { request, response: null, outcome: { status: 'pending', reason: null, graded_at: null, grade: null }, binding });
    this.requests.set(start.id, request);
    this.bindings.set(start.id, binding);
    return {
      id: start.id,
      kind: start.kind,
      index: start.index,
      stem: start.stem,
      status: 'pending',
      reason: null,
      duration_ms: null,
      usage: null,
      record: rel,
      record_sha256: recordSha,
    };
  }

  /** A dispatch's record with its response and outcome, under the binding its pending record had; returns the record's sha256. */
  private closeRecord(end: DispatchEnd | SideEnd, input: { file: string; sha256: string }): string {
    const { id } = end.start;
    const rel = recordPath(id, end.start.issuedAt);
    const request = this.requests.get(id) ?? buildRequest(end.start, (r) => this.factsOf(r));
    this.requests.delete(id);
    const response = buildResponse(
      end,
      input,
      (r) => this.factsOf(r),
      (r) => this.linesOf(r),
    );
    // The outcome keeps the binding its pending record was written with.
    const binding = this.bindings.get(id) ?? readRecord(this.path(rel)).binding;
    this.bindings.delete(id);
    return this.writeRecord(rel, { request, response, outcome: { status: end.status, reason: end.reason, graded_at: null, grade: null }, binding });
  }

  /** Ends a pass; `run` carries what the run learnt from it. */
  closePass(passIndex: number, c: PassClosing, run: { passesRun: number | null; notesLeft: number | null; passMs: number; runMs: number }): void {
    const pass = this.pass(passIndex);
    Object.assign(pass, c, { duration_ms: Math.max(0, Math.round(run.passMs)), finished_at: new Date().toISOString() });
    if (run.passesRun !== null) this.m.passes.run = run.passesRun;
    this.m.notes_left = run.notesLeft;
    this.m.totals.duration_ms = Math.max(0, Math.round(run.runMs));
    this.saveManifest();
  }

  /** Records the end of the run. */
  finishRun(c: RunClosing, durationMs: number): void {
    this.m.status = c.status;
    this.m.exit_code = c.exit_code;
    this.m.error = c.error;
    this.m.notes_left = c.notes_left;
    if (c.output) this.m.output = { ...this.m.output, ...c.output };
    this.m.totals.duration_ms = Math.max(0, Math.round(durationMs));
    this.m.finished_at = new Date().toISOString();
    this.saveManifest(true);
    this.log(`run ${c.status}, exit ${c.exit_code}${c.error ? `: ${c.error.message}` : ''}`);
  }

  /**
   * Releases the run's lock, unless run.json could not be brought up to date (a full disk, a
   * folder made read-only): then the lock stays, naming this process, so that once it is gone
   * the run shows `crashed` and `bounce resume` takes it over, rather than `running` for ever.
   */
  close(): void {
    this.untrack();
    if (this.manifestCurrent) this.unlock();
    else leaveLock(this.dir);
  }

  /**
   * Lets go of the run but not of its lock, whose release it returns, for `reopen` to take
   * over: a batch's run made now and run later stays locked by this process all the while.
   */
  handOver(): () => void {
    this.untrack();
    return this.unlock;
  }

  private pass(index: number): PassRecord {
    const p = this.m.pass_records[index];
    if (!p) throw new Error(`no pass record ${index}`);
    return p;
  }

  private step(kind: WriteKind, name: string): void {
    if (this.dead) throw new RecorderCrashed();
    try {
      this.opts.beforeWrite?.(kind, name);
    } catch (err) {
      this.dead = true;
      throw err;
    }
  }

  /** Writes run.json; `validate` for a session's first and last write (see writeManifest). */
  private saveManifest(validate = false): void {
    this.manifestCurrent = false;
    this.step('manifest', MANIFEST_FILE);
    const pending = this.pendingExtension;
    if (pending && pending.tip !== this.chainTip) this.pendingExtension = null;
    writeManifest(this.dir, this.persisted(), (json) => this.redact(json), validate);
    this.manifestCurrent = true;
  }

  /** run.json as it is to be written: before this session's extension while no record binds it yet. */
  private persisted(): RunManifest {
    const pending = this.pendingExtension;
    if (!pending) return this.m;
    const view = withoutExtension(this.m, pending.undo, pending.afterPass);
    // An extension that never dispatched leaves the run as it ended: its status, no error of the attempt.
    if (this.m.finished_at !== null) Object.assign(view, { status: pending.undo.status, exit_code: pending.undo.exit_code, error: pending.undo.error });
    return view;
  }

  /** Writes a dispatch record; returns the sha256 of what it wrote, the chain's new tip. */
  private writeRecord(rel: string, record: DispatchRecord): string {
    this.step('record', rel);
    const path = this.path(rel);
    mkdirSync(dirname(path), { recursive: true, mode: RUN_DIR_MODE });
    const text = this.redact(renderRecord(record), rel);
    writeFileAtomic(path, text, RUN_FILE_MODE);
    this.chainTip = sha256(text);
    return this.chainTip;
  }

  /**
   * Where a resumed run's chain goes on from: its newest record (run.json lists them in the
   * order they were written, once reconciled, a judge's or a grader's included), else audit/binding.yaml, written now for a run
   * made before bounce bound its runs.
   */
  private findChainTip(): string | null {
    const rels = dispatchesInWriteOrder(this.m)
      .map((d) => d.record)
      .filter((r): r is string => r !== null && existsSync(this.path(r)));
    const newest = rels.at(-1);
    if (newest) {
      if (!existsSync(this.path(BINDING_FILE))) this.saveBinding();
      return recordAnchor(readFileSync(this.path(newest)));
    }
    if (existsSync(this.path(BINDING_FILE))) return sha256(readFileSync(this.path(BINDING_FILE)));
    return this.saveBinding();
  }

  private saveBinding(): string {
    this.step('binding', BINDING_FILE);
    return writeBinding(this.dir, this.m, (t) => this.redact(t));
  }

  private remember(name: string, text: string): void {
    // A reply that is the document as it stands (the usual case) is hashed once for both files.
    const same = [...this.texts].reverse().find(([, t]) => t.length === text.length && t === text);
    const known = same ? this.facts.get(same[0]) : undefined;
    this.facts.set(name, known ?? { sha256: sha256(text), lines: countLines(text) });
    this.texts.delete(name);
    this.texts.set(name, text);
    if (this.texts.size > TEXTS_KEPT) this.texts.delete(this.texts.keys().next().value as string);
  }

  /** A run file's sha256 and line count: remembered for what this recorder wrote, else read from disk. */
  factsOf(rel: string): { sha256: string | null; lines: number } {
    const known = this.facts.get(rel);
    if (known) return known;
    const path = this.path(rel);
    if (!existsSync(path)) return { sha256: null, lines: 0 };
    const data = readFileSync(path);
    return { sha256: sha256(data), lines: countLines(data.toString('utf8')) };
  }

  private linesOf(rel: string): Lines | null {
    const text = this.texts.get(rel) ?? (existsSync(this.path(rel)) ? readFileSync(this.path(rel), 'utf8') : null);
    return text === null ? null : lineView(text);
  }
}

/** Writes audit/binding.yaml into a run folder; returns the sha256 of what it wrote. */
function writeBinding(dir: string, manifest: RunManifest, redact: Redact): string {
  const text = renderRunBinding(manifest, redact);
  mkdirSync(join(dir, dirname(BINDING_FILE)), { recursive: true, mode: RUN_DIR_MODE });
  writeFileAtomic(join(dir, BINDING_FILE), text, RUN_FILE_MODE);
  return sha256(text);
}

/** The runs dir's `.gitignore`, created exclusively: whatever is at its name already (a symlink, say) is left alone. */
function writeGitignore(runsDir: string): void {
  try {
    writeFileSync(join(runsDir, '.gitignore'), '*\n', { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** Appends one timestamped line; a symlink planted at run.log is refused, not followed. */
export function appendLog(path: string, line: string): void {
  const flag = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
  let fd: number;
  try {
    fd = openSync(path, flag, RUN_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOOP') throw err;
    // A symlink planted at run.log: it is removed, never written through, and the log starts afresh.
    rmSync(path, { force: true });
    fd = openSync(path, flag, RUN_FILE_MODE);
  }
  try {
    writeSync(fd, `${new Date().toISOString()} ${line}\n`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes run.json atomically (the recorder's own write; tests use it to build fixtures).
 * With `validate` (the default) it is checked against the schema first: a manifest that does
 * not parse is a bug, not a file to leave behind. The recorder checks the first and the last
 * write of a session and skips the writes between, which only its typed methods make: a
 * check costs about 0.4 ms warm and several ms cold, a dozen times a run.
 */
export function writeManifest(dir: string, manifest: RunManifest, redact: (json: string) => string = (json) => json, validate = true): void {
  manifest.updated_at = new Date().toISOString();
  const checked = validate ? RunManifestSchema.parse(manifest) : manifest;
  writeFileAtomic(join(dir, MANIFEST_FILE), redact(`${JSON.stringify(checked, null, 2)}\n`), RUN_FILE_MODE);
}
