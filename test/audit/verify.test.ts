import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listRecordFiles, readRecord, renderRecord } from '../../src/store/dispatch-record.js';
import { sha256 } from '../../src/store/hash.js';
import type { CheckStatus } from '../../src/vocabulary.js';
import { verifyRun } from '../../src/audit/verify.js';
import { runAudit } from '../../src/commands/audit.js';
import { isBounceError } from '../../src/errors.js';
import { makeFakeRun, memIo, type FakeRun } from '../support/fake-run.js';

let tmp: string;
let run: FakeRun;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'bounce-verify-'));
  run = makeFakeRun(join(tmp, 'runs'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const messages = (): string[] => verifyRun(run.dir).problems.map((p) => `${p.message} (${p.file})`);
// biome-ignore lint/suspicious/noExplicitAny: the test edits run.json as untyped JSON
const editJson = (f: (m: Record<string, any>) => void): void => {
  const path = join(run.dir, 'run.json');
  const m = JSON.parse(readFileSync(path, 'utf8'));
  f(m);
  writeFileSync(path, JSON.stringify(m));
};

describe('bounce audit', () => {
  it('passes a well-formed run: exit 0, records counted; a run whose records bind nothing is said to be unbound', async () => {
    // The fixture's records are written as an older bounce wrote them: no binding.
    expect(verifyRun(run.dir)).toEqual({ runId: run.runId, records: 3, problems: [], unbound: expect.stringMatching(/^unbound \(made by an older bounce\)/) });
    const io = memIo(tmp);
    expect(await runAudit({ run: 'latest', runsDir: 'runs' }, io)).toBe(0);
    expect(io.out()).toBe('');
    expect(io.err()).toMatch(/audit ok: .*3 dispatch records/);
    expect(io.err()).toContain(`note: ${run.runId} is unbound (made by an older bounce)`);
  });

  it('--json prints one object', async () => {
    const io = memIo(tmp);
    expect(await runAudit({ run: run.runId.slice(0, 12), runsDir: join(tmp, 'runs'), json: true }, io)).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ run_id: run.runId, ok: true, problems: [], records: 3 });
  });

  it('names a tampered artifact: exit 1, one problem line each', async () => {
    appendFileSync(join(run.dir, 'pass-1-reviewer-mock.retry-1.prompt.md'), 'injected\n');
    appendFileSync(join(run.dir, 'pass-2-composer-mock.reply.txt'), 'x');
    const io = memIo(tmp);
    expect(await runAudit({ run: run.dir }, io)).toBe(1);
    const lines = io.out().trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l).toMatch(/^problem: sha256 of .* does not match .* \(audit\/dispatches\/2026-05-15\/[0-9A-Z]{26}\.yaml\)$/);
    expect(io.out()).toContain('pass-1-reviewer-mock.retry-1.prompt.md');
    expect(io.out()).toContain('pass-2-composer-mock.reply.txt');
    const json = memIo(tmp);
    expect(await runAudit({ run: run.dir, json: true }, json)).toBe(1);
    expect(JSON.parse(json.out())).toMatchObject({ ok: false, records: 3, problems: [{ file: expect.stringMatching(/\.yaml$/) }, {}] });
  });

  it('checks the original against input.sha256 and the output against output.sha256', () => {
    appendFileSync(join(run.dir, 'original.md'), 'edited\n');
    writeFileSync(join(run.dir, 'final.md'), 'other\n');
    const found = messages();
    expect(found).toContain('sha256 of original.md does not match run.json input.sha256 (run.json)');
    expect(found).toContain('sha256 of final.md does not match run.json output.sha256 (run.json)');
  });

  it('names a missing artifact', () => {
    rmSync(join(run.dir, 'pass-2-composer-mock.md'));
    expect(messages().some((m) => m.includes('names pass-2-composer-mock.md, which does not exist'))).toBe(true);
  });

  it('finds a record missing from disk or from run.json', () => {
    const [first, second] = listRecordFiles(run.dir);
    rmSync(join(run.dir, first!));
    expect(messages()).toEqual(
      expect.arrayContaining([
        'run.json lists 3 dispatches but 2 records were found (run.json)',
        expect.stringMatching(new RegExp(`dispatch ${run.ids[0]} \\(pass 1\\) has no record`)),
      ]),
    );
    // A record under a name that is not its id, in the wrong date folder.
    renameSync(join(run.dir, second!), join(run.dir, first!));
    const found = messages();
    expect(found.some((m) => m.includes('does not match the file name'))).toBe(true);
    expect(found.some((m) => m.includes('date folder 2026-05-14 does not match issued_at'))).toBe(true);
  });

  it('names a record that is not YAML or breaks the schema', () => {
    const [first, second] = listRecordFiles(run.dir);
    writeFileSync(join(run.dir, first!), 'request: [unclosed\n');
    writeFileSync(join(run.dir, second!), readFileSync(join(run.dir, second!), 'utf8').replace('protocol_version: 1', 'protocol_version: 2'));
    const found = messages();
    expect(found.some((m) => m.endsWith(`(${first})`))).toBe(true);
    expect(found).toContainEqual(expect.stringMatching(/request\.protocol_version.*\(audit\/dispatches/));
    expect(found.some((m) => m.includes('has no record'))).toBe(false);
  });

  it('compares per-pass note counts and statuses with run.json', () => {
    editJson((m) => {
      m.pass_records[0].added = 5;
      m.pass_records[1].resolved = 0;
      m.pass_records[1].dispatches[0].status = 'error';
    });
    const found = messages();
    expect(found).toContainEqual(expect.stringMatching(/^2 findings but run.json says pass 1 added 5 notes/));
    expect(found).toContainEqual(expect.stringMatching(/^2 resolved notes but run.json says pass 2 resolved 0/));
    expect(found).toContainEqual(expect.stringMatching(/outcome.status completed differs from run.json's error/));
  });

  it('checks the ledger: fates against run.json and the documents, raised_by against the passes that raised the notes', () => {
    const rel = listRecordFiles(run.dir).find((f) => readFileSync(join(run.dir, f), 'utf8').includes('fate: dismissed'))!;
    const yaml = readFileSync(join(run.dir, rel), 'utf8');
    expect(yaml).toContain('raised_by:\n        pass: 1\n        agent: mock\n');
    writeFileSync(
      join(run.dir, rel),
      yaml.replace('fate: dismissed', 'fate: acted').replace('pass: 1\n        agent: mock', 'pass: null\n        agent: input'),
    );
    expect(messages()).toEqual([
      `2 acted and 0 dismissed notes but run.json says pass 2 acted on 1 and dismissed 1 (${rel})`,
      `the resolved notes' fates (acted, acted) are not what the documents show (acted, dismissed) (${rel})`,
      `a resolved note's raised_by (pass input) is not the pass that raised it (1) (${rel})`,
    ]);
  });

  it('accepts pending records while the run is running, not after it ended', () => {
    const [first] = listRecordFiles(run.dir);
    const file = join(run.dir, first!);
    const text = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      `${text.slice(0, text.indexOf('response:'))}response: null\noutcome:\n  status: pending\n  reason: null\n  graded_at: null\n  grade: null\n`,
    );
    editJson((m) => {
      m.pass_records[0].dispatches[0].status = 'pending';
    });
    expect(messages()).toEqual([expect.stringMatching(/^dispatch is still pending in a run that is converged/)]);
    editJson((m) => {
      m.status = 'running';
    });
    expect(messages()).toEqual([]);
  });

  it('names an unreadable run.json but still checks the records', () => {
    writeFileSync(join(run.dir, 'run.json'), '{');
    expect(verifyRun(run.dir)).toMatchObject({ records: 3, problems: [{ file: 'run.json', message: expect.stringMatching(/not JSON/) }] });
  });

  it('is a usage error (exit 2) when the run does not exist', async () => {
    const err = await runAudit({ run: 'nope', runsDir: join(tmp, 'runs') }, memIo(tmp)).catch((e: unknown) => e);
    expect(isBounceError(err) && err.exitCode).toBe(2);
    expect(String((err as Error).message)).toContain('no run matches "nope"');
  });
});

describe('bounce audit: check commands (docs/checks.md)', () => {
  const finalRecord = (): string => {
    const m = JSON.parse(readFileSync(join(run.dir, 'run.json'), 'utf8'));
    const last = [...m.pass_records].reverse().find((p: { status: string }) => p.status === 'completed');
    const rel = listRecordFiles(run.dir).find((r) => readRecord(join(run.dir, r)).response?.document?.path === last.document);
    if (!rel) throw new Error('no record produced the last document');
    return rel;
  };
  const withChecks = (status: CheckStatus, output = 'out.log'): string => {
    const rel = finalRecord();
    const rec = readRecord(join(run.dir, rel));
    writeFileSync(join(run.dir, 'out.log'), 'MD022\n');
    const sha = sha256('MD022\n');
    const checks = [
      {
        command: 'mdlint {file}',
        status,
        exit_code: status === 'passed' ? 0 : 1,
        duration_ms: 5,
        timeout_s: 60,
        output: { path: output, sha256: sha },
        dropped_bytes: 0,
      },
    ];
    writeFileSync(join(run.dir, rel), renderRecord({ ...rec, response: { ...rec.response!, checks } }));
    return rel;
  };
  const policyChecks = (): void => editJson((m) => void (m.policy.checks = [{ command: 'mdlint {file}', timeout_s: 60 }]));

  it('a converged run whose final document passed every check of its policy is fine', () => {
    policyChecks();
    withChecks('passed');
    expect(messages()).toEqual([]);
  });

  it('names a converged run whose final document failed a check, or was never run through one', () => {
    policyChecks();
    expect(messages()).toEqual([expect.stringMatching(/^the run converged, but the document of pass \d+ was never run through check `mdlint \{file\}`/)]);
    const rel = withChecks('failed');
    expect(messages()).toEqual([`the run converged, but the document of pass 2 did not pass check \`mdlint {file}\` (failed) (${rel})`]);
  });

  it("names a check's output file that is missing or changed", () => {
    const rel = withChecks('passed', 'gone.log');
    expect(messages()).toEqual([`response.checks (\`mdlint {file}\`) names gone.log, which does not exist (${rel})`]);
    withChecks('passed');
    appendFileSync(join(run.dir, 'out.log'), 'edited');
    expect(messages()).toEqual([`sha256 of out.log does not match response.checks (\`mdlint {file}\`) (${rel})`]);
  });
});
