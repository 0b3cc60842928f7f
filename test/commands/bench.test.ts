import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

/**
 * `bounce bench` in-process with scripted mock agents: the reviewer's reply and the composer's
 * are literal, so what each note points at and what the final document fixes is known, and
 * the scores must follow from it (the mock is transport only).
 */

// Line numbers matter: the answer key below points at them.
const DOC = `# Session cache

## Lifetime

The cache keeps each session for 300 seconds after its last use.

Filler paragraph one.

Filler paragraph two.

## Eviction

Entries older than 600 seconds are evicted by the sweeper.

Filler paragraph three.

Filler paragraph four, four lines from each defect: a note here points at nothing.

## Limits

Each client may open 50 sessions.
`;

const KEY = `- id: ttl
  line: 13
  kind: contradiction
  description: "SECRET-DESCRIPTION-TTL: the eviction age disagrees with the lifetime"
  fixed_when: { absent: "older than 600 seconds" }
- id: scope
  line: 21
  kind: ambiguous-scope
  description: "SECRET-DESCRIPTION-SCOPE: at once or in total is not said"
  fixed_when: { present: "at once" }
- id: ref
  line: 5
  kind: wrong-number
  description: "SECRET-DESCRIPTION-REF: planted for the test"
  fixed_when: { absent: "for 300 seconds after" }
`;

// Pass 1: a note right below the eviction line (found; its text says what is wrong but not
// what to write, so it breaks the dissent-only lint rule) and a stray note by the filler.
const REVIEW = DOC.replace(
  'Entries older than 600 seconds are evicted by the sweeper.\n',
  'Entries older than 600 seconds are evicted by the sweeper.\n[CONTESTED] This says 600 seconds, but the lifetime above is 300 seconds; one of them is wrong.\n',
).replace('points at nothing.\n', 'points at nothing.\n[CLARIFY] Is this paragraph needed? (A) Yes, keep it. (B) No, cut it.\n');
// Pass 2: the eviction age fixed (the contested note acted on), the stray note dismissed.
const COMPOSE = DOC.replace('older than 600 seconds', 'older than 300 seconds');

const indent = (text: string): string =>
  text
    .split('\n')
    .map((l) => (l ? `    ${l}` : ''))
    .join('\n');
const SCRIPT = `steps:\n  "1": |\n${indent(REVIEW)}\n  "2": |\n${indent(COMPOSE)}\n`;

let dir: string;

beforeEach(() => {
  dir = tempDir();
  mkdirSync(join(dir, 'corpus'));
  writeFileSync(join(dir, 'corpus', 'session.md'), DOC);
  writeFileSync(join(dir, 'corpus', 'session.defects.yaml'), KEY);
  writeFileSync(join(dir, 'script.yaml'), SCRIPT);
});

const PAIR = 'mock:script.yaml/mock:script.yaml';

function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((n) => {
    const p = join(root, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** The numbers of a row that a replay must reproduce. */
const scoresOf = (row: Record<string, unknown>) => {
  const { runs: _runs, batch_id: _batch, replayed: _replayed, ...rest } = row;
  return rest;
};

describe('bounce bench with scripted mock agents', () => {
  it('scores recall within 2 lines, fix rate from fixed_when, precision, stray notes, lint failures and dismissals', async () => {
    const r = await runMain(['bench', '--corpus', 'corpus', '--pairs', PAIR, '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ documents: 1, defects: 3, leaderboard: [] });
    const [row] = out.pairs;
    expect(row).toMatchObject({
      pair: PAIR,
      status: 'run',
      evidence: 'mock',
      converged: 1,
      defects: 3,
      found: 1,
      fixed: 1,
      notes: 2,
      stray_notes: 1,
      lint_failures: 1,
      recall: 1 / 3,
      fix_rate: 1 / 3,
      precision: 1 / 2,
      dismissal_rate: 1 / 2,
      by_kind: { contradiction: { defects: 1, found: 1, fixed: 1 }, 'ambiguous-scope': { defects: 1, found: 0, fixed: 0 } },
    });
    expect(row.batch_id).toMatch(/^[0-9A-Z]{26}$/);
    // The documents were staged for the agents and the staging folder is gone.
    expect(readdirSync(join(dir, 'runs')).filter((n) => n.startsWith('.bench-'))).toEqual([]);
  });

  it('never lets an answer key into a run folder: no description, no key file, no fixed_when', async () => {
    const r = await runMain(['bench', '--corpus', 'corpus', '--pairs', PAIR, '--json', '--lint', 'warn'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const files = filesUnder(join(dir, 'runs'));
    // The run folder holds prompts, replies and records: the agent's whole view of the document.
    expect(files.some((f) => /prompt/.test(f))).toBe(true);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      expect(text, f).not.toContain('SECRET-DESCRIPTION');
      expect(text, f).not.toContain('fixed_when');
      expect(f).not.toMatch(/\.defects\.yaml$/);
    }
  });

  it('scores the same runs again, and their replays, identically (--score-runs)', async () => {
    const first = await runMain(['bench', '--corpus', 'corpus', '--pairs', PAIR, '--json'], { cwd: dir });
    const bench = JSON.parse(first.stdout);
    const batch = bench.pairs[0].batch_id;
    expect(bench.rescore).toBe(`bounce bench --corpus corpus --score-runs ${batch}`);
    const again = await runMain(['bench', '--corpus', 'corpus', '--score-runs', batch, '--json'], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(scoresOf(JSON.parse(again.stdout).pairs[0])).toEqual(scoresOf(bench.pairs[0]));

    const replay = await runMain(['replay', '--batch', batch, '--json'], { cwd: dir });
    expect(replay.code, replay.stderr).toBe(0);
    const replays = JSON.parse(replay.stdout).runs;
    expect(replays.map((x: { outcome: string }) => x.outcome)).toEqual(['reproduced']);
    const scored = await runMain(['bench', '--corpus', 'corpus', '--score-runs', ...replays.map((x: { replay_dir: string }) => x.replay_dir), '--json'], {
      cwd: dir,
    });
    expect(scored.code, scored.stderr).toBe(0);
    const row = JSON.parse(scored.stdout).pairs[0];
    expect(row.replayed).toBe(true);
    expect(row.runs).not.toEqual(bench.pairs[0].runs);
    expect(scoresOf(row)).toEqual(scoresOf(bench.pairs[0]));
  });

  it('shows a pair that could not run as not-run, with the reason, not as zeros; exit 1', async () => {
    const r = await runMain(['bench', '--corpus', 'corpus', '--pairs', `${PAIR},anthropic/mock`], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/anthropic\/mock\s+not-run\s+not-run\s+not-run/);
    expect(r.stdout).toMatch(/anthropic\/mock: not run: .*ANTHROPIC_API_KEY/);
    const json = JSON.parse((await runMain(['bench', '--corpus', 'corpus', '--pairs', `${PAIR},anthropic/mock`, '--json'], { cwd: dir })).stdout);
    expect(json.pairs[1]).toMatchObject({ pair: 'anthropic/mock', status: 'not-run', recall: null, fix_rate: null, precision: null, evidence: null });
  });

  it('keeps mock rows out of the live leaderboard and writes a self-contained HTML page', async () => {
    const r = await runMain(['bench', '--corpus', 'corpus', '--pairs', PAIR, '--html', 'bench.html'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('no live rows');
    expect(r.stdout).toMatch(/not live, never ranked[\s\S]*mock:script\.yaml\/mock:script\.yaml\s+mock\s+33%\s+33%\s+50%/);
    const html = readFileSync(join(dir, 'bench.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('No live rows');
    expect(html).not.toMatch(/<script|<link|src=/);
  });

  it('refuses a bad answer key before anything runs, naming the file and the field (exit 2)', async () => {
    writeFileSync(join(dir, 'corpus', 'session.defects.yaml'), KEY.replace('kind: wrong-number', 'kind: typo'));
    const r = await runMain(['bench', '--corpus', 'corpus', '--pairs', PAIR], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bounce: corpus\/session\.defects\.yaml: \[2\]\.kind: /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(dir, 'runs'))).toBe(false);
  });
});

describe('bounce bench plant', () => {
  const RUNBOOK = `# Rotating keys

The Key Management Service (KMS) holds the keys; rotate them every 90 days.

1. Create the new key version in KMS.
2. Publish the new public key to every verifier.
3. Switch the signers to the new version.
4. Disable the old version after 90 days.

Ask before skipping a step; see section 2 of the policy.
`;

  it('writes the planted copy and its key, the same for the same seed, the input untouched', async () => {
    writeFileSync(join(dir, 'runbook.md'), RUNBOOK);
    const a = await runMain(['bench', 'plant', 'runbook.md', '--out', 'a', '--seed', '5', '--json'], { cwd: dir });
    const b = await runMain(['bench', 'plant', 'runbook.md', '--out', 'b', '--seed', '5'], { cwd: dir });
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    expect(b.stdout).toBe('b/runbook.md\nb/runbook.defects.yaml\n');
    expect(readFileSync(join(dir, 'runbook.md'), 'utf8')).toBe(RUNBOOK);
    for (const f of ['runbook.md', 'runbook.defects.yaml']) expect(readFileSync(join(dir, 'b', f), 'utf8')).toBe(readFileSync(join(dir, 'a', f), 'utf8'));
    expect(readFileSync(join(dir, 'a', 'runbook.md'), 'utf8')).not.toBe(RUNBOOK);
    expect(JSON.parse(a.stdout)).toMatchObject({ seed: 5, defects: expect.arrayContaining([expect.objectContaining({ id: 'p1' })]) });
    // The planted copy is a corpus of its own.
    const bench = await runMain(['bench', '--corpus', 'a', '--pairs', 'mock/mock', '--json'], { cwd: dir });
    expect(bench.code, bench.stderr).toBe(0);
  });

  it('overwrites nothing, and refuses a document with no place to plant (exit 2)', async () => {
    writeFileSync(join(dir, 'runbook.md'), RUNBOOK);
    expect((await runMain(['bench', 'plant', 'runbook.md', '--out', 'a'], { cwd: dir })).code).toBe(0);
    const again = await runMain(['bench', 'plant', 'runbook.md', '--out', 'a'], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/a\/runbook\.md exists already/);
    writeFileSync(join(dir, 'plain.md'), '# Title\n\nNothing to change here.\n');
    const none = await runMain(['bench', 'plant', 'plain.md', '--out', 'p'], { cwd: dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no place to plant a defect/);
    expect(existsSync(join(dir, 'p'))).toBe(false);
  });
});
