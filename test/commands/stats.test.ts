/** `bounce stats`, the grades file, and what check and refine make of it, over real mock runs, in-process. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { sinceMs } from '../../src/commands/stats.js';
import { cleanEnv, ROOT, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const EX = join(ROOT, 'examples');
const AGENTS = ['--reviewer', `mock:${EX}/mock-script.yaml`, '--composer', `mock:${EX}/mock-script.yaml`];
let dir: string;
const bounce = (args: string[]) => runMain(args, { cwd: dir, env: cleanEnv() });

beforeEach(async () => {
  dir = tempDir('bounce-stats-');
  for (let i = 0; i < 2; i++) expect((await bounce(['refine', join(EX, 'rfc-draft.md'), ...AGENTS, '--runs-dir', 'runs', '--json'])).code).toBe(0);
  // The newest run is graded: one note accepted, one rejected.
  const list = JSON.parse((await bounce(['grade', 'latest', '--list', '--json', '--runs-dir', 'runs'])).stdout);
  const [a, b] = list.findings.map((f: { id: string }) => f.id);
  writeFileSync(join(dir, 'v.yaml'), `${a}: accepted\n${b}: rejected\n`);
  expect((await bounce(['grade', 'latest', '--from', 'v.yaml', '--grader', 'ana', '--runs-dir', 'runs'])).code).toBe(0);
});

describe('bounce stats', () => {
  it('counts per agent and role: runs, notes and their fate, precision of the graded ones, pass figures', async () => {
    const r = await bounce(['stats', '--runs-dir', 'runs', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.runs).toBe(2);
    const reviewer = out.agents.find((a: { role: string }) => a.role === 'reviewer');
    const composer = out.agents.find((a: { role: string }) => a.role === 'composer');
    expect(reviewer).toMatchObject({
      adapter: 'mock',
      evidence: 'mock',
      runs: 2,
      passes: 2,
      dispatches: 2,
      notes: { raised: 4, open: 0 },
      graded: { accepted: 1, rejected: 1, skipped: 0 },
      precision: 0.5,
      precision_by_confidence: { HIGH: 0.5 },
      failures_per_pass: 0,
      converged_runs: 2,
      trend: null,
    });
    expect(reviewer.notes.acted + reviewer.notes.dismissed).toBe(4);
    expect(reviewer.agent).toMatch(/^reviewer\/mock(:.+)?$/);
    expect(reviewer.last_graded).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(composer).toMatchObject({ notes: { raised: 0 }, precision: null, graded: { accepted: 0, rejected: 0 } });
    expect(composer.resolved.acted + composer.resolved.dismissed).toBe(4);
    expect(typeof reviewer.median_pass_ms).toBe('number');
    const text = await bounce(['stats', '--runs-dir', 'runs']);
    expect(text.stdout).toMatch(/^2 runs in .*runs\n/);
    expect(text.stdout).toMatch(/reviewer\/mock\S*\s+2\s+2\s+4\s/);
    expect(text.stdout).toContain('50%');
    // --since: a date after every run leaves them all out.
    const later = JSON.parse((await bounce(['stats', '--runs-dir', 'runs', '--since', '2999-01-01', '--json'])).stdout);
    expect(later).toMatchObject({ runs: 0, agents: [], skipped: { before_since: 2 } });
  });

  it('--write writes the grades file in the protocol shape; check flags, and refine warns of, an agent below min_precision', async () => {
    writeFileSync(join(dir, 'bounce.config.yaml'), 'reviewer: mock\ncomposer: mock\nruns_dir: runs\n');
    const r = await bounce(['stats', '--write']);
    expect(r.code, r.stderr).toBe(0);
    const path = join(dir, '.bounce', 'grades.yaml');
    expect(r.stderr).toBe(`wrote ${path}\n`);
    const text = readFileSync(path, 'utf8');
    expect(text).toMatch(
      /^"reviewer\/mock[^"]*":\n {2}precision_high: 0\.5\n {2}precision_med: null\n {2}precision_low: null\n {2}recall_estimate: null\n {2}last_graded: "\d{4}-\d{2}-\d{2}"\n {2}trend: null\n {2}graded: 2$/m,
    );
    const check = await bounce(['check', '--json']);
    const rows = JSON.parse(check.stdout).agents;
    expect(rows[0].warnings.map((w: { message: string }) => w.message)).toEqual([
      expect.stringMatching(/^reviewer\/mock\S* has a precision of 0\.5 on high-confidence findings, 2 graded findings, below min_precision 0\.85/),
    ]);
    const refine = await bounce(['refine', join(EX, 'rfc-draft.md'), ...AGENTS]);
    expect(refine.code).toBe(0);
    expect(refine.stderr).toMatch(/warning: reviewer mock:\S+: reviewer\/mock\S* has a precision of 0\.5 .*below min_precision 0\.85/);
    // A lower line in config: no warning.
    writeFileSync(join(dir, 'bounce.config.yaml'), 'reviewer: mock\ncomposer: mock\nruns_dir: runs\nmin_precision: 0.4\n');
    expect((await bounce(['refine', join(EX, 'rfc-draft.md'), ...AGENTS])).stderr).not.toContain('min_precision');
    // --grades FILE, and --html a scorecard with a chart per agent.
    mkdirSync(join(dir, 'out'));
    const both = await bounce(['stats', '--write', '--grades', 'out/g.yaml', '--html', 'out/card.html']);
    expect(both.code).toBe(0);
    expect(readFileSync(join(dir, 'out', 'g.yaml'), 'utf8')).toContain('precision_high: 0.5');
    const html = readFileSync(join(dir, 'out', 'card.html'), 'utf8');
    expect(html.match(/<section class="agent"/g)).toHaveLength(2);
    expect(html.match(/<svg /g)!.length).toBeGreaterThanOrEqual(5);
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/i);
  });

  it('--since takes a date or an age; anything else is a usage error', async () => {
    expect(sinceMs('2026-05-01')).toBe(Date.parse('2026-05-01T00:00:00Z'));
    expect(sinceMs('30d', 1_000_000_000_000)).toBe(1_000_000_000_000 - 30 * 86_400_000);
    const bad = await bounce(['stats', '--runs-dir', 'runs', '--since', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('bounce: --since "soon" is neither a date nor an age: give a date (--since 2026-05-01) or an age (--since 30d)\n');
    expect((await bounce(['stats', '--runs-dir', 'runs', '--grades', 'x.yaml'])).code).toBe(2);
  });
});
