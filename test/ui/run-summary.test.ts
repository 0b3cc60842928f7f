import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/engine/run-document.js';
import type { RunManifest } from '../../src/store/manifest.js';
import type { Evidence } from '../../src/vocabulary.js';
import { errorJson, fromCache, nextStep, offeredPasses, offerReason, summaryLines } from '../../src/ui/run-summary.js';
import { DEFAULT_MAX_PASSES } from '../../src/config/defaults.js';
import type { StepPlace } from '../../src/store/run-location.js';
import { memIo } from '../support/mem-io.js';
import { tempDir } from '../support/cli.js';
import { type FakeRun, makeFakeRun } from '../support/fake-run.js';

/** Where the defaults find the run, under the default max_passes. */
const HERE: StepPlace = { flags: '', maxPasses: DEFAULT_MAX_PASSES };

let fake: FakeRun;
beforeAll(() => {
  fake = makeFakeRun(tempDir());
});

/** `n` completed passes as the fake run's records: its first two, then copies of them. */
function completed(n: number): RunManifest['pass_records'] {
  const [p1, p2] = fake.manifest.pass_records;
  return Array.from({ length: n }, (_, i) => {
    const base = i % 2 === 0 ? p1! : p2!;
    return { ...base, pass: i + 1, status: 'completed' as const, document: `pass-${i + 1}-${base.role}.md` };
  });
}

/** A run result over the fake run's manifest, ended as `status` with `error`. */
function ended(status: RunResult['status'], error: RunResult['error'] = null, manifest: RunManifest = fake.manifest): RunResult {
  return { runId: fake.runId, runDir: fake.dir, status, exitCode: 1, document: null, outputPath: null, notesLeft: null, error, manifest };
}

describe('the next step after a run', () => {
  it('none after a converged run; resume after an interrupted one', () => {
    expect(nextStep(ended('converged'), null, HERE)).toBeNull();
    expect(nextStep(ended('interrupted'), null, HERE)).toBe(`bounce resume ${fake.runId}`);
  });

  it('not converged: on to the next even pass count, from the last accepted document, named relative to where bounce ran', () => {
    const [p1, p2] = fake.manifest.pass_records;
    const lastFailed = { ...fake.manifest, pass_records: [p1!, { ...p2!, status: 'failed' as const, document: null }] };
    const step = nextStep(ended('not-converged', { type: 'not-converged', message: '1 note left' }, lastFailed), join(fake.dir, '..'), HERE);
    expect(fake.manifest.passes.run).toBe(2);
    expect(step).toBe(
      `1 note left; bounce resume ${fake.runId} --passes 4 goes on from the last accepted document (${join(fake.runId, p1!.document!)}) to a final composer pass, with --composer <agent> to try another composer`,
    );
  });

  it('not converged under a max_passes that leaves only an odd count: a final reviewer pass, and another reviewer to try', () => {
    // Both passes completed (the final one left a note): only --passes 3 goes past them under max_passes 3.
    const step = nextStep(ended('not-converged', { type: 'not-converged', message: '1 note left' }), join(fake.dir, '..'), { ...HERE, maxPasses: 3 });
    expect(step).toMatch(/--passes 3 goes on .* to a final reviewer pass \(max_passes allows at most 3\), with --reviewer <agent> to try another reviewer$/);
  });

  it('an error message that ends a sentence is joined to the step without doubled punctuation', () => {
    const step = nextStep(ended('not-converged', { type: 'not-converged', message: 'the reply was refused as it was sent.' }), null, HERE);
    expect(step).toMatch(/^the reply was refused as it was sent; bounce resume /);
  });

  it('carries what finds the run (--runs-dir, --config) in the command it prints', () => {
    const where = ' --runs-dir out-runs';
    expect(nextStep(ended('interrupted'), null, { ...HERE, flags: where })).toBe(`bounce resume ${fake.runId} --runs-dir out-runs`);
    expect(nextStep(ended('not-converged', { type: 'not-converged', message: 'x' }), null, { ...HERE, flags: where })).toContain(
      `bounce resume ${fake.runId} --runs-dir out-runs --passes 4 goes on`,
    );
    expect(nextStep(ended('failed', { type: 'auth', message: 'a' }), null, { ...HERE, flags: where })).toBe(
      `fix the cause above, then bounce resume ${fake.runId} --runs-dir out-runs`,
    );
  });

  it('offers the smallest even pass count above the passes run: the final pass is then a composer pass', () => {
    const ran = (run: number) => ({ passes: { requested: run, run, all_passes: false }, pass_records: completed(run) });
    expect([1, 2, 3, 4, 5].map((run) => offeredPasses(ran(run), DEFAULT_MAX_PASSES)?.passes)).toEqual([2, 4, 4, 6, 6]);
    expect(offerReason(offeredPasses(ran(2), DEFAULT_MAX_PASSES)!)).toBe('an even count, so the final pass is a composer pass');
  });

  it('never offers more than max_passes: the largest count within it that goes past the last completed pass, else none', () => {
    // Converged after `run` passes, every one completed; not converged: the final pass was refused.
    const converged = (run: number) => ({ passes: { requested: run, run, all_passes: false }, pass_records: completed(run) });
    const refused = (run: number) => ({ passes: { requested: run, run, all_passes: false }, pass_records: completed(run - 1) });
    const max = DEFAULT_MAX_PASSES;
    expect(offeredPasses(converged(max - 1), max)).toEqual({ passes: max, final: 'composer', capped: null });
    // At the maximum: a converged run goes no further; a not-converged one runs its refused final pass again.
    expect(offeredPasses(converged(max), max)).toBeNull();
    expect(offeredPasses(refused(max), max)).toEqual({ passes: max, final: 'composer', capped: `max_passes allows at most ${max}` });
    // An odd maximum: the even count below it while that goes further, else the maximum, a reviewer's final pass.
    expect(offeredPasses(refused(4), 5)).toMatchObject({ passes: 4, final: 'composer' });
    expect(offeredPasses(converged(4), 5)).toMatchObject({ passes: 5, final: 'reviewer' });
    expect(offeredPasses(refused(5), 5)).toMatchObject({ passes: 5, final: 'reviewer' });
    expect(offerReason(offeredPasses(converged(4), 5)!)).toBe('an odd count, so the final pass is a reviewer pass; max_passes allows at most 5');
    // A max_passes lowered since the run: below its completed passes, nothing.
    expect(offeredPasses(refused(max), 4)).toBeNull();
  });

  it("not converged at max_passes: the final pass again within it, or a new run from the last accepted document with the run's agents", () => {
    const run = (passes: number): RunManifest => ({
      ...fake.manifest,
      passes: { requested: passes, run: passes, all_passes: true },
      pass_records: [...completed(passes - 1), { ...fake.manifest.pass_records[1]!, pass: passes, status: 'failed', document: null }],
    });
    const place = { flags: ' --runs-dir out-runs', maxPasses: 4 };
    const again = nextStep(ended('not-converged', { type: 'not-converged', message: 'x' }, run(4)), null, place);
    expect(again).toContain(`bounce resume ${fake.runId} --runs-dir out-runs --passes 4 goes on from the last accepted document (`);
    expect(again).toContain('to a final composer pass (max_passes allows at most 4), with --composer <agent>');
    const none = nextStep(ended('not-converged', { type: 'not-converged', message: 'x' }, run(6)), null, place);
    const doc = join(fake.dir, completed(5)[4]!.document!);
    expect(none).toBe(
      `x; it has had the most passes a run may have (max_passes: 4): bounce refine ${doc} --reviewer ${fake.manifest.agents.reviewer.spec} --composer ${fake.manifest.agents.composer.spec} --runs-dir out-runs starts a new run from its last accepted document`,
    );
  });

  it("failed: the step for the error's type", () => {
    const resume = `bounce resume ${fake.runId}`;
    const longest = Math.max(fake.manifest.agents.reviewer.timeout_s, fake.manifest.agents.composer.timeout_s);
    expect(nextStep(ended('failed', { type: 'timeout', message: 't' }), null, HERE)).toBe(`${resume} --timeout ${longest * 2}`);
    expect(nextStep(ended('failed', { type: 'quota', message: 'q', resets_at: '2026-05-15T00:00:00Z' }), null, HERE)).toBe(
      `${resume} after 2026-05-15T00:00:00Z`,
    );
    expect(nextStep(ended('failed', { type: 'quota', message: 'q' }), null, HERE)).toBe(`${resume} once the agent's limit has reset`);
    expect(nextStep(ended('failed', { type: 'auth', message: 'a' }), null, HERE)).toBe(`fix the cause above, then ${resume}`);
    expect(nextStep(ended('failed', { type: 'truncated', message: 'x' }), null, HERE)).toMatch(/^raise the agent's max_output_tokens/);
    expect(nextStep(ended('failed', { type: 'network', message: 'x' }), null, HERE)).toBe(resume);
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
    const text = summaryLines(ended('converged', null, m), memIo(tempDir(), { env: { NO_COLOR: '1' } }), HERE);
    expect(text).toContain('$0.2500 (list price: a subscription login, not billed by the token)');
  });
});

describe('summaryLines: pass times', () => {
  it('lists each attempt of a pass tried again after an interruption, the earlier one with how it ended', () => {
    const [p1, p2] = completed(2);
    const records: RunManifest['pass_records'] = [
      { ...p1!, duration_ms: 30 },
      { ...p2!, status: 'interrupted', duration_ms: 2400 },
      { ...p2!, duration_ms: 10 },
    ];
    const text = summaryLines(ended('converged', null, { ...fake.manifest, pass_records: records }), memIo(tempDir(), { env: { NO_COLOR: '1' } }), HERE);
    expect(text).toContain(`\npass times: 1 ${p1!.role} 0.0s, 2 ${p2!.role} 2.4s (interrupted), 2 ${p2!.role} 0.0s\n`);
  });
});

describe('summaryLines: mock evidence', () => {
  const head = (m: RunManifest): string => summaryLines(ended('converged', null, m), memIo(tempDir(), { env: { NO_COLOR: '1' } }), HERE).split('\n')[0]!;
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
