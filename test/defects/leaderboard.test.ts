import { describe, expect, it } from 'vitest';
import type { Corpus } from '../../src/defects/corpus.js';
import { benchJson, benchTable, leaderboard, pairRow } from '../../src/defects/leaderboard.js';
import type { RowEvidence, RunScore } from '../../src/defects/run-score.js';
import { scoreDocument } from '../../src/defects/score.js';

const defect = (id: string, line: number) => ({ id, line, kind: 'wrong-number' as const, description: id, fixed_when: { absent: `bad-${id}` } });
const CORPUS: Corpus = {
  dir: '/c',
  documents: [
    { name: 'a', file: 'a.md', path: '/c/a.md', text: '', sha256: 'a', defects: [defect('a1', 5), defect('a2', 20)] },
    { name: 'b', file: 'b.md', path: '/c/b.md', text: '', sha256: 'b', defects: [defect('b1', 5)] },
  ],
};

function run(pair: string, document: 'a' | 'b', notes: number[], final: string | null, evidence: RowEvidence = 'live', cost: number | null = 0.01): RunScore {
  const [reviewer, composer] = pair.split('/') as [string, string];
  const doc = CORPUS.documents.find((d) => d.name === document)!;
  return {
    runId: `${pair}-${document}`,
    runDir: '/runs/x',
    pair,
    reviewer,
    composer,
    passes: 2,
    document,
    status: final === null ? 'not-converged' : 'converged',
    score: scoreDocument(
      doc.defects,
      notes.map((line) => ({ line, lintProblems: 0, fate: 'acted' })),
      final,
    ),
    costUsd: cost,
    durationMs: 1000,
    evidence,
    why: evidence === 'live' ? null : `${evidence} agent`,
    replayOf: null,
  };
}

const row = (pair: string, scores: RunScore[], notRun: string | null = null) => {
  const [reviewer, composer] = pair.split('/') as [string, string];
  return pairRow({ pair, reviewer, composer, batchId: null, notRun }, scores, CORPUS);
};

describe('pair rows', () => {
  it('adds up a pair over the corpus: recall, fix rate, precision, cost and time per defect found', () => {
    const r = row('claude/codex', [run('claude/codex', 'a', [5, 40], 'bad-a2 left'), run('claude/codex', 'b', [6], 'fixed')]);
    expect(r).toMatchObject({ status: 'run', evidence: 'live', defects: 3, found: 2, fixed: 2, notes: 3, stray_notes: 1, converged: 2 });
    expect(r).toMatchObject({
      recall: 2 / 3,
      fix_rate: 2 / 3,
      precision: 2 / 3,
      cost_usd: 0.02,
      duration_ms: 2000,
      cost_per_found_usd: 0.01,
      ms_per_found: 1000,
    });
  });

  it('counts the defects of a document the pair has no run of as planted, not found', () => {
    const r = row('claude/codex', [run('claude/codex', 'a', [5, 20], 'ok')]);
    expect(r).toMatchObject({ missing: ['b'], defects: 3, found: 2, recall: 2 / 3 });
  });

  it('shows a pair with no run as not-run: no numbers at all, and why', () => {
    const r = row('gemini/codex', [], 'gemini is not installed');
    expect(r).toMatchObject({ status: 'not-run', reason: 'gemini is not installed', recall: null, fix_rate: null, precision: null, found: null });
  });

  it('takes the least trusted evidence of its runs, and leaves unknown cost unknown', () => {
    const r = row('claude/mock', [run('claude/mock', 'a', [], 'x', 'live'), run('claude/mock', 'b', [], 'x', 'mock', null)]);
    expect(r).toMatchObject({ evidence: 'mock', reason: 'mock agent', cost_usd: null, cost_per_found_usd: null });
  });
});

describe('the leaderboard', () => {
  const live1 = row('claude/codex', [run('claude/codex', 'a', [5], 'ok'), run('claude/codex', 'b', [], 'bad-b1')]);
  const live2 = row('codex/claude', [run('codex/claude', 'a', [5, 20], 'ok'), run('codex/claude', 'b', [5], 'ok')]);
  const mock = row('mock/mock', [run('mock/mock', 'a', [5, 20], 'ok', 'mock'), run('mock/mock', 'b', [5], 'ok', 'mock')]);
  const cmd = row('cmd:x/cmd:x', [run('cmd:x/cmd:x', 'a', [5, 20], 'ok', 'cmd'), run('cmd:x/cmd:x', 'b', [5], 'ok', 'cmd')]);
  const unverified = row('openai/openai', [run('openai/openai', 'a', [5, 20], 'ok', 'unverified'), run('openai/openai', 'b', [5], 'ok', 'unverified')]);
  const notRun = row('gemini/codex', [], 'gemini is not installed');
  const rows = [live1, mock, cmd, unverified, notRun, live2];

  it('ranks live rows only, by fix rate, then recall, then precision', () => {
    expect(leaderboard(rows).map((r) => r.pair)).toEqual(['codex/claude', 'claude/codex']);
    expect(benchJson({ label: 'c', documents: 2, defects: 3 }, rows, null).leaderboard).toEqual(['codex/claude', 'claude/codex']);
  });

  it('prints mock, cmd:, unverified and not-run rows apart, unranked, with their reasons', () => {
    const text = benchTable(benchJson({ label: 'c', documents: 2, defects: 3 }, rows, 'bounce bench --corpus c --score-runs X'));
    const [live, others] = text.split('not live, never ranked');
    expect(live).toMatch(/^1\s+codex\/claude\s+live\s+100%\s+100%\s+100%/m);
    expect(live).toMatch(/^2\s+claude\/codex\s+live\s+33%/m);
    expect(live).not.toMatch(/mock\/mock|cmd:x|openai|gemini/);
    expect(others).toMatch(/^-\s+mock\/mock\s+mock\s/m);
    expect(others).toMatch(/^-\s+cmd:x\/cmd:x\s+cmd\s/m);
    expect(others).toMatch(/^-\s+openai\/openai\s+unverified\s/m);
    expect(others).toMatch(/^-\s+gemini\/codex\s+not-run\s+not-run/m);
    expect(others).toContain('gemini/codex: not run: gemini is not installed');
    expect(text).toContain('score again: bounce bench --corpus c --score-runs X');
  });
});
