import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type DispatchStart, listRecordFiles, readRecord, recordPath } from '../../src/store/dispatch-record.js';
import { noteRange } from '../../src/protocol/note-range.js';
import { readManifest } from '../../src/store/manifest.js';
import { STALE_REASON } from '../../src/store/reconcile.js';
import { RunRecorder } from '../../src/store/recorder.js';
import { sha256 } from '../../src/store/hash.js';
import { fixtureNotes, makeFakeRun, ORIGINAL, PASS1, type FakeRun } from '../support/fake-run.js';
import { recordWriter } from '../support/records.js';
import { testAgent } from '../support/test-agent.js';
import { readOwnYaml } from '../../src/yaml.js';

const MOCK = testAgent({ adapter: 'mock', timeoutS: 60 });

/** A pass-2 dispatch of the fake run, written by hand. */
function startFor(run: FakeRun, over: Partial<DispatchStart>): DispatchStart {
  writeFileSync(join(run.dir, 'p.prompt.md'), 'prompt\n');
  return {
    id: '01JV0000000000000000000000',
    runId: run.runId,
    stem: 'p',
    pass: 2,
    totalPasses: 2,
    role: 'composer',
    agent: { ...MOCK, args: [] },
    agentVersion: null,
    final: true,
    kind: 'pass',
    index: 0,
    parentId: null,
    promptFile: 'p.prompt.md',
    documentFile: 'original.md',
    documentSha256: sha256(ORIGINAL),
    documentLines: 7,
    inputPath: null,
    issuedAt: new Date('2026-05-15T00:01:00Z'),
    deadlineSeconds: 30,
    maxOutputTokens: 4000,
    repairError: null,
    ...over,
  };
}

let tmp: string;
beforeEach(() => (tmp = mkdtempSync(join(tmpdir(), 'bounce-records-'))));
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('dispatch records', () => {
  it('writes one record per dispatch under the UTC date of issued_at', () => {
    const run = makeFakeRun(tmp);
    const files = listRecordFiles(run.dir);
    expect(files).toHaveLength(3);
    // The fixture's first call is issued at 23:59:59 UTC, the others after midnight.
    expect(files.filter((f) => f.includes('/2026-05-14/'))).toEqual([`audit/dispatches/2026-05-14/${run.ids[0]}.yaml`]);
    expect(files.filter((f) => f.includes('/2026-05-15/'))).toHaveLength(2);
    const refs = run.manifest.pass_records.flatMap((p) => p.dispatches.map((d) => d.record));
    expect(refs.sort()).toEqual([...files].sort());
  });

  it('fills the request from what the loop knew before the call', () => {
    const run = makeFakeRun(tmp);
    const retry = readRecord(join(run.dir, recordPath(run.ids[1]!, new Date('2026-05-15T00:00:00Z'))));
    const req = retry.request;
    expect(req).toMatchObject({ id: run.ids[1], protocol_version: 1, issued_by: 'bounce', target_agent: 'reviewer/mock', priority: 'normal' });
    expect(req.plan_ancestry).toEqual({
      run_id: run.runId,
      document: '/home/me/project/docs/retry-policy.md',
      pass: 1,
      total_passes: 2,
      attempt: { kind: 'retry', index: 1 },
      parent_dispatch: run.ids[0],
    });
    expect(req.effort_budget).toEqual({ max_subagents: 0, deadline_seconds: 60, max_output_tokens: null });
    expect(req.expected_output.final).toBe(false);
    const [doc, prompt] = req.context.files;
    expect(doc).toEqual({ path: 'original.md', purpose: 'document', sha256: sha256(ORIGINAL), lines: [1, ORIGINAL.split('\n').length - 1] });
    expect(prompt!.path).toBe('pass-1-reviewer-mock.retry-1.prompt.md');
    expect(prompt!.sha256).toBe(sha256(readFileSync(join(run.dir, prompt!.path))));
  });

  it('records the notes a pass added as scanner findings and the ones it resolved', () => {
    const run = makeFakeRun(tmp);
    const all = listRecordFiles(run.dir).map((f) => readRecord(join(run.dir, f)));
    const byId = new Map(all.map((r) => [r.request.id, r]));
    const rejected = byId.get(run.ids[0]!)!;
    expect(rejected.outcome).toEqual({ status: 'rejected', reason: 'empty reply; the same prompt is sent once more', graded_at: null, grade: null });
    expect(rejected.response!.findings).toEqual([]);

    const p1 = byId.get(run.ids[1]!)!.response!;
    expect(p1.findings.map((f) => [f.type, f.severity, f.line_range, f.confidence])).toEqual([
      ['contested', 'medium', [4, 4], 'HIGH'],
      ['clarify', 'low', [7, 8], 'HIGH'],
    ]);
    expect(p1.findings[0]!.id).toBe(`${run.ids[1]}/001`);
    expect(p1.findings[0]!.confidence_rationale).toMatch(/deterministic/i);
    expect(p1.findings[0]!.citations.evidence).toEqual([{ file: 'pass-1-reviewer-mock.retry-1.md', sha256: sha256(PASS1), line_range: [4, 4] }]);
    expect(p1.self_assessment).toMatchObject({ coverage: null, confidence_overall: null, unknowns: [] });
    expect(p1.metadata).toMatchObject({ tokens_used: 200, tool_calls: null, subagents_dispatched: 0, model: 'scripted-1' });
    expect(p1.artifacts.map((a) => a.path)).toEqual(['pass-1-reviewer-mock.retry-1.reply.txt', 'pass-1-reviewer-mock.retry-1.stderr.log']);

    const p2 = byId.get(run.ids[2]!)!;
    expect(p2.request.expected_output.final).toBe(true);
    expect(p2.response!.findings).toEqual([]);
    expect(p2.response!.resolved.map((r) => [r.type, r.citations.evidence[0]!.file])).toEqual([
      ['contested', 'pass-1-reviewer-mock.retry-1.md'],
      ['clarify', 'pass-1-reviewer-mock.retry-1.md'],
    ]);
  });

  it('writes readable YAML: blocks in order, line ranges inline', () => {
    const run = makeFakeRun(tmp);
    const text = readFileSync(join(run.dir, listRecordFiles(run.dir)[1]!), 'utf8');
    expect(text.indexOf('request:')).toBe(0);
    expect(text.indexOf('response:')).toBeGreaterThan(text.indexOf('priority:'));
    expect(text.indexOf('outcome:')).toBeGreaterThan(text.indexOf('response:'));
    expect(text).toMatch(/lines: \[1, \d+\]/);
  });

  it('reads its own records without the yaml library, as the library reads them', () => {
    const run = makeFakeRun(tmp);
    for (const file of listRecordFiles(run.dir)) {
      const text = readFileSync(join(run.dir, file), 'utf8');
      expect(readOwnYaml(text), file).toStrictEqual(parse(text));
      expect(readRecord(join(run.dir, file), text)).toStrictEqual(readRecord(join(run.dir, file)));
    }
  });

  it('leaves pending after a crash; reopening the run turns it into error and lists it in run.json', () => {
    const run = makeFakeRun(tmp);
    const id = '01JV0000000000000000000000';
    const rel = recordWriter(run.dir).started(startFor(run, { kind: 'repair', index: 1, parentId: run.ids[2]!, repairError: 'notes left' }));
    expect(rel).toBe(`audit/dispatches/2026-05-15/${id}.yaml`);
    const pending = readRecord(join(run.dir, rel));
    expect(pending.response).toBeNull();
    expect(pending.outcome).toEqual({ status: 'pending', reason: null, graded_at: null, grade: null });
    expect(pending.request.expected_output.repair_error).toBe('notes left');

    const { recorder, reconciled } = RunRecorder.reopen(run.dir, { timeoutS: { reviewer: 60, composer: 60 } });
    recorder.close();
    expect(reconciled).toEqual([id]);
    expect(readRecord(join(run.dir, rel)).outcome).toMatchObject({ status: 'error', reason: STALE_REASON });
    const pass2 = readManifest(run.dir).pass_records[1]!;
    expect(pass2.dispatches.at(-1)).toMatchObject({ id, kind: 'repair', index: 1, stem: 'p', status: 'error', record: rel });
    expect(RunRecorder.reopen(run.dir, { timeoutS: { reviewer: 60, composer: 60 } }).reconciled).toEqual([]);
  });

  it('cites resolved notes in the document the pass began with, even on a repair', () => {
    const run = makeFakeRun(tmp);
    const hooks = recordWriter(run.dir);
    const passDoc = 'pass-1-reviewer-mock.retry-1.md';
    const first = startFor(run, { id: '01JV0000000000000000000001', documentFile: passDoc, documentSha256: sha256(PASS1) });
    hooks.started(first);
    const end = { completedAt: new Date('2026-05-15T00:01:01Z'), durationMs: 5, response: null, error: null, document: null, added: [], resolved: [] };
    hooks.finished({ ...end, start: first, status: 'rejected', reason: 'notes left' });
    writeFileSync(join(run.dir, 'rejected.md'), 'rejected\n');
    const repair = startFor(run, {
      id: '01JV0000000000000000000002',
      kind: 'repair',
      index: 1,
      parentId: first.id,
      documentFile: 'rejected.md',
      documentSha256: sha256('rejected\n'),
    });
    const rel = hooks.started(repair);
    hooks.finished({
      ...end,
      start: repair,
      status: 'completed',
      reason: null,
      document: { file: 'final.md', sha256: sha256(readFileSync(join(run.dir, 'final.md'))), lines: 7 },
      resolved: fixtureNotes(PASS1),
    });
    const rec = readRecord(join(run.dir, rel));
    expect(rec.request.context.files[0]!.path).toBe('rejected.md');
    expect(rec.response!.resolved.map((r) => r.citations.evidence[0])).toEqual([
      { file: passDoc, sha256: sha256(PASS1), line_range: [4, 4] },
      { file: passDoc, sha256: sha256(PASS1), line_range: [7, 8] },
    ]);
  });

  it('reads a record made before edit replies (no edit_format, no edits) as a whole-mode one, and audit accepts its run', () => {
    const run = makeFakeRun(tmp);
    const file = join(run.dir, listRecordFiles(run.dir)[0]!);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('edit_format: whole');
    expect(text).toContain('edits: null');
    writeFileSync(file, text.replace(/^ +edit_format: whole\n/m, '').replace(/^ +edits: null\n/m, ''));
    const rec = readRecord(file);
    expect(rec.request.expected_output.edit_format).toBe('whole');
    expect(rec.response?.edits).toBeNull();
  });

  it('rejects a record that does not match the schema, naming the field', () => {
    const run = makeFakeRun(tmp);
    const file = join(run.dir, listRecordFiles(run.dir)[0]!);
    writeFileSync(file, readFileSync(file, 'utf8').replace('issued_by: bounce', 'issued_by: someone-else'));
    expect(() => readRecord(file)).toThrow(/request\.issued_by/);
  });
});

describe('noteRange', () => {
  it('runs from the marker to the end of the paragraph or the next note', () => {
    const lines = ['Text.', '[CONTESTED] one', 'two', '- [CLARIFY] next', 'more', '', 'after'];
    expect(noteRange({ kind: 'CONTESTED', line: 2, text: 'x', canonical: true }, lines)).toEqual([2, 3]);
    expect(noteRange({ kind: 'CLARIFY', line: 4, text: 'x', canonical: true }, lines)).toEqual([4, 5]);
    expect(noteRange({ kind: 'CLARIFY', line: 4, text: 'x', canonical: true }, null)).toEqual([4, 4]);
  });
});
