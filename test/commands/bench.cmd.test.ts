/**
 * `bounce bench` with a `cmd:` agent (test/fixtures/adapters/bench-fixer.mjs): a program
 * scripted to note and fix a few known texts of the shipped corpus, and nothing of its answer
 * keys. The agent is transport only: each score below follows from what its table made it do.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const CORPUS = fileURLToPath(new URL('../../examples/corpus', import.meta.url));
const FIXER = `cmd:${fileURLToPath(new URL('../fixtures/adapters/bench-fixer.mjs', import.meta.url))}`;

// What the agent does, by text of the corpus:
const TABLE = [
  // api-rate-limits, defect per-second (line 16): noted on its line and fixed.
  { find: 'average of 20 requests a second', note: '600 a minute is 10 a second; write "10 requests a second".', replace: 'average of 10 requests a second' },
  // deploy-runbook, defect other-pods: noted and fixed.
  { find: 'other two pods', note: 'There are four pods; write "the other three pods".', replace: 'other three pods' },
  // backup-runbook, defect retention: noted, never fixed.
  { find: 'Snapshots older than 30 days', note: 'Snapshots are kept 14 days; write "older than 14 days".' },
  // backup-runbook: a note on a line four lines from its nearest defect, which points at nothing.
  { find: 'Page the database on-call', note: 'Page the primary first; write "Page the primary database on-call".' },
  // deploy-runbook, defect step-zero: fixed without a note (the composer runs there: the document has a note).
  { find: 'starting at step 0', replace: 'starting at step 1' },
];

describe('bounce bench with a scripted cmd: agent', () => {
  it('scores what the agent did: 3 of 44 defects found, 3 fixed, 3 of 4 notes near a defect; the row is cmd, never ranked', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'table.json'), JSON.stringify(TABLE));
    const env = cleanEnv({ BENCH_FIXER_TABLE: join(dir, 'table.json') });
    const pair = `${FIXER}/${FIXER}`;
    const r = await runMain(['bench', '--corpus', CORPUS, '--pairs', pair, '--concurrency', '4', '--json'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.defects).toBe(44);
    expect(out.leaderboard).toEqual([]);
    expect(out.pairs[0]).toMatchObject({
      pair,
      status: 'run',
      evidence: 'cmd',
      converged: 13,
      found: 3,
      fixed: 3,
      notes: 4,
      stray_notes: 1,
      recall: 3 / 44,
      fix_rate: 3 / 44,
      precision: 3 / 4,
      // The per-second and other-pods notes were acted on (their lines changed); the other two dismissed.
      dismissal_rate: 2 / 4,
    });
    // One dispatch for each document, and a composer's for the three that got a note (the others converged on pass 1).
    expect(out.pairs[0].cost_usd).toBeCloseTo(16 * 0.002, 10);
    expect(out.pairs[0].cost_per_found_usd).toBeCloseTo((16 * 0.002) / 3, 10);
    expect(out.pairs[0].by_kind['wrong-number']).toEqual({ defects: 11, found: 2, fixed: 2 });
    expect(out.pairs[0].by_kind['stale-reference']).toEqual({ defects: 6, found: 0, fixed: 1 });
    expect(out.pairs[0].by_kind.contradiction).toEqual({ defects: 8, found: 1, fixed: 0 });
    // What the agents were sent holds no answer key.
    const descriptions = readdirSync(CORPUS)
      .filter((f) => f.endsWith('.defects.yaml'))
      .flatMap((f) => [...readFileSync(join(CORPUS, f), 'utf8').matchAll(/description: "(.*)"/g)].map((m) => m[1]!));
    expect(descriptions.length).toBe(44);
    for (const run of readdirSync(join(dir, 'runs')))
      for (const f of readdirSync(join(dir, 'runs', run)).filter((n) => n.endsWith('.prompt.md'))) {
        const prompt = readFileSync(join(dir, 'runs', run, f), 'utf8');
        for (const d of descriptions) expect(prompt).not.toContain(d);
      }
  });
});
