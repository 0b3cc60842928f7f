/** `refine --lens` and config `lenses` in-process, with the mock agents (what reaches the prompts and run.json; resume and replay keep them). */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const DOC = '# Plan\n\nThe rollout starts on Monday.\n\nIt ends on Friday.\n';
const MOCKS = ['--reviewer', 'mock', '--composer', 'mock'];

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'doc.md'), DOC);
});

const runDirs = (): string[] =>
  readdirSync(join(dir, 'runs'))
    .filter((n) => !n.startsWith('.'))
    .sort()
    .map((n) => join(dir, 'runs', n));
const manifest = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
const prompt = (runDir: string, pass: number): string => {
  const file = readdirSync(runDir).find((f) => f.startsWith(`pass-${pass}-`) && f.endsWith('.prompt.md'));
  return readFileSync(join(runDir, file!), 'utf8');
};

describe('refine --lens', () => {
  it('gives each reviewer pass the next lens in turn, none to the composer, and records it per pass', async () => {
    writeFileSync(join(dir, 'privacy.md'), 'Look for personal data kept without a retention rule.\n');
    const r = await runMain(['refine', 'doc.md', ...MOCKS, '--passes', '6', '--all-passes', '--lens', 'security', '--lens', './privacy.md'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const [run] = runDirs();
    expect(prompt(run!, 1)).toMatch(/Review lens of this pass \(security\):\nRead the document as an attacker/);
    expect(prompt(run!, 3)).toMatch(/Review lens of this pass \(privacy\):\nLook for personal data kept without a retention rule\./);
    expect(prompt(run!, 5)).toMatch(/Review lens of this pass \(security\)/);
    expect(prompt(run!, 2)).not.toMatch(/Review lens of this pass/);
    const m = manifest(run!);
    expect(m.pass_records.map((p: { lens?: string }) => p.lens ?? null)).toEqual(['security', null, 'privacy', null, 'security', null]);
    expect(m.policy.lenses.map((l: { name: string }) => l.name)).toEqual(['security', 'privacy']);
    expect((await runMain(['audit', m.run_id], { cwd: dir })).code).toBe(0);
    const show = await runMain(['show', m.run_id], { cwd: dir });
    expect(show.stdout).toContain('lenses    security, privacy (the reviewer passes in turn)\n');
    expect(show.stdout).toMatch(/^pass 3 {2}reviewer mock {2}completed\n(?:.*\n)*? {2}lens {6}privacy\n/m);
  });

  it('is part of the policy: a replay reproduces the run, and a resume goes on with the recorded lenses though the file changed', async () => {
    writeFileSync(join(dir, 'privacy.md'), 'Look for personal data.\n');
    expect((await runMain(['refine', 'doc.md', ...MOCKS, '--passes', '2', '--all-passes', '--lens', 'clarity,./privacy.md'], { cwd: dir })).code).toBe(0);
    const [run] = runDirs();
    const id = manifest(run!).run_id;
    const replayed = await runMain(['replay', run!, '--runs-dir', 'replays'], { cwd: dir });
    expect(replayed.code, replayed.stderr).toBe(0);
    writeFileSync(join(dir, 'privacy.md'), 'Something else entirely.\n');
    const resumed = await runMain(['resume', id, '--passes', '4'], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(prompt(run!, 3)).toMatch(/Review lens of this pass \(privacy\):\nLook for personal data\./);
    expect(manifest(run!).pass_records.map((p: { lens?: string }) => p.lens ?? null)).toEqual(['clarity', null, 'privacy', null]);
  });

  it('config lenses are read relative to the config file, and --lens replaces them', async () => {
    writeFileSync(join(dir, 'own.md'), 'Check every date against the calendar.\n');
    writeFileSync(join(dir, 'bounce.config.yaml'), 'lenses: [./own.md, correctness]\n');
    expect((await runMain(['refine', 'doc.md', ...MOCKS, '--passes', '1'], { cwd: dir })).code).toBe(0);
    expect(prompt(runDirs()[0]!, 1)).toMatch(/Review lens of this pass \(own\):\nCheck every date/);
    expect((await runMain(['refine', 'doc.md', ...MOCKS, '--passes', '1', '--lens', 'api-docs', '--runs-dir', 'other'], { cwd: dir })).code).toBe(0);
    const other = readdirSync(join(dir, 'other')).find((n) => !n.startsWith('.'));
    expect(prompt(join(dir, 'other', other!), 1)).toMatch(/Review lens of this pass \(api-docs\)/);
  });

  it('an unknown lens is a usage error before anything is written', async () => {
    const r = await runMain(['refine', 'doc.md', ...MOCKS, '--lens', 'securty'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bounce: --lens: no lens named securty: did you mean security\?/m);
  });
});
