import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

/**
 * The README's rules for replies that are no usable document, for --max-repairs and for
 * the transient-retry cap, through `bounce refine --json` in-process with scripted mocks.
 */

const DOC = '# Rollout plan\n\nWe ship the feature to every user on Monday.\n\nRollback is manual.\n';
/** Over summary_min_words (50), so a short reply reads as a summary of it. */
const LONG = `# Spec\n\n${'This sentence describes one more requirement of the system in detail. '.repeat(20)}\n`;
const SUMMARY = '"In short, it is a spec."';

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'plan.md'), DOC);
  writeFileSync(join(dir, 'spec.md'), LONG);
});

interface DispatchJson {
  kind: string;
  index: number;
  stem: string;
  status: string;
}
const runDir = (): string => {
  const runs = readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.'));
  expect(runs).toHaveLength(1);
  return join(dir, 'runs', runs[0]!);
};
const manifest = () => JSON.parse(readFileSync(join(runDir(), 'run.json'), 'utf8'));
const dispatches = (pass: number): DispatchJson[] => manifest().pass_records.find((p: { pass: number }) => p.pass === pass).dispatches;

/** `bounce refine <doc> --json` with the reviewer and composer mocks following `steps`. */
async function refine(doc: string, steps: Record<string, string>, extra: string[] = []) {
  const yaml = `steps:\n${Object.entries(steps)
    .map(([k, v]) => `  "${k}": ${v}\n`)
    .join('')}`;
  writeFileSync(join(dir, 's.yaml'), yaml);
  const r = await runMain(['refine', doc, '--reviewer', 'mock:s.yaml', '--composer', 'mock:s.yaml', '--json', ...extra], { cwd: dir });
  return { ...r, json: JSON.parse(r.stdout) };
}

describe('no usable document after the repairs', () => {
  it('a non-final pass whose reply is still a summary after its repair fails: exit 3', async () => {
    const r = await refine('spec.md', { '1': SUMMARY, '1.repair': SUMMARY });
    expect(r.code, r.stderr).toBe(3);
    expect(r.json).toMatchObject({ status: 'failed', exit_code: 3, output: null, passes_run: 0, error: { type: 'malformed' } });
    const m = manifest();
    expect(m).toMatchObject({ status: 'failed', exit_code: 3, error: { type: 'malformed' } });
    expect(m.pass_records).toHaveLength(1);
    expect(m.pass_records[0]).toMatchObject({ status: 'failed', repairs: 1, retries: 0 });
    expect(dispatches(1).map((d) => [d.kind, d.status])).toEqual([
      ['pass', 'rejected'],
      ['repair', 'rejected'],
    ]);
    expect(existsSync(join(runDir(), 'final.md'))).toBe(false);
  });

  it('the final pass with notes whose repair reply is malformed does not converge: exit 1', async () => {
    // Pass 1 (reviewer) adds a note; pass 2 leaves it; the repair answers with NUL bytes.
    const r = await refine('plan.md', { '1': '{ action: review }', '2': '{ action: echo }', '2.repair': '"# Rollout\\0plan"' }, ['--out', 'out.md']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.json).toMatchObject({ status: 'not-converged', exit_code: 1, notes_left: 1, output: null, passes_run: 2, error: { type: 'not-converged' } });
    const m = manifest();
    expect(m).toMatchObject({ status: 'not-converged', exit_code: 1, notes_left: 1, output: { written: false } });
    expect(m.pass_records[1]).toMatchObject({ status: 'failed', repairs: 1 });
    expect(dispatches(2).map((d) => [d.kind, d.status])).toEqual([
      ['pass', 'rejected'],
      ['repair', 'rejected'],
    ]);
    expect(existsSync(join(dir, 'out.md'))).toBe(false);
    expect(existsSync(join(runDir(), 'final.md'))).toBe(false);
  });
});

describe('--max-repairs', () => {
  it('0: no repair is sent, notes left on the final pass end the run: exit 1', async () => {
    const r = await refine('plan.md', { '1': '{ action: review }', '2': '{ action: echo }', '2.repair': '{ action: resolve }' }, ['--max-repairs', '0']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.json).toMatchObject({ status: 'not-converged', exit_code: 1, notes_left: 1, output: null });
    const m = manifest();
    expect(m).toMatchObject({ status: 'not-converged', exit_code: 1, policy: { max_repairs: 0 } });
    expect(m.pass_records[1]).toMatchObject({ repairs: 0 });
    expect(dispatches(2).map((d) => d.kind)).toEqual(['pass']);
    expect(m.totals.dispatches).toBe(2);
    expect(readdirSync(runDir()).filter((f) => f.includes('.repair-'))).toEqual([]);
  });

  it('2: two repairs are sent, as .repair-1 and .repair-2, and the second one converges', async () => {
    const r = await refine(
      'plan.md',
      { '1': '{ action: review }', '2': '{ action: echo }', '2.repair-1': '{ action: echo }', '2.repair-2': '{ action: resolve }' },
      ['--max-repairs', '2'],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'converged', exit_code: 0, notes_left: 0, passes_run: 2, error: null });
    const m = manifest();
    expect(m).toMatchObject({ status: 'converged', exit_code: 0, policy: { max_repairs: 2 } });
    expect(m.pass_records[1]).toMatchObject({ status: 'completed', repairs: 2, notes_after: 0 });
    const stem = 'pass-2-composer-mock-s.yaml';
    expect(dispatches(2).map((d) => [d.kind, d.index, d.stem, d.status])).toEqual([
      ['pass', 0, stem, 'rejected'],
      ['repair', 1, `${stem}.repair-1`, 'rejected'],
      ['repair', 2, `${stem}.repair-2`, 'completed'],
    ]);
    const files = readdirSync(runDir());
    for (const f of [`${stem}.repair-1.prompt.md`, `${stem}.repair-1.reply.txt`, `${stem}.repair-2.prompt.md`, `${stem}.repair-2.md`])
      expect(files).toContain(f);
    expect(readFileSync(join(runDir(), 'final.md'), 'utf8')).toBe(DOC);
  });
});

describe('the transient-retry cap', () => {
  it('a pass that keeps getting 5xx fails after 3 such calls with their error type, a reply in between having reset the breaker', async () => {
    const e500 = '{ error: { type: provider, message: "upstream 500", status: 500 } }';
    // 500, an empty reply (resent; a reply resets the breaker), 500, 500: two transient
    // retries are spent, so the last 500 fails the pass; a third retry would have converged.
    const r = await refine('plan.md', { '1': e500, '1.retry-1': '""', '1.retry-2': e500, '1.retry-3': e500, '1.retry-4': '{ action: resolve }' });
    expect(r.code, r.stderr).toBe(3);
    expect(r.json).toMatchObject({ status: 'failed', exit_code: 3, error: { type: 'provider' } });
    const m = manifest();
    expect(m).toMatchObject({ status: 'failed', exit_code: 3, error: { type: 'provider' } });
    expect(m.breaker).toMatchObject({ open: false, consecutive_failures: 2 });
    expect(m.pass_records[0]).toMatchObject({ status: 'failed', retries: 3 });
    expect(dispatches(1).map((d) => [d.kind, d.index, d.status])).toEqual([
      ['pass', 0, 'error'],
      ['retry', 1, 'rejected'],
      ['retry', 2, 'error'],
      ['retry', 3, 'error'],
    ]);
    expect(m.totals.dispatches).toBe(4);
  });
});
