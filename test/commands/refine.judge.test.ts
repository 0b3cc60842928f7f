/** `refine --judge` and `--require-judge` in-process, with the mock agent as the judge (transport, records, verdict, exit codes). */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const DOC = '# Migration\n\nWe move the database on Saturday night.\n';
const MOCKS = ['--reviewer', 'mock', '--composer', 'mock'];

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'doc.md'), DOC);
});

const onlyRun = (): string => {
  const runs = readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.'));
  expect(runs).toHaveLength(1);
  return join(dir, 'runs', runs[0]!);
};
const manifest = () => JSON.parse(readFileSync(join(onlyRun(), 'run.json'), 'utf8'));
const judgeScript = (steps: Record<string, string>): void =>
  writeFileSync(
    join(dir, 'j.yaml'),
    `steps:\n${Object.entries(steps)
      .map(([k, v]) => `  "${k}": ${JSON.stringify(v)}`)
      .join('\n')}\n`,
  );

describe('refine --judge with a mock judge', () => {
  it('asks twice with the order swapped, records both dispatches and the verdict, and audit accepts the run', async () => {
    judgeScript({ default: 'PREFER: TIE\nThe two read the same.' });
    const revised = DOC.replace('Saturday night', 'Saturday night, from 22:00 to 02:00');
    writeFileSync(join(dir, 'r.yaml'), `steps:\n  "1": ${JSON.stringify(revised)}\n`);
    const r = await runMain(['refine', 'doc.md', '--reviewer', 'mock:r.yaml', '--passes', '1', '--judge', 'mock:j.yaml', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.judge).toMatchObject({ agent: 'mock:j.yaml', prefers: 'tie', agreed: true, error: null });
    expect(out.judge.calls.map((c: { order: string }) => c.order)).toEqual(['original-first', 'final-first']);
    const m = manifest();
    expect(m.judge.dispatches).toHaveLength(2);
    expect(m.side_dispatches.map((d: { id: string; role: string; status: string }) => [d.id, d.role, d.status])).toEqual(
      m.judge.dispatches.map((id: string) => [id, 'judge', 'completed']),
    );
    expect(m.totals.dispatches).toBe(3);
    const runDir = onlyRun();
    const prompt1 = readFileSync(join(runDir, 'judge-1-mock-j.yaml.prompt.md'), 'utf8');
    const prompt2 = readFileSync(join(runDir, 'judge-2-mock-j.yaml.prompt.md'), 'utf8');
    // A first, then B, each framed: the original first in the first call, the final first in the second.
    const frames = (p: string) => [...p.matchAll(/<<<BOUNCE-DOCUMENT-([0-9a-f]{12})>>>\n([\s\S]*?)\n<<<END-BOUNCE-DOCUMENT-\1>>>/g)].map((x) => x[2]);
    expect(readFileSync(join(runDir, 'final.md'), 'utf8')).toBe(revised);
    expect(frames(prompt1)).toEqual([DOC, revised]);
    expect(frames(prompt2)).toEqual([revised, DOC]);
    expect(prompt1.indexOf('Document A')).toBeLessThan(prompt1.indexOf('Document B'));
    expect(readFileSync(join(runDir, 'judge-1-mock-j.yaml.reply.txt'), 'utf8')).toContain('PREFER: TIE');
    const rec = parseYaml(readFileSync(join(runDir, m.side_dispatches[0].record), 'utf8'));
    expect(rec.request.target_agent).toBe('judge/mock:j.yaml');
    expect(rec.request.context.files.map((f: { purpose: string }) => f.purpose)).toEqual(['document', 'document', 'prompt']);
    expect(rec.outcome.status).toBe('completed');
    const audit = await runMain(['audit', runDir], { cwd: dir });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    const show = await runMain(['show', runDir], { cwd: dir });
    expect(show.stdout).toMatch(/^judge +mock:j\.yaml: prefers neither document \(tie\), both orders agreeing \(original-first tie, final-first tie\)$/m);
    // The HTML report carries the verdict in its summary and both calls in its dispatches.
    const report = await runMain(['report', runDir], { cwd: dir });
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(report.stdout.trim(), 'utf8');
    // The mock judge is of the mock agents' family: the warning follows on a line of its own.
    expect(html).toMatch(
      /<dt>judge<\/dt><dd><span id="judge">mock:j\.yaml: prefers neither document \(tie\), both orders agreeing \(original-first tie, final-first tie\)<br>warning: the judge mock:j\.yaml is of the mock model family[^<]*<\/span><\/dd>/,
    );
    expect(html.match(/<td>judge\/mock:j\.yaml<\/td>/g)).toHaveLength(2);
    // A judge's record is anchored like a pass's: edited afterwards, audit names it.
    const recPath = join(runDir, m.side_dispatches[1].record);
    writeFileSync(recPath, readFileSync(recPath, 'utf8').replace('completed', 'rejected'));
    const tampered = await runMain(['audit', runDir], { cwd: dir });
    expect(tampered.code).not.toBe(0);
    expect(tampered.stdout + tampered.stderr).toContain(m.side_dispatches[1].id);
  });

  it('the same label in both orders is no agreement: prefers tie, and --require-judge exits 1 with error type judge', async () => {
    judgeScript({ default: 'PREFER: B' });
    const r = await runMain(['refine', 'doc.md', ...MOCKS, '--judge', 'mock:j.yaml', '--require-judge', '--json'], { cwd: dir });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'converged', exit_code: 1, error: { type: 'judge' } });
    expect(out.judge).toMatchObject({ prefers: 'tie', agreed: false });
    expect(out.judge.calls.map((c: { prefers: string }) => c.prefers)).toEqual(['final', 'original']);
    // run.json keeps the run's own exit code; the verdict is beside it.
    expect(manifest()).toMatchObject({ status: 'converged', exit_code: 0, judge: { prefers: 'tie' } });
  });

  it('repairs a malformed reply once, with the repair wording of prompts/repair.md', async () => {
    judgeScript({ '2': 'I think B is better.', '2.repair-1': 'PREFER: TIE', default: 'PREFER: TIE' });
    const r = await runMain(['refine', 'doc.md', ...MOCKS, '--judge', 'mock:j.yaml', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const m = manifest();
    expect(m.side_dispatches.map((d: { kind: string; status: string }) => `${d.kind}:${d.status}`)).toEqual([
      'pass:rejected',
      'repair:completed',
      'pass:rejected',
      'repair:completed',
    ]);
    expect(m.judge).toMatchObject({ prefers: 'tie', agreed: true });
    expect((await runMain(['audit', onlyRun()], { cwd: dir })).code).toBe(0);
    const repair = readFileSync(join(onlyRun(), 'judge-1-mock-j.yaml.repair-1.prompt.md'), 'utf8');
    expect(repair.split('\n')[0]).toBe(readFileSync(join(import.meta.dirname, '../../prompts/repair.md'), 'utf8').split('\n')[0]);
    expect(repair).toContain('PREFER: A, PREFER: B or PREFER: TIE');
  });

  it('a reply still malformed after its repair gives no verdict; --require-judge exits 1', async () => {
    judgeScript({ default: 'B is better' });
    const r = await runMain(['refine', 'doc.md', ...MOCKS, '--judge', 'mock:j.yaml', '--require-judge', '--json'], { cwd: dir });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.judge).toMatchObject({ prefers: null, agreed: false, error: { type: 'malformed' } });
    expect(out.error.message).toContain('no verdict');
    expect(manifest().side_dispatches).toHaveLength(4);
  });

  it("warns when the judge is of the reviewer's model family, on stderr and in run.json", async () => {
    judgeScript({ default: 'PREFER: TIE' });
    const r = await runMain(['refine', 'doc.md', ...MOCKS, '--judge', 'mock:j.yaml'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/judge mock:j\.yaml: prefers neither document \(tie\)/);
    expect(r.stderr).toMatch(/warning: the judge mock:j\.yaml is of the mock model family, as the reviewer mock and the composer mock are/);
    expect(manifest().judge.warning).toContain('mock model family');
  });

  it('refuses --require-judge without --judge, an empty --judge and an unknown judge before any run folder', async () => {
    for (const args of [['--require-judge'], ['--judge', ' '], ['--judge', 'nosuchagent']]) {
      const r = await runMain(['refine', 'doc.md', ...MOCKS, ...args], { cwd: dir });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(() => readdirSync(join(dir, 'runs'))).toThrow();
  });

  it('a run that does not converge is not judged', async () => {
    writeFileSync(join(dir, 'r.yaml'), `steps:\n  "1": ${JSON.stringify(`${DOC}\n[CLARIFY] Which night? (A) Saturday (B) Sunday\n`)}\n`);
    judgeScript({ default: 'PREFER: TIE' });
    const r = await runMain(['refine', 'doc.md', '--reviewer', 'mock:r.yaml', '--passes', '1', '--judge', 'mock:j.yaml', '--json', '--max-repairs', '0'], {
      cwd: dir,
    });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).judge).toBeUndefined();
    expect(manifest().side_dispatches).toBeUndefined();
  });

  it('--dry-run says the judge will be called twice after a converged run, and checks its flags; nothing is called or written', async () => {
    const r = await runMain(['refine', 'doc.md', ...MOCKS, '--judge', 'mock', '--require-judge', '--dry-run', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).judge).toEqual({
      agent: 'mock',
      adapter: 'mock',
      calls: 2,
      orders: ['original-first', 'final-first'],
      require: true,
      timeout_s: expect.any(Number),
    });
    const text = await runMain(['refine', 'doc.md', ...MOCKS, '--judge', 'mock', '--dry-run'], { cwd: dir });
    expect(text.stdout).toMatch(/^judge: mock, 2 calls after the run converges \(original-first, then final-first\), not in the estimate$/m);
    expect(JSON.parse((await runMain(['refine', 'doc.md', ...MOCKS, '--dry-run', '--json'], { cwd: dir })).stdout).judge).toBeNull();
    const bad = await runMain(['refine', 'doc.md', ...MOCKS, '--require-judge', '--dry-run'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--require-judge needs a judge');
    expect(readdirSync(dir)).toEqual(['doc.md']);
  });

  it("a judged run resumed with more passes: the judge's records stay side dispatches, the chain goes on from them, audit passes", async () => {
    judgeScript({ default: 'PREFER: TIE' });
    expect((await runMain(['refine', 'doc.md', ...MOCKS, '--judge', 'mock:j.yaml', '--json'], { cwd: dir })).code).toBe(0);
    const r = await runMain(['resume', 'latest', '--passes', '4', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const m = manifest();
    expect(m.pass_records.map((p: { dispatches: unknown[] }) => p.dispatches.length)).toEqual([1, 1, 1, 1]);
    expect(m.side_dispatches.map((d: { role: string; after: number }) => `${d.role}:${d.after}`)).toEqual(['judge:2', 'judge:2']);
    expect(m.totals.dispatches).toBe(6);
    const audit = await runMain(['audit', onlyRun()], { cwd: dir });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
  });
});
