import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicFactory } from 'ulid';
import type { ResolvedAgent } from '../../src/adapters/registry.js';
import type { DispatchStart } from '../../src/store/dispatch-record.js';
import { judgeResolved, NoteOrigins } from '../../src/protocol/ledger.js';
import { diffNotes, scanNotes, type Note } from '../../src/protocol/scanner.js';
import { sha256 } from '../../src/store/hash.js';
import type { AgentRecord, DispatchRef, PassRecord, RunManifest } from '../../src/store/manifest.js';
import { writeManifest } from '../../src/store/recorder.js';
import { recordWriter } from './records.js';
import { testAgent } from './test-agent.js';

/** A realistic finished run folder, written the way the runner writes one, without any agent. */

export const ORIGINAL = `# Retry policy

The classifier should retry on transient errors with exponential backoff up to 5 attempts.

Rate-limit all endpoints.

Example that must stay text: <script>alert("x")</script> & <b>bold</b>.
`;

export const PASS1 = `# Retry policy

The classifier should retry on transient errors with exponential backoff up to 5 attempts.
[CONTESTED] Five attempts is too aggressive for a call costing $0.10. Cap at 2 attempts.

Rate-limit all endpoints.
[CLARIFY] Does "all endpoints" include /metrics? (A) yes, treat all paths
equally. (B) no, exempt observability.

Example that must stay text: <script>alert("x")</script> & <b>bold</b>.
`;

/** Pass 2 acts on the [CONTESTED] note (its paragraph changes) and dismisses the [CLARIFY] one (its paragraph stays). */
export const PASS2 = `# Retry policy

The classifier retries transient errors with exponential backoff, at most 2 attempts, then surfaces the failure.

Rate-limit all endpoints.

Example that must stay text: <script>alert("x")</script> & <b>bold</b>.
`;

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;
const lines = (t: string): number => (t === '' ? 0 : t.split('\n').length - (t.endsWith('\n') ? 1 : 0));

/** The project's scanner, as the runner calls it. */
export function fixtureNotes(text: string): Note[] {
  return scanNotes(text, { syntax: 'markdown' });
}

function agentRecord(a: ResolvedAgent): AgentRecord {
  return {
    spec: a.spec,
    adapter: a.adapter,
    provider: a.provider,
    model: 'scripted-1',
    version: '0.1.0',
    max_output_tokens: null,
    timeout_s: 60,
    evidence: a.evidence,
    usage_provider_reported: false,
    options: { model: 'scripted-1' },
    chosen_by: 'flag',
    resolved: {},
  };
}

export interface FakeRun {
  dir: string;
  runId: string;
  manifest: RunManifest;
  /** Dispatch ids in order: pass 1 (rejected empty), pass 1 retry, pass 2. */
  ids: string[];
}

export function makeFakeRun(runsDir: string, opts: { runId?: string; evidence?: 'mock' | 'live'; created?: Date } = {}): FakeRun {
  const created = opts.created ?? new Date('2026-05-14T23:59:58.000Z');
  const runId = opts.runId ?? `retry-policy-${created.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-ABC123`;
  const dir = join(runsDir, runId);
  mkdirSync(dir, { recursive: true });
  const evidence = opts.evidence ?? 'mock';
  const spec = evidence === 'mock' ? 'mock' : 'openai';
  const a = testAgent({
    spec,
    adapter: spec,
    provider: spec === 'mock' ? 'mock' : 'openai-compatible',
    options: { model: 'scripted-1' },
    timeoutS: 60,
    evidence,
  });
  const w = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return name;
  };
  w('original.md', ORIGINAL);
  const hooks = recordWriter(dir);
  const nextId = monotonicFactory();
  const ids: string[] = [];
  let clock = created.getTime();
  const origins = new NoteOrigins(fixtureNotes(ORIGINAL));

  const call = (
    pass: number,
    kind: 'pass' | 'retry',
    index: number,
    parentId: string | null,
    sent: { file: string; text: string },
    reply: string,
    doc: string | null,
    before: string,
  ): DispatchRef => {
    const role = pass % 2 === 1 ? 'reviewer' : 'composer';
    const stem = `pass-${pass}-${role}-${spec}${kind === 'pass' ? '' : `.${kind}-${index}`}`;
    const issuedAt = new Date((clock += 1000));
    const id = nextId(issuedAt.getTime());
    ids.push(id);
    const promptFile = w(`${stem}.prompt.md`, `You are the ${role}. Pass ${pass} of 2.\n<<<DOCUMENT\n${sent.text}DOCUMENT>>>\n`);
    const start: DispatchStart = {
      id,
      runId,
      stem,
      pass,
      totalPasses: 2,
      role,
      agent: a,
      agentVersion: '0.1.0',
      final: pass === 2,
      kind,
      index,
      parentId,
      promptFile,
      documentFile: sent.file,
      documentSha256: sha256(sent.text),
      documentLines: lines(sent.text),
      inputPath: '/home/me/project/docs/retry-policy.md',
      issuedAt,
      deadlineSeconds: 60,
      maxOutputTokens: null,
      repairError: null,
    };
    const record = hooks.started(start);
    w(`${stem}.reply.txt`, reply);
    w(`${stem}.stderr.log`, '');
    const document = doc === null ? null : { file: w(`${stem}.md`, doc), sha256: sha256(doc), lines: lines(doc) };
    const { added, resolved } = doc === null ? { added: [], resolved: [] } : diffNotes(fixtureNotes(before), fixtureNotes(doc));
    const raisedBy = origins.originsOf(resolved);
    const fates =
      doc === null
        ? []
        : judgeResolved({ text: before, notes: fixtureNotes(before), markdown: true }, resolved, { text: doc, notes: fixtureNotes(doc), markdown: true }).map(
            (j, i) => ({ fate: j.fate, refersTo: j.refersTo, raisedBy: raisedBy[i]! }),
          );
    if (doc !== null) origins.advance(resolved, added, { pass, agent: spec });
    const usage = { input_tokens: 120 * pass, output_tokens: 80 * pass, cost_usd: null, provider_reported: false };
    const status = doc === null ? 'rejected' : 'completed';
    const reason = doc === null ? 'empty reply; the same prompt is sent once more' : null;
    hooks.finished({
      start,
      completedAt: new Date((clock += 400)),
      durationMs: 400,
      status,
      reason,
      response: { ok: true, reply, stop: 'complete', usage, model: 'scripted-1', agent_version: '0.1.0' },
      error: null,
      document,
      added,
      resolved,
      fates,
    });
    return {
      id,
      kind,
      index,
      stem,
      status,
      reason,
      duration_ms: 400,
      usage: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, cost_usd: null },
      record,
    };
  };

  const passRecord = (pass: number, refs: DispatchRef[], before: string, after: string, file: string): PassRecord => {
    const nb = fixtureNotes(before);
    const na = fixtureNotes(after);
    const diff = diffNotes(nb, na);
    const judged = judgeResolved({ text: before, notes: nb, markdown: true }, diff.resolved, { text: after, notes: na, markdown: true });
    return {
      pass,
      role: pass % 2 === 1 ? 'reviewer' : 'composer',
      agent: spec,
      final: pass === 2,
      status: 'completed',
      notes_before: nb.length,
      notes_after: na.length,
      added: diff.added.length,
      resolved: diff.resolved.length,
      acted: judged.filter((j) => j.fate === 'acted').length,
      dismissed: judged.filter((j) => j.fate === 'dismissed').length,
      misplaced_after: 0,
      words_before: words(before),
      words_after: words(after),
      document: file,
      document_sha256: sha256(after),
      usage: {
        input_tokens: refs.reduce((s, r) => s + (r.usage?.input_tokens ?? 0), 0),
        output_tokens: refs.reduce((s, r) => s + (r.usage?.output_tokens ?? 0), 0),
        cost_usd: null,
      },
      duration_ms: refs.length * 400,
      retries: refs.filter((r) => r.kind === 'retry').length,
      repairs: 0,
      fixes: [],
      errors: [],
      warnings: [],
      dispatches: refs,
      started_at: new Date(created.getTime() + pass * 1000).toISOString(),
      finished_at: new Date(created.getTime() + pass * 3000).toISOString(),
    };
  };

  const orig = { file: 'original.md', text: ORIGINAL };
  const r1 = call(1, 'pass', 0, null, orig, '', null, ORIGINAL);
  const r1b = call(1, 'retry', 1, r1.id, orig, PASS1, PASS1, ORIGINAL);
  const p1 = passRecord(1, [r1, r1b], ORIGINAL, PASS1, `pass-1-reviewer-${spec}.retry-1.md`);
  const r2 = call(2, 'pass', 0, null, { file: p1.document!, text: PASS1 }, PASS2, PASS2, PASS1);
  const p2 = passRecord(2, [r2], PASS1, PASS2, `pass-2-composer-${spec}.md`);
  w('final.md', PASS2);
  w('run.log', `${created.toISOString()} run ${runId} started\n`);

  const sum = (k: 'input_tokens' | 'output_tokens'): number => p1.usage[k]! + p2.usage[k]!;
  const manifest: RunManifest = {
    schema_version: 1,
    run_id: runId,
    batch_id: null,
    tool: { name: 'bounce', version: '0.1.0' },
    created_at: created.toISOString(),
    updated_at: created.toISOString(),
    finished_at: new Date(created.getTime() + 9000).toISOString(),
    status: 'converged',
    exit_code: 0,
    input: {
      path: '/home/me/project/docs/retry-policy.md',
      display: 'docs/retry-policy.md',
      sha256: sha256(ORIGINAL),
      bytes: Buffer.byteLength(ORIGINAL),
      words: words(ORIGINAL),
      ext: 'md',
      syntax: 'markdown',
      notes: 0,
    },
    original: 'original.md',
    goal: null,
    context: [],
    output: { target: 'run', path: 'final.md', written: true, sha256: sha256(PASS2) },
    passes: { requested: 2, run: 2, all_passes: false },
    agents: { reviewer: agentRecord(a), composer: agentRecord(a) },
    evidence,
    policy: {
      version: '1',
      contract_version: 1,
      templates_sha256: sha256('templates'),
      prompts_dir: null,
      markers: ['CONTESTED', 'CLARIFY'],
      max_repairs: 1,
      summary_ratio: 0.3,
      summary_min_words: 50,
      max_bytes: 1_000_000,
      reply_mode: 'document',
    },
    pass_records: [p1, p2],
    totals: { input_tokens: sum('input_tokens'), output_tokens: sum('output_tokens'), cost_usd: null, duration_ms: 1200, dispatches: 3 },
    breaker: { consecutive_failures: 0, open: false, last_error: null, reopened: 0 },
    redactions: 0,
    notes_left: 0,
    error: null,
  };
  writeManifest(dir, manifest);
  return { dir, runId, manifest, ids };
}

export { memIo } from './mem-io.js';
