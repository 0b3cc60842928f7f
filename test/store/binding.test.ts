import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BINDING_FILE, boundFields } from '../../src/store/binding.js';
import { listRecordFiles, readRecord } from '../../src/store/dispatch-record.js';
import { verifyRun } from '../../src/audit/verify.js';
import { runDocument } from '../../src/engine/run-document.js';
import { readManifest } from '../../src/store/manifest.js';
import { RunRecorder } from '../../src/store/recorder.js';
import { listRuns } from '../../src/store/resolve-run.js';
import { DOC, engineDeps, fakeDispatcher, NOTED, testPlan } from '../support/engine.js';
import { unbind } from '../support/records.js';

let runs: string;
beforeEach(() => {
  runs = mkdtempSync(join(tmpdir(), 'bounce-binding-'));
});
afterEach(() => rmSync(runs, { recursive: true, force: true }));

const messages = (dir: string, resuming = false): string[] => verifyRun(dir, { resuming }).problems.map((p) => `${p.message} (${p.file})`);
// biome-ignore lint/suspicious/noExplicitAny: the tests edit run.json as untyped JSON
const editJson = (dir: string, f: (m: Record<string, any>) => void): void => {
  const path = join(dir, 'run.json');
  const m = JSON.parse(readFileSync(path, 'utf8'));
  f(m);
  writeFileSync(path, JSON.stringify(m));
};

/** A run stopped by a crash at the write that follows its k-th record write (k = 0: at its first record). */
async function crashedAfterRecord(k: number): Promise<string> {
  const plan = await testPlan(runs);
  let records = 0;
  const crash = new Error('crash');
  const beforeWrite = (kind: string): void => {
    if (records === k && (k > 0 || kind === 'record')) throw crash;
    if (kind === 'record') records++;
  };
  await expect(runDocument(plan, engineDeps(fakeDispatcher([{ reply: NOTED }, { reply: NOTED }]), { recorder: { beforeWrite } }))).rejects.toBe(crash);
  return listRuns(runs)[0]!.dir;
}

describe('the binding of a run', () => {
  it('binds run.json from the start: a run with no record yet still names an edit of its agents', async () => {
    const dir = await crashedAfterRecord(0);
    expect(listRecordFiles(dir)).toEqual([]);
    expect(messages(dir)).toEqual([]);
    editJson(dir, (m) => {
      m.agents.reviewer.spec = 'cmd:./elsewhere.sh';
    });
    expect(messages(dir, true)).toEqual([`run.json's agents: not what ${BINDING_FILE} binds (run.json was edited since) (run.json)`]);
  });

  it('hashes fields, not their order in the file: run.json rewritten with its keys reordered is no problem', async () => {
    const plan = await testPlan(runs, { passes: 1 });
    const r = await runDocument(plan, engineDeps(fakeDispatcher([{ reply: DOC }])));
    const before = boundFields(readManifest(r.runDir));
    editJson(r.runDir, (m) => {
      m.policy = Object.fromEntries(Object.entries(m.policy).reverse());
      m.agents.reviewer = Object.fromEntries(Object.entries(m.agents.reviewer).reverse());
    });
    expect(boundFields(readManifest(r.runDir))).toEqual(before);
    expect(messages(r.runDir)).toEqual([]);
  });

  it('binds run.json as it is written: a key value blanked out of it (here in the goal) is no edit', async () => {
    const KEY = 'sk-test-0123456789abcdef';
    const plan = await testPlan(runs, { passes: 1, goal: `A runbook; never print ${KEY}.` });
    const r = await runDocument(plan, engineDeps(fakeDispatcher([{ reply: DOC }]), { recorder: { secrets: [KEY] } }));
    expect(readFileSync(join(r.runDir, 'run.json'), 'utf8')).not.toContain(KEY);
    expect(messages(r.runDir)).toEqual([]);
  });

  it('an older run that a resume stopped just after binding it, before its first record: partly unbound, still bound to run.json', async () => {
    const plan = await testPlan(runs, { passes: 1 });
    const r = await runDocument(plan, engineDeps(fakeDispatcher([{ reply: DOC }])));
    unbind(r.runDir);
    expect(verifyRun(r.runDir).unbound).toMatch(/^unbound/);
    RunRecorder.reopen(r.runDir, { timeoutS: { reviewer: 60, composer: 60 } }).recorder.close();
    expect(existsSync(join(r.runDir, BINDING_FILE))).toBe(true);
    expect(verifyRun(r.runDir)).toMatchObject({ problems: [], unbound: expect.stringMatching(/^partly unbound .*the first 1 of 1 records/) });
    editJson(r.runDir, (m) => {
      m.policy.max_repairs = 9;
    });
    expect(messages(r.runDir, true)).toEqual([`run.json's policy: not what ${BINDING_FILE} binds (run.json was edited since) (run.json)`]);
  });

  it('a crash between a pending record and the run.json that lists it: resume accepts it, audit names it', async () => {
    const dir = await crashedAfterRecord(1);
    const [rel] = listRecordFiles(dir);
    expect(readRecord(join(dir, rel!)).outcome.status).toBe('pending');
    expect(messages(dir, true)).toEqual([]);
    expect(messages(dir)).toContainEqual(expect.stringMatching(/is not listed in run\.json/));
  });

  it('a crash between a finished record and the run.json that catches up with it: resume accepts it', async () => {
    const dir = await crashedAfterRecord(2);
    const refs = readManifest(dir).pass_records.flatMap((p) => p.dispatches);
    expect(refs.map((d) => d.status)).toEqual(['pending']);
    expect(readRecord(join(dir, listRecordFiles(dir)[0]!)).outcome.status).toBe('completed');
    expect(messages(dir, true)).toEqual([]);
    expect(messages(dir)).toContainEqual(expect.stringMatching(/outcome\.status completed differs from run\.json's pending/));
  });
});
