import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkRunsOf } from '../../src/store/check-runs.js';
import { listRecordFiles, readRecord, renderRecord } from '../../src/store/dispatch-record.js';
import { readManifest } from '../../src/store/manifest.js';
import { makeFakeRun, type FakeRun } from '../support/fake-run.js';

let tmp: string;
let run: FakeRun;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'bounce-check-runs-'));
  run = makeFakeRun(join(tmp, 'runs'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const CHECK = {
  command: 'mdlint {file}',
  status: 'passed' as const,
  exit_code: 0,
  duration_ms: 5,
  timeout_s: 60,
  output: { path: 'a.log', sha256: 'a'.repeat(64) },
  dropped_bytes: 0,
};

describe('checkRunsOf', () => {
  it("gives each dispatch's check runs from its record, and none without reading a record when the policy has no checks", () => {
    const rel = listRecordFiles(run.dir)[0] as string;
    const rec = readRecord(join(run.dir, rel));
    writeFileSync(join(run.dir, rel), renderRecord({ ...rec, response: { ...rec.response!, checks: [CHECK] } }));
    const m = readManifest(run.dir);
    expect(checkRunsOf(run.dir, m).size).toBe(0);
    const path = join(run.dir, 'run.json');
    const json = JSON.parse(readFileSync(path, 'utf8'));
    json.policy.checks = [{ command: 'mdlint {file}', timeout_s: 60 }];
    writeFileSync(path, JSON.stringify(json));
    expect([...checkRunsOf(run.dir, readManifest(run.dir))]).toEqual([[rec.request.id, [CHECK]]]);
    // An unreadable record shows no checks (the audit names it).
    writeFileSync(join(run.dir, rel), 'not: [a record');
    expect(checkRunsOf(run.dir, readManifest(run.dir)).size).toBe(0);
  });
});
