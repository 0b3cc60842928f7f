import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/engine/run-document.js';
import type { RunManifest } from '../../src/store/manifest.js';
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

  it('not converged: two passes more, from the last accepted document, named relative to where bounce ran', () => {
    const [p1, p2] = fake.manifest.pass_records;
    const lastFailed = { ...fake.manifest, pass_records: [p1!, { ...p2!, status: 'failed' as const, document: null }] };
    const step = nextStep(ended('not-converged', { type: 'not-converged', message: '1 note left' }, lastFailed), join(fake.dir, '..'));
    expect(step).toBe(
      `1 note left; bounce resume ${fake.runId} --passes ${fake.manifest.passes.run + 2} goes on from the last accepted document (${join(fake.runId, p1!.document!)}), with --composer <agent> to try another composer`,
    );
    expect(extendedPasses({ passes: { requested: 2, run: 3, all_passes: false } })).toBe(5);
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
