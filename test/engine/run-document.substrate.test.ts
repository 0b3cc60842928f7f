import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/audit/verify.js';
import { runDocument } from '../../src/engine/run-document.js';
import { readManifest } from '../../src/store/manifest.js';
import { sha256 } from '../../src/store/hash.js';
import { engineDeps, fakeDispatcher, testPlan } from '../support/engine.js';

let runs: string;
beforeEach(() => {
  runs = mkdtempSync(join(tmpdir(), 'bounce-substrate-'));
});
afterEach(() => rmSync(runs, { recursive: true, force: true }));

const JSON_DOC = '{\n  "retries": 5,\n  "timeout_s": 30\n}\n';
const JSON_NOTED = '{\n  "retries": 5,\n  "retries.note": "[CONTESTED] Five is a lot for a paid call; use 2.",\n  "timeout_s": 30\n}\n';
const JSON_FIXED = '{\n  "retries": 2,\n  "timeout_s": 30\n}\n';
/** A trailing comma: JSON.parse refuses it. */
const JSON_BROKEN = '{\n  "retries": 2,\n  "timeout_s": 30,\n}\n';
const YAML_DOC = 'retries: 5\ntimeout_s: 30\n';
const YAML_NOTED = 'retries: 5\n# [CONTESTED] Five is a lot for a paid call; use 2.\ntimeout_s: 30\n';
const YAML_BROKEN = 'retries: 2\ntimeout_s: [30\n';

const jsonPlan = (over = {}) =>
  testPlan(
    runs,
    { input: { path: null, display: 'c.json', text: JSON_DOC, bytes: JSON_DOC.length, sha256: sha256(JSON_DOC), ext: 'json', syntax: 'json' }, ...over },
    JSON_DOC,
  );
const yamlPlan = (over = {}) =>
  testPlan(
    runs,
    { input: { path: null, display: 'c.yaml', text: YAML_DOC, bytes: YAML_DOC.length, sha256: sha256(YAML_DOC), ext: 'yaml', syntax: 'yaml' }, ...over },
    YAML_DOC,
  );

const statuses = (runDir: string): string[][] => readManifest(runDir).pass_records.map((p) => p.dispatches.map((d) => `${d.kind}:${d.status}`));

describe('JSON and YAML documents must parse after every pass', () => {
  it('a JSON note in a string value is counted, and the composer resolving it converges', async () => {
    const r = await runDocument(await jsonPlan(), engineDeps(fakeDispatcher([{ reply: JSON_NOTED }, { reply: JSON_FIXED }])));
    expect(r.status).toBe('converged');
    const m = readManifest(r.runDir);
    expect(m.input.syntax).toBe('json');
    expect(m.pass_records.map((p) => [p.notes_after, p.added, p.resolved])).toEqual([
      [1, 1, 0],
      [0, 0, 1],
    ]);
    expect(readFileSync(join(r.runDir, 'final.json'), 'utf8')).toBe(JSON_FIXED);
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });

  it('a reply that does not parse goes back in a repair with the parser error, and the repaired reply is taken', async () => {
    const dispatch = fakeDispatcher([{ reply: JSON_NOTED }, { reply: JSON_BROKEN }, { reply: JSON_FIXED }]);
    const r = await runDocument(await jsonPlan(), engineDeps(dispatch));
    expect(r.status).toBe('converged');
    expect(statuses(r.runDir)).toEqual([['pass:completed'], ['pass:rejected', 'repair:completed']]);
    const repair = dispatch.requests[2]!;
    expect(repair.attempt).toEqual({ kind: 'repair', index: 1 });
    expect(repair.repair_error).toBe('the reply does not parse: invalid JSON at line 4, column 1: Expected double-quoted property name in JSON');
    // The rejected reply is the document to correct.
    expect(repair.prompt).toContain('"timeout_s": 30,\n}');
    expect(readManifest(r.runDir).pass_records[1]!.dispatches[0]!.reason).toBe(
      'invalid JSON at line 4, column 1: Expected double-quoted property name in JSON',
    );
  });

  it('a final pass that still does not parse after its repair is not-converged (exit 1)', async () => {
    const r = await runDocument(await jsonPlan(), engineDeps(fakeDispatcher([{ reply: JSON_NOTED }, { reply: JSON_BROKEN }, { reply: JSON_BROKEN }])));
    expect(r.status).toBe('not-converged');
    expect(r.exitCode).toBe(1);
    expect(statuses(r.runDir)).toEqual([['pass:completed'], ['pass:rejected', 'repair:rejected']]);
    expect(readManifest(r.runDir).pass_records[1]!.errors).toEqual([
      'the final pass left a document that does not parse: invalid JSON at line 4, column 1: Expected double-quoted property name in JSON',
    ]);
  });

  it('an earlier pass that does not parse once its repairs are spent fails as malformed (exit 3)', async () => {
    const r = await runDocument(await yamlPlan({ maxRepairs: 0 }), engineDeps(fakeDispatcher([{ reply: YAML_BROKEN }])));
    expect(r.status).toBe('failed');
    expect(r.exitCode).toBe(3);
    const m = readManifest(r.runDir);
    expect(m.error?.type).toBe('malformed');
    expect(m.error?.message).toMatch(/^rev gave no document that parses after 0 repair\(s\): invalid YAML at line 3, column 1: /);
  });

  it('a YAML note in a comment is counted and parses; markdown structure rules do not apply', async () => {
    const r = await runDocument(await yamlPlan(), engineDeps(fakeDispatcher([{ reply: YAML_NOTED }, { reply: YAML_DOC.replace('5', '2') }])));
    expect(r.status).toBe('converged');
    expect(readManifest(r.runDir).pass_records[0]!.notes_after).toBe(1);
  });

  it('a YAML note in a trailing comment, deleted with its `#`: dismissed, and audit judges it so again', async () => {
    const trailing = 'retries: 5  # [CONTESTED] Five is a lot for a paid call; use 2.\ntimeout_s: 30\n';
    const r = await runDocument(await yamlPlan(), engineDeps(fakeDispatcher([{ reply: trailing }, { reply: YAML_DOC }])));
    expect(r.status).toBe('converged');
    expect(readManifest(r.runDir).pass_records[1]).toMatchObject({ acted: 0, dismissed: 1 });
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });
});
