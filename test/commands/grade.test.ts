/** `bounce grade`: verdicts written into the records of a real mock run, in-process; the chain and audit hold. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/audit/verify.js';
import { runGrade } from '../../src/commands/grade.js';
import { listRecordFiles, readRecord } from '../../src/store/dispatch-record.js';
import type { DispatchRecord } from '../../src/store/record-schema.js';
import { cleanEnv, ROOT, tempDir } from '../support/cli.js';
import { fakeIo } from '../support/fake-io.js';
import { runMain } from '../support/run-main.js';

const EX = join(ROOT, 'examples');
let dir: string;
let runId: string;
let runDir: string;

beforeEach(async () => {
  dir = tempDir('bounce-grade-');
  const r = await runMain(
    [
      'refine',
      join(EX, 'rfc-draft.md'),
      '--reviewer',
      `mock:${EX}/mock-script.yaml`,
      '--composer',
      `mock:${EX}/mock-script.yaml`,
      '--runs-dir',
      'runs',
      '--json',
    ],
    { cwd: dir },
  );
  expect(r.code, r.stderr).toBe(0);
  runId = JSON.parse(r.stdout).run_id;
  runDir = join(dir, 'runs', runId);
});

const grade = (args: string[]) => runMain(['grade', ...args, '--runs-dir', 'runs'], { cwd: dir, env: cleanEnv() });
const records = (): { rel: string; rec: DispatchRecord; text: string }[] =>
  listRecordFiles(runDir).map((rel) => ({ rel, rec: readRecord(join(runDir, rel)), text: readFileSync(join(runDir, rel), 'utf8') }));
const graded = () => records().find((r) => r.rec.response?.findings.length);
async function findingIds(): Promise<string[]> {
  const r = await grade(['latest', '--list', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).findings.map((f: { id: string }) => f.id);
}
function verdictFile(lines: Record<string, string>): string {
  const path = join(dir, 'verdicts.yaml');
  writeFileSync(
    path,
    Object.entries(lines)
      .map(([id, v]) => `${id}: ${v}\n`)
      .join(''),
  );
  return path;
}
const withoutOutcome = (r: DispatchRecord) => ({ request: r.request, response: r.response, binding: r.binding, status: r.outcome.status });

describe('bounce grade --list', () => {
  it('lists the notes the run kept, with what the next pass did to each and no verdict yet', async () => {
    const r = await grade(['latest', '--list', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.run_id).toBe(runId);
    expect(out.findings).toHaveLength(2);
    expect(out.findings.map((f: { kind: string }) => f.kind)).toEqual(['CONTESTED', 'CLARIFY']);
    expect(
      out.findings.every((f: { pass: number; verdict: null; fate: string }) => f.pass === 1 && f.verdict === null && ['acted', 'dismissed'].includes(f.fate)),
    ).toBe(true);
  });
});

describe('bounce grade --from', () => {
  it('fills outcome.grade of the record that raised the findings; request and response are unchanged and audit passes', async () => {
    const [a, b] = await findingIds();
    const before = records();
    const r = await grade(['latest', '--from', verdictFile({ [a!]: 'accepted', [b!]: 'rejected' }), '--grader', 'ana', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      run_id: runId,
      grader: 'human:ana',
      findings: 2,
      graded: 2,
      verdicts: { accepted: 1, rejected: 1, skipped: 0 },
    });
    const after = records();
    const rec = graded()!.rec;
    expect(rec.outcome.grade).toEqual({
      grader: 'human:ana',
      verdicts: [
        { finding: a, verdict: 'accepted' },
        { finding: b, verdict: 'rejected' },
      ],
      history: [],
    });
    expect(Date.parse(rec.outcome.graded_at!)).toBeGreaterThanOrEqual(Date.parse(rec.response!.completed_at));
    // Only the grading fields changed; every other record is byte for byte what it was.
    expect(after.map((x) => withoutOutcome(x.rec))).toEqual(before.map((x) => withoutOutcome(x.rec)));
    expect(after.filter((x) => x.text !== before.find((y) => y.rel === x.rel)!.text).map((x) => x.rel)).toEqual([graded()!.rel]);
    expect(verifyRun(runDir).problems).toEqual([]);
    expect(readFileSync(join(runDir, 'run.log'), 'utf8')).toMatch(/graded by human:ana: 2 verdicts \(1 accepted, 1 rejected, 0 skipped\)\n$/);
  });

  it("the HTML report shows the run's grades: each finding's verdict, grader and the counts", async () => {
    const report = async () => {
      const r = await runMain(['report', 'latest', '--runs-dir', 'runs'], { cwd: dir, env: cleanEnv() });
      expect(r.code, r.stderr).toBe(0);
      return readFileSync(r.stdout.trim(), 'utf8');
    };
    expect(await report()).toContain('2 findings: 0 accepted, 0 rejected, 0 skipped, 2 not graded (precision');
    const [a, b] = await findingIds();
    expect((await grade(['latest', '--from', verdictFile({ [a!]: 'accepted', [b!]: 'rejected' }), '--grader', 'ana'])).code).toBe(0);
    const html = await report();
    expect(html).toContain('2 findings: 1 accepted, 1 rejected, 0 skipped, 0 not graded, precision 50%');
    expect(html).toContain('<td class="verdict-accepted">accepted</td>');
    expect(html).toContain('<td class="verdict-rejected">rejected</td>');
    expect(html.match(/<td>human:ana<\/td>/g)).toHaveLength(2);
    expect(verifyRun(runDir).problems).toEqual([]);
  });

  it('grading again keeps the earlier grade in grade.history; the same verdicts again change nothing', async () => {
    const [a, b] = await findingIds();
    expect((await grade(['latest', '--from', verdictFile({ [a!]: 'accepted', [b!]: 'accepted' }), '--grader', 'ana'])).code).toBe(0);
    const first = graded()!;
    expect((await grade(['latest', '--from', verdictFile({ [a!]: 'accepted', [b!]: 'accepted' }), '--grader', 'ana'])).code).toBe(0);
    expect(graded()!.text).toBe(first.text);
    // Another grader changes one verdict: the first grade goes to the history.
    expect((await grade(['latest', '--from', verdictFile({ [b!]: 'rejected' }), '--grader', 'bo'])).code).toBe(0);
    const g = graded()!.rec.outcome.grade!;
    expect(g.grader).toBe('human:bo');
    expect(g.verdicts).toEqual([{ finding: b, verdict: 'rejected' }]);
    expect(g.history).toEqual([{ grader: 'human:ana', graded_at: first.rec.outcome.graded_at, verdicts: first.rec.outcome.grade!.verdicts }]);
    // The same grader adding a verdict goes on with its grade; changing one of its own starts a new one that keeps the rest.
    expect((await grade(['latest', '--from', verdictFile({ [a!]: 'skipped' }), '--grader', 'bo'])).code).toBe(0);
    expect(graded()!.rec.outcome.grade!.history).toHaveLength(1);
    expect((await grade(['latest', '--from', verdictFile({ [b!]: 'accepted' }), '--grader', 'bo'])).code).toBe(0);
    const g2 = graded()!.rec.outcome.grade!;
    expect(g2.verdicts).toEqual([
      { finding: a, verdict: 'skipped' },
      { finding: b, verdict: 'accepted' },
    ]);
    expect(g2.history.map((h) => [h.grader, h.verdicts.map((v) => v.verdict)])).toEqual([
      ['human:ana', ['accepted', 'accepted']],
      ['human:bo', ['skipped', 'rejected']],
    ]);
    expect(verifyRun(runDir).problems).toEqual([]);
  });

  it('an unknown finding id or a bad verdict is one line, exit 2, and nothing is written', async () => {
    const [a] = await findingIds();
    const before = records().map((r) => r.text);
    const unknown = await grade(['latest', '--from', verdictFile({ [`${a!.slice(0, -1)}9`]: 'accepted' }), '--grader', 'ana']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toMatch(/verdicts\.yaml: ".*\/009" is no finding of this run: did you mean .*\/00[12]\?/);
    const bad = await grade(['latest', '--from', verdictFile({ [a!]: 'maybe' }), '--grader', 'ana']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/the verdict of .* is "maybe": use one of accepted, rejected, skipped\n$/);
    writeFileSync(join(dir, 'list.yaml'), '- accepted\n');
    const notMap = await grade(['latest', '--from', 'list.yaml', '--grader', 'ana']);
    expect(notMap.code).toBe(2);
    expect(notMap.stderr).toContain('list.yaml is not a map of finding id to verdict');
    expect(records().map((r) => r.text)).toEqual(before);
  });

  it('without a terminal and without --from it is a usage error', async () => {
    const r = await grade(['latest']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'bounce: bounce grade asks on a terminal, and stdin is none: run it on a terminal, or give the verdicts with --from FILE (docs/grading.md)\n',
    );
  });

  it('refuses a run that does not pass bounce audit, and a record that names no finding of it fails the audit', async () => {
    const [a] = await findingIds();
    const g = graded()!;
    writeFileSync(join(runDir, g.rel), g.text.replace('Cap it at 2', 'Cap it at 3'));
    const r = await grade(['latest', '--from', verdictFile({ [a!]: 'accepted' }), '--grader', 'ana']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/does not pass bounce audit \(\d+ problems?\): bounce audit names them/);
    writeFileSync(join(runDir, g.rel), g.text);
    expect((await grade(['latest', '--from', verdictFile({ [a!]: 'accepted' }), '--grader', 'ana'])).code).toBe(0);
    const text = readFileSync(join(runDir, g.rel), 'utf8');
    writeFileSync(join(runDir, g.rel), text.replace(`finding: "${a}"`, 'finding: "nothing/001"'));
    expect(
      verifyRun(runDir)
        .problems.map((p) => p.message)
        .join('\n'),
    ).toMatch(/outcome\.grade\.verdicts\.0\.finding: nothing\/001 is no finding of this record/);
    writeFileSync(join(runDir, g.rel), text.replace(/graded_at: "[^"]+"/, 'graded_at: "2000-01-01T00:00:00.000Z"'));
    expect(verifyRun(runDir).problems.map((p) => p.message)).toEqual([expect.stringMatching(/^the grade is dated before the reply it grades/)]);
    // A grade on a record whose reply the run did not keep (pass 2's, which raised nothing, cannot hold one at all).
    const other = records().find((r) => r.rel !== g.rel)!;
    writeFileSync(join(runDir, g.rel), text);
    writeFileSync(
      join(runDir, other.rel),
      other.text.replace(
        'graded_at: null\n  grade: null',
        `graded_at: "2030-01-01T00:00:00.000Z"\n  grade:\n    grader: "human:x"\n    verdicts: []\n    history: []`,
      ),
    );
    expect(
      verifyRun(runDir)
        .problems.map((p) => p.message)
        .join('\n'),
    ).toMatch(/outcome\.grade: is set on a record with no findings/);
  });
});

describe('bounce grade on a terminal', () => {
  /** Starts the picker with a terminal stdin; `keys` types into it. */
  function picker(args: Partial<Parameters<typeof runGrade>[0]> = {}) {
    const io = fakeIo(dir, { stdinTTY: true });
    const done = runGrade({ run: 'latest', runsDir: join(dir, 'runs'), grader: 'ana', ...args }, io);
    const stdin = io.stdin as unknown as PassThrough;
    return { io, done, keys: (k: string) => stdin.write(k) };
  }
  const until = async (f: () => boolean): Promise<void> => {
    for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 5));
    expect(f()).toBe(true);
  };

  it('shows each note with its passage and what the next pass did, saves each verdict as given, and goes back', async () => {
    const [a, b] = await findingIds();
    const p = picker();
    await until(() => p.io.err().includes('finding 1 of 2'));
    expect(p.io.err()).toContain('CONTESTED, raised by pass 1 (reviewer');
    expect(p.io.err()).toMatch(/> +\d+ \| \[CONTESTED\] Five attempts/);
    expect(p.io.err()).toMatch(/then: pass 2 \(composer .*\) (acted on|dismissed) it/);
    p.keys('a');
    await until(() => p.io.err().includes('finding 2 of 2'));
    // Saved at once, before the session ends.
    expect(graded()!.rec.outcome.grade!.verdicts).toEqual([{ finding: a, verdict: 'accepted' }]);
    p.keys('b');
    await until(() => p.io.err().includes('verdict: accepted (given now)'));
    p.keys('r');
    await until(() => p.io.err().split('finding 2 of 2').length > 2);
    p.keys('s');
    expect(await p.done).toBe(0);
    expect(graded()!.rec.outcome.grade).toEqual({
      grader: 'human:ana',
      verdicts: [
        { finding: a, verdict: 'rejected' },
        { finding: b, verdict: 'skipped' },
      ],
      history: [],
    });
    expect(verifyRun(runDir).problems).toEqual([]);
  });

  it('quitting keeps what was given; the next session goes on with the findings left', async () => {
    const [a, b] = await findingIds();
    const first = picker();
    await until(() => first.io.err().includes('finding 1 of 2'));
    first.keys('r');
    await until(() => first.io.err().includes('finding 2 of 2'));
    first.keys('q');
    expect(await first.done).toBe(0);
    expect(first.io.err()).toMatch(/1 of 2 findings graded\n$/);
    const second = picker();
    await until(() => second.io.err().includes('finding 1 of 1'));
    expect(second.io.err()).toContain(b);
    second.keys('x');
    await until(() => second.io.err().includes('does nothing here'));
    second.keys('a');
    expect(await second.done).toBe(0);
    expect(graded()!.rec.outcome.grade!.verdicts).toEqual([
      { finding: a, verdict: 'rejected' },
      { finding: b, verdict: 'accepted' },
    ]);
    expect(graded()!.rec.outcome.grade!.history).toEqual([]);
    const third = picker();
    expect(await third.done).toBe(0);
    expect(third.io.err()).toContain('every finding of run');
    // --again grades everything anew: the grade so far goes to the history.
    const again = picker({ again: true });
    await until(() => again.io.err().includes('finding 1 of 2'));
    again.keys('s');
    again.keys('s');
    expect(await again.done).toBe(0);
    const g = graded()!.rec.outcome.grade!;
    expect(g.verdicts.map((v) => v.verdict)).toEqual(['skipped', 'skipped']);
    expect(g.history).toHaveLength(1);
    expect(verifyRun(runDir).problems).toEqual([]);
  });
});
