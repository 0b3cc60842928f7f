/** `bounce attest` and `bounce verify` in-process, on runs of the mock agent (docs/provenance.md). */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { PREDICATE_TYPE, recordsDigest, STATEMENT_TYPE } from '../../src/attest/attestation.js';
import { sha256 } from '../../src/store/hash.js';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const DOC = '# Migration\n\nWe move the database on Saturday night.\n';
const REVISED = DOC.replace('Saturday night', 'Saturday night, from 22:00 to 02:00');
const CONTESTED = `${DOC}[CONTESTED] Saturday night has no on-call cover: move it to Sunday morning.\n`;

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'doc.md'), DOC);
});

const script = (name: string, steps: Record<string, string>): string => {
  writeFileSync(
    join(dir, name),
    `steps:\n${Object.entries(steps)
      .map(([k, v]) => `  "${k}": ${JSON.stringify(v)}`)
      .join('\n')}\n`,
  );
  return `mock:${name}`;
};
const runIds = (): string[] => readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.'));
const lastRun = (): string => runIds().sort().at(-1)!;
const json = (rel: string) => JSON.parse(readFileSync(join(dir, rel), 'utf8'));

/** A converged one-pass run that revises doc.md in place. */
async function refineInPlace(): Promise<string> {
  const r = await runMain(['refine', 'doc.md', '--reviewer', script('r.yaml', { '1': REVISED }), '--passes', '1', '--in-place', '--quiet'], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  return runIds()[0]!;
}

describe('bounce attest', () => {
  it('writes an in-toto Statement v1 beside the document: its sha256, the run, the records digest, agents and families, ledger, cost', async () => {
    const runId = await refineInPlace();
    const r = await runMain(['attest', runId], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('doc.md.bounce.json');
    const st = json('doc.md.bounce.json');
    expect(st._type).toBe(STATEMENT_TYPE);
    expect(st.predicateType).toBe(PREDICATE_TYPE);
    expect(st.subject).toEqual([{ name: 'doc.md', digest: { sha256: sha256(REVISED) } }]);
    const m = json(`runs/${runId}/run.json`);
    expect(st.predicate).toMatchObject({
      run_id: runId,
      tool: { name: 'bounce' },
      original_sha256: sha256(DOC),
      records: recordsDigest(join(dir, 'runs', runId)),
      agents: { reviewer: { spec: 'mock:r.yaml', adapter: 'mock', family: 'mock' }, composer: { adapter: 'mock', family: 'mock' } },
      ledger: { acted: 0, dismissed: 0, left: 0, dismissed_contested: 0 },
      judge: null,
      cost: { usd: m.totals.cost_usd, source: m.totals.cost_source },
    });
    expect(st.predicate.records.count).toBe(m.totals.dispatches);
  });

  it('digests the records as sha256 over the sorted `<sha256>  <path>` lines of audit/dispatches', async () => {
    const runId = await refineInPlace();
    const runDir = join(dir, 'runs', runId);
    const days = readdirSync(join(runDir, 'audit', 'dispatches')).sort();
    const files = days.flatMap((d) =>
      readdirSync(join(runDir, 'audit', 'dispatches', d))
        .sort()
        .map((f) => `audit/dispatches/${d}/${f}`),
    );
    const lines = files.map((f) => `${sha256(readFileSync(join(runDir, f)))}  ${f}\n`).join('');
    expect(recordsDigest(runDir)).toEqual({ count: files.length, sha256: sha256(lines) });
  });

  it('writes into --out DIR for a run whose document stayed in its run folder, and refuses without it', async () => {
    const r0 = await runMain(['refine', 'doc.md', '--reviewer', script('r.yaml', { '1': REVISED }), '--passes', '1', '--quiet'], { cwd: dir });
    expect(r0.code, r0.stderr).toBe(0);
    const refused = await runMain(['attest', 'latest'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/only into its run folder.*give --out DIR/);
    const r = await runMain(['attest', 'latest', '--out', 'att', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      attestation: join(dir, 'att', 'doc.md.bounce.json'),
      subject: { name: 'doc.md', digest: { sha256: sha256(REVISED) } },
    });
  });

  it('refuses a run that did not converge in one line', async () => {
    writeFileSync(join(dir, 'doc.md'), `${DOC}[CLARIFY] Which Saturday? (A) this one (B) the next\n`);
    writeFileSync(join(dir, 'echo.yaml'), 'steps:\n  "1": { action: echo }\n  "1.repair": { action: echo }\n');
    const r0 = await runMain(['refine', 'doc.md', '--reviewer', 'mock:echo.yaml', '--passes', '1', '--in-place', '--quiet'], { cwd: dir });
    expect(r0.code).toBe(1);
    const r = await runMain(['attest', 'latest'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bounce: run \S+ is not-converged, and only a converged run is attested: finish it first/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(dir, 'doc.md.bounce.json'))).toBe(false);
  });
});

describe('bounce verify', () => {
  it('passes a document whose bytes match an attestation whose run audits clean', async () => {
    await refineInPlace();
    expect((await runMain(['attest', 'latest'], { cwd: dir })).code).toBe(0);
    const r = await runMain(['verify', 'doc.md', '--json'], { cwd: dir });
    expect(r.code, r.stdout).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, documents: [{ document: 'doc.md', ok: true, run_id: lastRun(), problems: [] }] });
    // The attestation beside the document is not taken for a document itself.
    const text = await runMain(['verify', 'doc.md*'], { cwd: dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`ok: doc.md (run ${lastRun()})\n`);
  });

  it('fails naming each document that matches no attestation, or changed since', async () => {
    await refineInPlace();
    expect((await runMain(['attest', 'latest'], { cwd: dir })).code).toBe(0);
    writeFileSync(join(dir, 'other.md'), '# Other\n');
    let r = await runMain(['verify', 'doc.md', 'other.md'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`ok: doc.md (run ${lastRun()})\nfail: other.md: no attestation matches it\n`);
    writeFileSync(join(dir, 'doc.md'), `${REVISED}One more line.\n`);
    r = await runMain(['verify', 'doc.md'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^fail: doc\.md: its bytes do not match its attestation/);
  });

  it('fails when the run no longer audits clean, or the attestation was edited', async () => {
    const runId = await refineInPlace();
    expect((await runMain(['attest', 'latest'], { cwd: dir })).code).toBe(0);
    const st = json('doc.md.bounce.json');
    st.predicate.ledger.acted = 3;
    writeFileSync(join(dir, 'doc.md.bounce.json'), JSON.stringify(st));
    let r = await runMain(['verify', 'doc.md'], { cwd: dir });
    expect(r.stdout).toBe(`fail: doc.md: its attestation does not match its run ${runId} (ledger)\n`);
    st.predicate.ledger.acted = 0;
    writeFileSync(join(dir, 'doc.md.bounce.json'), JSON.stringify(st));
    expect((await runMain(['verify', 'doc.md'], { cwd: dir })).code).toBe(0);
    writeFileSync(join(dir, 'runs', runId, 'original.md'), 'edited\n');
    r = await runMain(['verify', 'doc.md'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^fail: doc\\.md: its run ${runId} does not audit clean: `));
  });

  it('still passes after a human grades the run (a grade leaves the records digest as it was)', async () => {
    const r0 = await runMain(['refine', 'doc.md', '--reviewer', 'mock', '--composer', 'mock', '--in-place', '--quiet'], { cwd: dir });
    expect(r0.code, r0.stderr).toBe(0);
    expect((await runMain(['attest', 'latest'], { cwd: dir })).code).toBe(0);
    const list = JSON.parse((await runMain(['grade', 'latest', '--list', '--json'], { cwd: dir })).stdout);
    const record = join(dir, 'runs', lastRun(), list.findings[0].record);
    const before = readFileSync(record, 'utf8');
    expect(list.findings.length).toBeGreaterThan(0);
    writeFileSync(join(dir, 'verdicts.yaml'), list.findings.map((f: { id: string }) => `"${f.id}": accepted\n`).join(''));
    const graded = await runMain(['grade', 'latest', '--from', 'verdicts.yaml', '--grader', 'ana'], { cwd: dir });
    expect(graded.code, graded.stderr).toBe(0);
    expect(readFileSync(record, 'utf8')).not.toBe(before);
    const r = await runMain(['verify', 'doc.md'], { cwd: dir });
    expect(r.code, r.stdout).toBe(0);
  });

  it('finds attestations in --attestations DIR and runs in --runs-dir', async () => {
    await refineInPlace();
    expect((await runMain(['attest', 'latest', '--out', 'att'], { cwd: dir })).code).toBe(0);
    expect((await runMain(['verify', 'doc.md'], { cwd: dir })).code).toBe(1);
    expect((await runMain(['verify', 'doc.md', '--attestations', 'att'], { cwd: dir })).code).toBe(0);
    const r = await runMain(['verify', 'doc.md', '--attestations', 'att', '--runs-dir', 'elsewhere'], { cwd: dir });
    expect(r.stdout).toMatch(/its run \S+ is not in .*elsewhere \(give --runs-dir\)/);
  });

  it('applies config verify.require_cross_family and verify.forbid_dismissed_contested', async () => {
    // Pass 1 raises a [CONTESTED] note; pass 2 deletes it and leaves the text as it was: a dismissal.
    const r0 = await runMain(
      [
        'refine',
        'doc.md',
        '--reviewer',
        script('r.yaml', { '1': CONTESTED }),
        '--composer',
        script('c.yaml', { '2': DOC }),
        '--passes',
        '2',
        '--in-place',
        '--quiet',
      ],
      { cwd: dir },
    );
    expect(r0.code, r0.stderr).toBe(0);
    expect((await runMain(['attest', 'latest'], { cwd: dir })).code).toBe(0);
    expect(json('doc.md.bounce.json').predicate.ledger).toEqual({ acted: 0, dismissed: 1, left: 0, dismissed_contested: 1 });
    expect((await runMain(['verify', 'doc.md'], { cwd: dir })).code).toBe(0);
    writeFileSync(join(dir, 'bounce.config.yaml'), 'verify:\n  require_cross_family: true\n  forbid_dismissed_contested: true\n');
    const r = await runMain(['verify', 'doc.md', '--json'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).documents[0].problems).toEqual([
      'verify.require_cross_family: the reviewer and the composer are both of the mock model family',
      'verify.forbid_dismissed_contested: the run dismissed 1 [CONTESTED] note',
    ]);
  });
});
