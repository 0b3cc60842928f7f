import { appendFileSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRecordFiles, readRecord } from '../../src/store/dispatch-record.js';
import { readManifest } from '../../src/store/manifest.js';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

/** A real `bounce refine` with mock agents, then the commands that read its run folder. */

const DOC = `# Cache policy

Entries expire after ten minutes unless the origin sends a shorter max-age.

Stale entries may be served while the origin is unreachable, for at most one hour.

The cache key is the full URL including the query string.
`;

let cwd: string;
let runDir: string;

beforeAll(async () => {
  cwd = tempDir('bounce-audit-cli-');
  writeFileSync(join(cwd, 'cache.md'), DOC);
  const refine = await runMain(['refine', 'cache.md', '--reviewer', 'mock', '--composer', 'mock', '--passes', '2'], { cwd });
  expect(refine.stderr).not.toMatch(/Warning|Error:/);
  expect(refine.code).toBe(0);
  const runs = readdirSync(join(cwd, 'runs'), { withFileTypes: true }).filter((d) => d.isDirectory());
  expect(runs).toHaveLength(1);
  runDir = join(cwd, 'runs', runs[0]!.name);
});

afterAll(() => cwd && rmSync(cwd, { recursive: true, force: true }));

describe('bounce audit on a real mock run', () => {
  it('leaves one valid record per dispatch, listed in run.json', () => {
    const manifest = readManifest(runDir);
    expect(manifest.status).toBe('converged');
    expect(manifest.evidence).toBe('mock');
    const files = listRecordFiles(runDir);
    expect(files).toHaveLength(manifest.totals.dispatches);
    const records = files.map((f) => readRecord(join(runDir, f)));
    expect(records.every((r) => r.outcome.status !== 'pending')).toBe(true);
    const pass1 = records.find((r) => r.request.plan_ancestry.pass === 1 && r.outcome.status === 'completed')!;
    expect(pass1.response!.findings.length).toBe(manifest.pass_records[0]!.added);
  });

  it('exits 0 on the untouched run', async () => {
    const res = await runMain(['audit', 'latest'], { cwd });
    expect(res.stdout).toBe('');
    expect(res.code).toBe(0);
    const json = await runMain(['audit', 'latest', '--json'], { cwd });
    expect(json.code).toBe(0);
    // A run of this bounce is bound by its records: no "unbound" note.
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, problems: [], records: readManifest(runDir).totals.dispatches, unbound: null });
    expect(res.stderr).not.toContain('unbound');
  });

  it('the reading commands work on it', async () => {
    for (const args of [['runs'], ['show', 'latest'], ['diff', 'latest'], ['report', 'latest']]) {
      const res = await runMain(args, { cwd });
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
    }
    expect(existsSync(join(runDir, 'report.html'))).toBe(true);
  });

  it('exits 1 naming a tampered artifact', async () => {
    const prompt = readdirSync(runDir).find((f) => f.startsWith('pass-1-') && f.endsWith('.prompt.md'))!;
    appendFileSync(join(runDir, prompt), 'tampered\n');
    const res = await runMain(['audit', 'latest'], { cwd });
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(
      new RegExp(`^problem: sha256 of ${prompt.replace(/\./g, '\\.')} does not match .*\\(audit/dispatches/\\d{4}-\\d{2}-\\d{2}/[0-9A-Z]{26}\\.yaml\\)$`, 'm'),
    );
  });

  it('exits 2 for a run that does not exist', async () => {
    const res = await runMain(['audit', 'no-such-run'], { cwd });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/no run matches "no-such-run"/);
  });
});
