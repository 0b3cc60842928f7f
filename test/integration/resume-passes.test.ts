import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli.js';
import { runMain, runMainInterrupted } from '../support/run-main.js';
import { DEFAULT_MAX_PASSES } from '../../src/config/defaults.js';

const DOC = '# Rollout plan\n\nWe ship the feature to every user on Monday.\n\nRollback is manual.\n';
/** A composer that leaves the reviewer's note on pass 2 and in its repair: the run ends not-converged. */
const STUBBORN = 'steps:\n  "2": { action: echo }\n  "2.repair": { action: echo }\n';

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'plan.md'), DOC);
  writeFileSync(join(dir, 's.yaml'), STUBBORN);
});

const runDir = (): string => join(dir, 'runs', readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.'))[0]!);
const manifest = () => JSON.parse(readFileSync(join(runDir(), 'run.json'), 'utf8'));
interface PassJson {
  pass: number;
  status: string;
  final: boolean;
  agent: string;
}
const passes = (): [number, string, boolean][] => manifest().pass_records.map((p: PassJson) => [p.pass, p.status, p.final]);
const audit = async (): Promise<void> => {
  const a = await runMain(['audit', 'latest'], { cwd: dir });
  expect(a.code, a.stdout + a.stderr).toBe(0);
};

async function notConverged(extra: string[] = []): Promise<{ run_id: string; next: string; error: { message: string } }> {
  const r = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock:s.yaml', '--json', ...extra], { cwd: dir });
  expect(r.code, r.stderr).toBe(1);
  return JSON.parse(r.stdout);
}

describe('the next step of a not-converged run', () => {
  it('is bounce resume <id> --passes N with the recorded reason and the last accepted document, never a new refine', async () => {
    const r = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock:s.yaml'], { cwd: dir });
    expect(r.code).toBe(1);
    const m = manifest();
    const next = r.stderr.split('\n').find((l) => l.startsWith('next: '));
    expect(next).toBe(
      `next: ${m.error.message}; bounce resume ${m.run_id} --passes 4 goes on from the last accepted document (${join('runs', m.run_id, 'pass-1-reviewer-mock.md')}) to a final composer pass, with --composer <agent> to try another composer`,
    );
    expect(m.error.message).toMatch(/^1 note left on the final pass/);
    expect(r.stderr).not.toContain('bounce refine');
  });

  it('names the real cause when no note is left: a final pass that changed a code block', async () => {
    writeFileSync(join(dir, 'plan.md'), '# Plan\n\n```sh\nmake deploy\n```\n\nWe ship on Monday.\n');
    // The composer's reply on pass 2 (and its repair) resolves the note but edits the code block.
    const changed = '"# Plan\\n\\n```sh\\nmake deploy-all\\n```\\n\\nWe ship on Monday.\\n"';
    writeFileSync(join(dir, 's.yaml'), `steps:\n  "2": ${changed}\n  "2.repair": ${changed}\n`);
    const out = await notConverged();
    expect(out.error.message).toMatch(/^the final pass broke the document's structure/);
    expect(out.next).toMatch(new RegExp(`^the final pass broke the document's structure.*; bounce resume ${out.run_id} --passes 4 goes on`));
    expect(out.next).not.toContain('notes left');
    // The reason ends a sentence ("...exactly as it was sent."): joined to the step by one mark, not ".;".
    expect(out.error.message).toMatch(/\.$/);
    expect(out.next).not.toMatch(/[.;:,];/);
  });

  it('after one pass is the smallest even pass count, so the final pass is a composer pass', async () => {
    // The reviewer's only pass, the final one, adds a note (and so does its repair): not converged, no pass completed.
    writeFileSync(join(dir, 'r.yaml'), 'steps:\n  "1": { action: review }\n  "1.repair": { action: review }\n');
    const r = await runMain(['refine', 'plan.md', '--reviewer', 'mock:r.yaml', '--composer', 'mock', '--passes', '1', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as { run_id: string; next: string };
    expect(out.next).toContain(
      `bounce resume ${out.run_id} --passes 2 goes on from the last accepted document (${join(dir, 'runs', out.run_id, 'original.md')})`,
    );
    writeFileSync(join(dir, 'r.yaml'), 'steps: {}\n');
    const resumed = await runMain(['resume', out.run_id, '--passes', '2', '--json'], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'converged', passes_run: 2 });
  });
});

describe('bounce resume --passes N', () => {
  it('extends a not-converged run from its last accepted document, with the same agents, to a run audit accepts', async () => {
    const first = await notConverged();
    const plain = await runMain(['resume', first.run_id], { cwd: dir });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain(
      `is already not-converged: to go on from its last completed pass, give it more passes: bounce resume ${first.run_id} --passes 4`,
    );
    const r = await runMain(['resume', first.run_id, '--passes', '4', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'converged', exit_code: 0, passes_run: 4, next: null });
    const m = manifest();
    expect(m.passes).toEqual({ requested: 4, run: 4, all_passes: false });
    // The failed final pass stays on record; pass 2 is run again as an ordinary pass, and pass 4 is the final one.
    expect(passes()).toEqual([
      [1, 'completed', false],
      [2, 'failed', true],
      [2, 'completed', false],
      [3, 'completed', false],
      [4, 'completed', true],
    ]);
    expect(m.pass_records.map((p: PassJson) => p.agent)).toEqual(['mock', 'mock:s.yaml', 'mock:s.yaml', 'mock', 'mock:s.yaml']);
    expect(m.extensions).toEqual([
      { at: expect.any(String), status: 'not-converged', after_pass: 1, passes: { from: 2, to: 4 }, agents: {}, policy_version: expect.any(String) },
    ]);
    expect(m.extensions[0].policy_version).not.toBe(m.policy.version);
    expect(readFileSync(join(runDir(), 'run.log'), 'utf8')).toContain('resume: extended from 2 to 4 passes');
    await audit();
  });

  it('--composer replaces the recorded composer from the next pass on, and says so in run.json', async () => {
    const first = await notConverged();
    const r = await runMain(['resume', first.run_id, '--passes', '2', '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const m = manifest();
    expect(m.status).toBe('converged');
    expect(passes()).toEqual([
      [1, 'completed', false],
      [2, 'failed', true],
      [2, 'completed', true],
    ]);
    expect(m.pass_records[2].agent).toBe('mock');
    expect(m.agents.composer).toMatchObject({ spec: 'mock', chosen_by: 'flag' });
    expect(m.agents.reviewer).toMatchObject({ spec: 'mock' });
    expect(m.extensions[0]).toMatchObject({ passes: { from: 2, to: 2 }, agents: { composer: { from: 'mock:s.yaml', to: 'mock' } } });
    await audit();
  });

  it('takes a converged run further, and an --in-place input that holds its first result is no one else’s edit', async () => {
    const first = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock', '--in-place'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const refused = await runMain(['resume', 'latest'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is already converged: to go on from its last completed pass, give it more passes: bounce resume');
    expect(refused.stderr).toContain('--passes 4');
    const r = await runMain(['resume', 'latest', '--passes', '4', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const m = manifest();
    expect(m).toMatchObject({ status: 'converged', passes: { requested: 4, run: 4 }, output: { target: 'in-place', written: true } });
    expect(m.extensions[0]).toMatchObject({ status: 'converged', after_pass: 2, passes: { from: 2, to: 4 } });
    expect(passes().map(([p]) => p)).toEqual([1, 2, 3, 4]);
    expect(readFileSync(join(dir, 'plan.md'), 'utf8')).toBe(readFileSync(join(runDir(), 'final.md'), 'utf8'));
    await audit();
  });

  it('an extension cut short is finished by a plain resume, which does not stop at the pass it converged on before', async () => {
    // One pass: the reviewer, final, adds no note: converged after pass 1.
    const first = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock:s.yaml', '--passes', '1'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    // The pass count offered after one pass is 2, not 3: the final pass is then a composer pass.
    const offered = await runMain(['resume', 'latest'], { cwd: dir });
    expect(offered.code).toBe(2);
    expect(offered.stderr).toMatch(/--passes 2 \(an even count, so the final pass is a composer pass\)\n$/);
    writeFileSync(join(dir, 's.yaml'), 'steps:\n  "2": { action: hang }\n');
    const pass2Out = (): boolean =>
      manifest().pass_records.some((p: PassJson & { dispatches: { status: string }[] }) => p.pass === 2 && p.dispatches[0]?.status === 'pending');
    const cut = await runMainInterrupted(['resume', 'latest', '--passes', '3'], { cwd: dir }, pass2Out, "pass 2's call");
    expect(cut.code, cut.stderr).toBe(130);
    writeFileSync(join(dir, 's.yaml'), 'steps: {}\n');
    const r = await runMain(['resume', 'latest', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    // Pass 2 ran (the extension asked for it) and converged: no note was left for pass 3.
    expect(manifest()).toMatchObject({ status: 'converged', passes: { requested: 3, run: 2 } });
    expect(passes()).toEqual([
      [1, 'completed', true],
      [2, 'interrupted', false],
      [2, 'completed', false],
    ]);
    await audit();
  });

  it('an extension refused before its first dispatch (a budget) leaves the run as it was: bound, audited and extended by the next resume', async () => {
    const first = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const before = manifest();
    const refused = await runMain(['resume', 'latest', '--passes', '4', '--max-dispatches', '2'], { cwd: dir });
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toContain('budget of 2 dispatches');
    // The next step asks for the extension again: a plain resume would find the run converged.
    expect(refused.stderr).toMatch(/\nnext: bounce resume \S+ --passes 4 with a larger budget/);
    // run.json is what it was: no extension, no pass opened, the status and exit code it ended with.
    expect(manifest()).toMatchObject({ status: 'converged', exit_code: 0, error: null, passes: { requested: 2 } });
    expect(manifest().extensions).toEqual(before.extensions);
    expect(manifest().pass_records.length).toBe(before.pass_records.length);
    await audit();
    const r = await runMain(['resume', 'latest', '--passes', '4'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(manifest()).toMatchObject({ status: 'converged', passes: { requested: 4 } });
    await audit();
  });

  it('refuses a budget that takes the run nowhere, and an unknown agent, before any dispatch', async () => {
    const first = await notConverged();
    const before = readFileSync(join(runDir(), 'run.json'), 'utf8');
    const low = await runMain(['resume', first.run_id, '--passes', '1'], { cwd: dir });
    expect(low.code).toBe(2);
    expect(low.stderr).toBe(
      `bounce: --passes 1 does not take run ${first.run_id} further: it has completed 1 pass: pass more, e.g. --passes 4 (an even count, so the final pass is a composer pass)\n`,
    );
    const unknown = await runMain(['resume', first.run_id, '--passes', '4', '--composer', 'nosuch'], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('nosuch');
    expect(readFileSync(join(runDir(), 'run.json'), 'utf8')).toBe(before);
  });
});

/** The `bounce ...` command a message prints, from `bounce` up to `until`, as argv (the paths here hold no space). */
function printed(text: string, until: string): string[] {
  const at = text.indexOf('bounce refine ') >= 0 ? text.indexOf('bounce refine ') : text.indexOf('bounce resume ');
  const end = text.indexOf(until, at);
  expect(at >= 0 && end > at, text).toBe(true);
  return text
    .slice(at + 'bounce '.length, end)
    .trim()
    .split(' ');
}

describe('a run that has had the most passes it may have (max_passes)', () => {
  const MAX = String(DEFAULT_MAX_PASSES);

  it('converged at the maximum: every hint gives a step that works, a new run from its last document, never --passes above the maximum', async () => {
    const first = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock', '--passes', MAX, '--all-passes', '-q'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const m = manifest();
    expect(m.passes).toMatchObject({ requested: DEFAULT_MAX_PASSES, run: DEFAULT_MAX_PASSES });
    const last = join('runs', m.run_id, m.pass_records.at(-1).document);
    const step = `bounce refine ${last} --reviewer mock --composer mock starts a new run from its last accepted document`;
    const plain = await runMain(['resume', 'latest'], { cwd: dir });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toBe(`bounce: run ${m.run_id} is already converged: it has had the most passes a run may have (max_passes: ${MAX}): ${step}\n`);
    // Asking for more than the maximum, or no more than the passes run, gets the same step.
    const over = await runMain(['resume', 'latest', '--passes', String(DEFAULT_MAX_PASSES + 2)], { cwd: dir });
    expect(over.code).toBe(2);
    expect(over.stderr).toContain(`: it has had the most passes a run may have (max_passes: ${MAX}): ${step}, or raise max_passes in bounce.config.yaml\n`);
    const same = await runMain(['resume', 'latest', '--passes', MAX], { cwd: dir });
    expect(same.code).toBe(2);
    expect(same.stderr).toContain(step);
    for (const r of [plain, over, same]) expect(r.stderr).not.toMatch(new RegExp(`--passes ${DEFAULT_MAX_PASSES + 2}\\b`));
    // The step works as printed.
    const next = await runMain(printed(plain.stderr, ' starts a new run'), { cwd: dir });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/final\.md\n$/);
  });

  it('not converged at the maximum: next: runs the refused final pass again within it, and that step works as printed', async () => {
    writeFileSync(join(dir, 's.yaml'), `steps:\n  "${MAX}": { action: echo }\n  "${MAX}.repair": { action: echo }\n`);
    const out = await notConverged(['--passes', MAX, '--all-passes']);
    expect(out.next).toContain(
      `bounce resume ${out.run_id} --passes ${MAX} goes on from the last accepted document (${join(dir, 'runs', out.run_id, `pass-${DEFAULT_MAX_PASSES - 1}-reviewer-mock.md`)}) to a final composer pass (max_passes allows at most ${MAX}), with --composer <agent>`,
    );
    const refused = await runMain(['resume', out.run_id], { cwd: dir });
    expect(refused.stderr).toContain(
      `bounce resume ${out.run_id} --passes ${MAX} (an even count, so the final pass is a composer pass; max_passes allows at most ${MAX})`,
    );
    // The composer does its work this time: the printed command, as printed, converges.
    writeFileSync(join(dir, 's.yaml'), 'steps: {}\n');
    const again = await runMain([...printed(out.next, ' goes on'), '--json'], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'converged', passes_run: DEFAULT_MAX_PASSES });
    await audit();
  });

  it('not converged, and max_passes lowered below its passes since: a new run, which works; bounce decide is refused before any dispatch', async () => {
    writeFileSync(join(dir, 's.yaml'), 'steps:\n  "4": { action: echo }\n  "4.repair": { action: echo }\n');
    const out = await notConverged(['--passes', '4', '--all-passes']);
    writeFileSync(join(dir, 'bounce.config.yaml'), 'max_passes: 2\n');
    const refused = await runMain(['resume', out.run_id], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `it has had the most passes a run may have (max_passes: 2): bounce refine ${join('runs', out.run_id, 'pass-3-reviewer-mock.md')} --reviewer mock --composer mock:s.yaml starts a new run`,
    );
    const records = readdirSync(runDir()).length;
    const decide = await runMain(['decide', out.run_id, '--answers', 'none.yaml'], { cwd: dir });
    expect(decide.code).toBe(2);
    expect(decide.stderr).toContain(`a decision round takes run ${out.run_id} to pass 5, and max_passes allows at most 2: bounce refine`);
    expect(readdirSync(runDir()).length).toBe(records);
    const next = await runMain(printed(refused.stderr, ' starts a new run'), { cwd: dir });
    expect(next.code, next.stderr).toBe(0);
  });
});
