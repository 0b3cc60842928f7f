import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/engine/run-document.js';
import type { RunManifest } from '../../src/store/manifest.js';
import type { Evidence } from '../../src/vocabulary.js';
import { errorJson, extendedPasses, fromCache, nextStep, summaryLines } from '../../src/ui/run-summary.js';
import { memIo } from '../support/mem-io.js';
import { tempDir } from '../support/cli.js';
import { type FakeRun, makeFakeRun } from '../support/fake-run.js';

let fake: FakeRun;
beforeAll(() => {
  fake = makeFakeRun(tempDir());
});

/** A run result over the fake run's manifest, ended as `status` with `error`. */
function ended(status: RunResult['status'], error: RunResult['error'] = null, manifest: RunManifest = fake.manifest): RunResult {
  return { runId: fake.runId, runDir: fake.dir, status, exitCode: 1, document: null, outputPath: null, notesLeft: null, error, manifest };
}

describe('the next step after a run', () => {
  it('none after a converged run; resume after an interrupted one', () => {
    expect(nextStep(ended('converged'), null)).toBeNull();
    expect(nextStep(ended('interrupted'), null)).toBe(`bounce resume ${fake.runId}`);
  });

  it('not converged: on to the next even pass count, from the last accepted document, named relative to where bounce ran', () => {
    const [p1, p2] = fake.manifest.pass_records;
    const lastFailed = { ...fake.manifest, pass_records: [p1!, { ...p2!, status: 'failed' as const, document: null }] };
    const step = nextStep(ended('not-converged', { type: 'not-converged', message: '1 note left' }, lastFailed), join(fake.dir, '..'));
    expect(fake.manifest.passes.run).toBe(2);
    expect(step).toBe(
      `1 note left; bounce resume ${fake.runId} --passes 4 goes on from the last accepted document (${join(fake.runId, p1!.document!)}) to a final composer pass, with --composer <agent> to try another composer`,
    );
  });

  it('an error message that ends a sentence is joined to the step without doubled punctuation', () => {
    const step = nextStep(ended('not-converged', { type: 'not-converged', message: 'the reply was refused as it was sent.' }), null);
    expect(step).toMatch(/^the reply was refused as it was sent; bounce resume /);
  });

  it('carries what finds the run (--runs-dir, --config) in the command it prints', () => {
    const where = ' --runs-dir out-runs';
    expect(nextStep(ended('interrupted'), null, where)).toBe(`bounce resume ${fake.runId} --runs-dir out-runs`);
    expect(nextStep(ended('not-converged', { type: 'not-converged', message: 'x' }), null, where)).toContain(
      `bounce resume ${fake.runId} --runs-dir out-runs --passes 4 goes on`,
    );
    expect(nextStep(ended('failed', { type: 'auth', message: 'a' }), null, where)).toBe(
      `fix the cause above, then bounce resume ${fake.runId} --runs-dir out-runs`,
    );
  });

  it('offers the smallest even pass count above the passes run: the final pass is then a composer pass', () => {
    const ran = (run: number) => ({ passes: { requested: run, run, all_passes: false } });
    expect([1, 2, 3, 4, 5].map((run) => extendedPasses(ran(run)))).toEqual([2, 4, 4, 6, 6]);
  });

  it("failed: the step for the error's type", () => {
    const resume = `bounce resume ${fake.runId}`;
    const longest = Math.max(fake.manifest.agents.reviewer.timeout_s, fake.manifest.agents.composer.timeout_s);
    expect(nextStep(ended('failed', { type: 'timeout', message: 't' }), null)).toBe(`${resume} --timeout ${longest * 2}`);
    expect(nextStep(ended('failed', { type: 'quota', message: 'q', resets_at: '2026-05-15T00:00:00Z' }), null)).toBe(`${resume} after 2026-05-15T00:00:00Z`);
    expect(nextStep(ended('failed', { type: 'quota', message: 'q' }), null)).toBe(`${resume} once the agent's limit has reset`);
    expect(nextStep(ended('failed', { type: 'auth', message: 'a' }), null)).toBe(`fix the cause above, then ${resume}`);
    expect(nextStep(ended('failed', { type: 'truncated', message: 'x' }), null)).toMatch(/^raise the agent's max_output_tokens/);
    expect(nextStep(ended('failed', { type: 'network', message: 'x' }), null)).toBe(resume);
  });
});

describe('errorJson', () => {
  it('an error before any run folder: no run, exit code and error as given, nothing counted', () => {
    const j = errorJson(2, 'usage', 'no such file');
    expect(j).toMatchObject({
      run_id: null,
      run_dir: null,
      status: 'error',
      exit_code: 2,
      passes_run: 0,
      error: { type: 'usage', message: 'no such file' },
      next: null,
    });
  });
});

describe('fromCache', () => {
  it('says after the dispatch count how many the response cache answered, and nothing when none did', () => {
    expect(fromCache(0)).toBe('');
    expect(fromCache(3)).toBe(' (3 from the response cache)');
    expect(errorJson(2, 'usage', 'x').cache_hits).toBe(0);
  });
});

describe('summaryLines: the cost', () => {
  it("says a subscription login's cost is list price, not a charge", () => {
    const m: RunManifest = { ...fake.manifest, totals: { ...fake.manifest.totals, cost_usd: 0.25, cost_source: 'subscription' } };
    const text = summaryLines(ended('converged', null, m), memIo(tempDir(), { env: { NO_COLOR: '1' } }));
    expect(text).toContain('$0.2500 (list price: a subscription login, not billed by the token)');
  });
});

describe('summaryLines: mock evidence', () => {
  const head = (m: RunManifest): string => summaryLines(ended('converged', null, m), memIo(tempDir(), { env: { NO_COLOR: '1' } })).split('\n')[0]!;
  const agents = (reviewer: Evidence, composer: Evidence): RunManifest['agents'] => ({
    reviewer: { ...fake.manifest.agents.reviewer, evidence: reviewer },
    composer: { ...fake.manifest.agents.composer, evidence: composer },
  });

  it('both agents mock: mock agents, not a live result', () => {
    expect(head({ ...fake.manifest, evidence: 'mock', agents: agents('mock', 'mock') })).toMatch(/^converged \(mock agents: not a live result\): /);
  });

  it('one mock beside an external or a live agent (evidence mixed): a mock agent, not a live result', () => {
    expect(head({ ...fake.manifest, evidence: 'mixed', agents: agents('external', 'mock') })).toMatch(/^converged \(a mock agent: not a live result\): /);
    expect(head({ ...fake.manifest, evidence: 'mixed', agents: agents('mock', 'live') })).toMatch(/^converged \(a mock agent: not a live result\): /);
  });

  it('no mock agent: no banner, mixed or not', () => {
    expect(head({ ...fake.manifest, evidence: 'mixed', agents: agents('external', 'live') })).toMatch(/^converged: /);
    expect(head({ ...fake.manifest, evidence: 'live', agents: agents('live', 'live') })).toMatch(/^converged: /);
  });
});
