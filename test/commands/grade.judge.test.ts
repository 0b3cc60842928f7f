/** `bounce grade --judge <agent>`: a mock agent grades the findings of a real mock run, in-process; records, repairs, failures, audit. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { verifyRun } from '../../src/audit/verify.js';
import { readRecord } from '../../src/store/dispatch-record.js';
import { cleanEnv, ROOT, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const EX = join(ROOT, 'examples');
let dir: string;
let runDir: string;

const refine = async (extra: string[] = []) => {
  const r = await runMain(
    ['refine', join(EX, 'rfc-draft.md'), '--reviewer', `mock:${EX}/mock-script.yaml`, '--composer', `mock:${EX}/mock-script.yaml`, '--json', ...extra],
    { cwd: dir },
  );
  expect(r.code, r.stderr).toBe(0);
  runDir = JSON.parse(r.stdout).run_dir;
};

beforeEach(() => {
  dir = tempDir('bounce-grade-judge-');
});

const grade = (args: string[]) => runMain(['grade', 'latest', ...args], { cwd: dir, env: cleanEnv() });
const manifest = () => JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
async function findingIds(): Promise<string[]> {
  const r = await grade(['--list', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).findings.map((f: { id: string }) => f.id);
}
/** The grader's script: keys are the pass it grades ("1") and its repair ("1.repair"). */
function graderScript(steps: Record<string, string>, name = 'g.yaml'): string {
  writeFileSync(
    join(dir, name),
    `steps:\n${Object.entries(steps)
      .map(([k, v]) => `  "${k}": ${JSON.stringify(v)}`)
      .join('\n')}\n`,
  );
  return `mock:${name}`;
}
const gradedRecord = () => readRecord(join(runDir, manifest().pass_records[0].dispatches[0].record));

describe('bounce grade --judge with a mock agent', () => {
  it('repairs a malformed reply once, writes the verdicts as agent:<spec>, records each call as a grader dispatch, and audit passes', async () => {
    await refine();
    const [a, b] = await findingIds();
    const agent = graderScript({ '1': `My grades:\n${a}: accepted`, '1.repair': `${a}: accepted - five is a lot\n${b}: rejected (the text says all)` });
    const r = await grade(['--judge', agent, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      grader: 'agent:mock:g.yaml',
      given: { accepted: 1, rejected: 1, skipped: 0 },
      findings: 2,
      graded: 2,
      reasons: { [a!]: 'five is a lot', [b!]: 'the text says all' },
      error: null,
    });
    expect(out.usage.input_tokens).toBeGreaterThan(0);
    // Each verdict keeps the reason the agent gave after it.
    expect(gradedRecord().outcome.grade).toEqual({
      grader: 'agent:mock:g.yaml',
      verdicts: [
        { finding: a, verdict: 'accepted', reason: 'five is a lot' },
        { finding: b, verdict: 'rejected', reason: 'the text says all' },
      ],
      history: [],
    });
    const m = manifest();
    expect(m.side_dispatches.map((d: { role: string; kind: string; status: string; id: string }) => [d.id, d.role, d.kind, d.status])).toEqual([
      [out.dispatches[0], 'grader', 'pass', 'rejected'],
      [out.dispatches[1], 'grader', 'repair', 'completed'],
    ]);
    expect(m.side_dispatches.every((d: { usage: { input_tokens: number } }) => d.usage.input_tokens > 0)).toBe(true);
    expect(m.totals.dispatches).toBe(4);
    expect(m.status).toBe('converged');
    const rec = parseYaml(readFileSync(join(runDir, m.side_dispatches[0].record), 'utf8'));
    expect(rec.request.target_agent).toBe('grader/mock:g.yaml');
    expect(rec.request.plan_ancestry.pass).toBe(1);
    expect(rec.request.context.files[0]).toMatchObject({ path: 'pass-1-reviewer-mock-script.yaml.md', purpose: 'document' });
    const prompt = readFileSync(join(runDir, 'grade-1-mock-g.yaml.prompt.md'), 'utf8');
    expect(prompt).toContain(`${a}\n  CONTESTED at`);
    expect(readFileSync(join(runDir, 'grade-1-mock-g.yaml.repair-1.prompt.md'), 'utf8')).toMatch(
      new RegExp(
        `^REPAIR: your previous reply was rejected and must be corrected\\.\\n\\nReason: .*line 1 "My grades:" is not <finding id>: accepted\\|rejected; no verdict for ${b}`,
      ),
    );
    expect(readFileSync(join(runDir, 'run.log'), 'utf8')).toMatch(/graded by agent:mock:g\.yaml: 2 verdicts \(1 accepted, 1 rejected\) in 2 dispatches\n$/);
    expect(verifyRun(runDir).problems).toEqual([]);
    const audit = await runMain(['audit', runDir], { cwd: dir });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    // The HTML report lists the grader's calls with the run's dispatches, and its grades.
    const report = await runMain(['report', runDir], { cwd: dir });
    const html = readFileSync(report.stdout.trim(), 'utf8');
    expect(html.match(/<td>grader\/mock:g\.yaml<\/td>/g)).toHaveLength(2);
    expect(html.match(/<td>agent:mock:g\.yaml<\/td>/g)).toHaveLength(2);
    expect(html).toContain('<td class="verdict-accepted">accepted<br><span class="muted reason">five is a lot</span></td>');

    // Resumable: with every finding graded, nothing is asked.
    const again = await grade(['--judge', agent]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('is graded; bounce grade --again grades them anew');
    expect(manifest().totals.dispatches).toBe(4);
  });

  it("another grader's grade goes to grade.history: a person's, then an agent's with --again", async () => {
    await refine();
    const [a, b] = await findingIds();
    writeFileSync(join(dir, 'v.yaml'), `${a}: rejected\n${b}: skipped\n`);
    expect((await grade(['--from', 'v.yaml', '--grader', 'ana'])).code).toBe(0);
    const human = gradedRecord().outcome;
    // Without --again the agent is asked about the findings with no verdict: here none.
    const agent = graderScript({ default: `${a}: accepted\n${b}: accepted` });
    expect((await grade(['--judge', agent])).stderr).toContain('is graded');
    const r = await grade(['--judge', agent, '--again', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const g = gradedRecord().outcome.grade!;
    expect(g.grader).toBe('agent:mock:g.yaml');
    expect(g.verdicts.map((v) => v.verdict)).toEqual(['accepted', 'accepted']);
    expect(g.history).toEqual([{ grader: 'human:ana', graded_at: human.graded_at, verdicts: human.grade!.verdicts }]);
    expect(verifyRun(runDir).problems).toEqual([]);
  });

  it('still malformed after its repair: exit 3, no grade written, both calls recorded; the run still audits and can be graded later', async () => {
    await refine();
    const [a, b] = await findingIds();
    const bad = graderScript({ '1': `${a}: accepted`, '1.repair': `${a}: accepted\n${b}: maybe` });
    const r = await grade(['--judge', bad, '--json']);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ graded: 0, error: { type: 'malformed' } });
    expect(out.error.message).toContain('(still so after a repair)');
    expect(r.stderr).toMatch(/^bounce: agent:mock:g\.yaml gave no usable grades \(malformed\): .*the grades given so far are kept/m);
    expect(gradedRecord().outcome.grade).toBeNull();
    expect(manifest().side_dispatches.map((d: { status: string }) => d.status)).toEqual(['rejected', 'rejected']);
    expect(verifyRun(runDir).problems).toEqual([]);
    const good = graderScript({ default: `${a}: accepted\n${b}: rejected` }, 'good.yaml');
    const later = await grade(['--judge', good]);
    expect(later.code, later.stderr).toBe(0);
    expect(gradedRecord().outcome.grade?.grader).toBe('agent:mock:good.yaml');
    expect(manifest().totals.dispatches).toBe(5);
    expect(verifyRun(runDir).problems).toEqual([]);
  });

  it("an agent's error is a failure too (exit 3), its message in the error", async () => {
    await refine();
    writeFileSync(join(dir, 'err.yaml'), 'steps:\n  "1": { error: { type: config, message: "the grader fell over" } }\n');
    const r = await grade(['--judge', 'mock:err.yaml']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('the grader fell over');
  });

  it("grades a judged run: the chain of records goes on from the judge's, and audit passes", async () => {
    writeFileSync(join(dir, 'j.yaml'), 'steps:\n  default: "PREFER: TIE"\n');
    await refine(['--judge', 'mock:j.yaml']);
    expect(manifest().side_dispatches).toHaveLength(2);
    const [a, b] = await findingIds();
    const r = await grade(['--judge', graderScript({ default: `${a}: accepted\n${b}: accepted` })]);
    expect(r.code, r.stderr).toBe(0);
    expect(manifest().side_dispatches.map((d: { role: string }) => d.role)).toEqual(['judge', 'judge', 'grader']);
    expect(verifyRun(runDir).problems).toEqual([]);
  });

  it('--prompts DIR: its grader.md replaces the built-in one; a wrong placeholder is a usage error before any call', async () => {
    await refine();
    const [a, b] = await findingIds();
    const agent = graderScript({ default: `${a}: accepted\n${b}: accepted` });
    mkdirSync(join(dir, 'p'));
    writeFileSync(join(dir, 'p', 'grader.md'), 'OWN GRADER TEMPLATE\n\n{{document}}\n\n{{findings}}\n');
    expect((await grade(['--judge', agent, '--prompts', 'p'])).code).toBe(0);
    expect(readFileSync(join(runDir, 'grade-1-mock-g.yaml.prompt.md'), 'utf8')).toMatch(/^OWN GRADER TEMPLATE\n/);
    writeFileSync(join(dir, 'p', 'grader.md'), '{{document}} {{notes}}\n');
    const r = await grade(['--judge', agent, '--prompts', 'p', '--again']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/grader\.md: unknown placeholder \{\{notes\}\}/);
    expect(manifest().totals.dispatches).toBe(3);
  });

  it('usage errors (exit 2): --judge with --from or --grader, --prompts or --timeout without --judge, an empty or unknown agent', async () => {
    await refine();
    writeFileSync(join(dir, 'v.yaml'), '{}\n');
    for (const [args, message] of [
      [['--judge', 'mock', '--from', 'v.yaml'], '--judge and --from both say who grades'],
      [['--judge', 'mock', '--grader', 'ana'], '--judge and --grader both say who grades'],
      [['--from', 'v.yaml', '--prompts', 'p'], '--prompts is for an agent grading'],
      [['--from', 'v.yaml', '--timeout', '30'], '--timeout is for an agent grading'],
      [['--judge', ' '], '--judge is empty'],
      [['--judge', 'nosuchagent'], 'nosuchagent'],
    ] as const) {
      const r = await grade([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(message);
    }
    expect(manifest().totals.dispatches).toBe(2);
  });
});
