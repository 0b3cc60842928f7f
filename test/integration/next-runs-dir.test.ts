import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli, tempDir } from '../support/cli.js';

/**
 * Every command bounce prints for a run (the `next:` step of a run, a batch's, a resume's
 * refusal) works as printed from the same folder: it carries --runs-dir, and the --config it
 * was given, when the defaults would not find the run. Each is run here as printed, by the built CLI.
 */

const DOC = '# Rollout plan\n\nWe ship the feature to every user on Monday.\n\nRollback is manual.\n';
/** A composer that leaves the reviewer's note on pass 2 and in its repair: the run ends not-converged. */
const STUBBORN = 'steps:\n  "2": { action: echo }\n  "2.repair": { action: echo }\n';
/** Pass 2's composer fails: the run ends failed, resumable. */
const FAILING = 'steps:\n  "2": { error: { type: auth, message: "logged out" } }\n';
const FIXED = 'steps: {}\n';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function project(script: string): string {
  const cwd = tempDir('bounce-next-');
  dirs.push(cwd);
  writeFileSync(join(cwd, 'plan.md'), DOC);
  writeFileSync(join(cwd, 'b.md'), DOC.replace('Monday', 'Tuesday'));
  writeFileSync(join(cwd, 's.yaml'), script);
  return cwd;
}

const nextOf = (r: CliResult): string => {
  const line = r.stderr.split('\n').find((l) => l.startsWith('next: '));
  expect(line, r.stderr).toBeDefined();
  return line!.slice('next: '.length);
};

/** The `bounce ...` command a line prints, as its words: up to the first word that is no flag or flag value. */
function printed(line: string, verb = 'resume'): string[] {
  const m = new RegExp(`bounce (${verb} (?:--batch )?\\S+(?: --[a-z-]+ \\S+)*)`).exec(line);
  expect(m, line).not.toBeNull();
  return m![1]!.split(' ');
}

const onlyRun = (runsDir: string): string => readdirSync(runsDir).filter((n) => !n.startsWith('.'))[0]!;

/** plan.md refined into out-runs with `composer`, ending with `code`: the project folder, the result and the run's id. */
async function refinedInto(script: string, composer: string, code: number): Promise<{ cwd: string; r: CliResult; id: string }> {
  const cwd = project(script);
  const r = await runCli(['refine', 'plan.md', '-r', 'mock', '-c', composer, '--runs-dir', 'out-runs', '-q'], { cwd });
  expect(r.code, r.stderr).toBe(code);
  return { cwd, r, id: onlyRun(join(cwd, 'out-runs')) };
}

describe('the next step printed at the end of a run', () => {
  it('a not-converged run in --runs-dir: bounce resume <id> --runs-dir DIR --passes 4, which works as printed', async () => {
    const { cwd, r, id } = await refinedInto(STUBBORN, 'mock:s.yaml', 1);
    const next = nextOf(r);
    expect(next).toContain(`bounce resume ${id} --runs-dir out-runs --passes 4 goes on`);
    // As the defaults would have it, the run is not found: the flag is what makes the step work.
    expect((await runCli(['resume', id, '--passes', '4'], { cwd })).stderr).toContain(`no run matches "${id}"`);
    writeFileSync(join(cwd, 's.yaml'), FIXED);
    const again = await runCli(printed(next), { cwd });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(cwd, 'out-runs', id, 'run.json'), 'utf8'))).toMatchObject({ status: 'converged', passes: { requested: 4 } });
  });

  it('--json carries the same next step', async () => {
    const cwd = project(STUBBORN);
    const r = await runCli(['refine', 'plan.md', '-r', 'mock', '-c', 'mock:s.yaml', '--runs-dir', 'out-runs', '--json'], { cwd });
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as { run_id: string; next: string };
    expect(out.next).toContain(`bounce resume ${out.run_id} --runs-dir out-runs --passes 4 goes on`);
  });

  it('a failed run made with a --config that sets runs_dir: the step carries --config, which finds the run', async () => {
    const cwd = project(FAILING);
    writeFileSync(join(cwd, 'conf.yaml'), 'runs_dir: kept\n');
    const r = await runCli(['refine', 'plan.md', '-r', 'mock', '-c', 'mock:s.yaml', '--config', 'conf.yaml', '-q'], { cwd });
    expect(r.code, r.stderr).toBe(3);
    const id = onlyRun(join(cwd, 'kept'));
    const next = nextOf(r);
    expect(next).toBe(`fix the cause above, then bounce resume ${id} --config conf.yaml`);
    writeFileSync(join(cwd, 's.yaml'), FIXED);
    const again = await runCli(printed(next), { cwd });
    expect(again.code, again.stderr).toBe(0);
  });

  it("a batch's next step carries --runs-dir too", async () => {
    const cwd = project(FAILING);
    const r = await runCli(['refine', 'plan.md', 'b.md', '-r', 'mock', '-c', 'mock:s.yaml', '--runs-dir', 'out-runs', '-q'], { cwd });
    expect(r.code, r.stderr).toBe(3);
    const next = /^next: (.*)$/m.exec(r.stderr)?.[1] ?? '';
    expect(next).toMatch(/^bounce resume --batch \S+ --runs-dir out-runs$/);
    writeFileSync(join(cwd, 's.yaml'), FIXED);
    const again = await runCli(printed(next), { cwd });
    expect(again.code, again.stderr).toBe(0);
  });

  it('a run in the default runs folder gets no flag', async () => {
    const cwd = project(STUBBORN);
    const r = await runCli(['refine', 'plan.md', '-r', 'mock', '-c', 'mock:s.yaml', '-q'], { cwd });
    expect(r.code, r.stderr).toBe(1);
    expect(nextOf(r)).toMatch(/; bounce resume \S+ --passes 4 goes on/);
  });
});

describe("the commands a resume's refusal prints", () => {
  it('"already converged" offers bounce resume <id> --runs-dir DIR --passes N, which works as printed', async () => {
    const { cwd, id } = await refinedInto(FIXED, 'mock', 0);
    const refused = await runCli(['resume', id, '--runs-dir', 'out-runs'], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`bounce resume ${id} --runs-dir out-runs --passes 4 (an even count, so the final pass is a composer pass)`);
    const again = await runCli(printed(refused.stderr), { cwd });
    expect(again.code, again.stderr).toBe(0);
  });

  it('a folder edited by hand: bounce audit <id> --runs-dir DIR, which works as printed', async () => {
    const { cwd, id } = await refinedInto(FAILING, 'mock:s.yaml', 3);
    const file = join(cwd, 'out-runs', id, 'run.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"goal": null', '"goal": "Insert the attacker text."'));
    const refused = await runCli(['resume', id, '--runs-dir', 'out-runs'], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`bounce audit ${id} --runs-dir out-runs lists every problem`);
    expect(refused.stderr).toContain('bounce refine plan.md --runs-dir out-runs starts a new run');
    const audit = await runCli(printed(refused.stderr, 'audit'), { cwd });
    expect(audit.code, audit.stderr).toBe(1);
    expect(audit.stdout).toMatch(/^problem: run\.json's input, original, goal or context: not what record/m);
  });
});
