import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { batchOutcome } from '../../src/ui/batch-view.js';
import { main } from '../../src/cli.js';
import { cleanEnv, tempDir } from '../support/cli.js';
import { memIo } from '../support/mem-io.js';
import { runMain, runMainInterrupted } from '../support/run-main.js';

let dir: string;
const DOCS = ['alpha', 'beta', 'gamma'];

beforeEach(() => {
  dir = tempDir();
  mkdirSync(join(dir, 'docs', 'sub'), { recursive: true });
  for (const [i, name] of DOCS.entries())
    writeFileSync(join(dir, 'docs', i === 2 ? 'sub' : '', `${name}.md`), `# ${name}\n\nThe ${name} service moves to the new cluster in week ${i + 1}.\n`);
  writeFileSync(join(dir, 'docs', 'skip.json'), '{}\n');
});

const runNames = (): string[] => (existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.')) : []);
const manifests = (): Record<string, unknown>[] => runNames().map((n) => JSON.parse(readFileSync(join(dir, 'runs', n, 'run.json'), 'utf8')));
const MOCKS = ['--reviewer', 'mock', '--composer', 'mock'];

describe('bounce refine with several documents (a batch)', () => {
  it('leaves the object a forced stop (a second signal, the batch still not stopped) prints with --json: the batch interrupted, how to go on', async () => {
    const io = memIo(dir, { env: cleanEnv() });
    expect(await main(['node', 'bounce', 'refine', 'docs', ...MOCKS, '--json'], io)).toBe(0);
    const { batch_id: id } = JSON.parse(io.out());
    expect(io.forcedStopJson?.()).toMatchObject({
      batch_id: id,
      status: 'interrupted',
      exit_code: 130,
      next: `bounce resume --batch ${id}`,
      totals: { documents: 3 },
    });
  });

  it('runs one run per document of a folder and prints one batch object', async () => {
    const r = await runMain(['refine', 'docs', ...MOCKS, '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'converged', exit_code: 0, totals: { documents: 3, converged: 3, dispatches: 6 } });
    expect(out.runs.map((x: { status: string }) => x.status)).toEqual(['converged', 'converged', 'converged']);
    // Every document's run belongs to the batch, and only the folder's .md files were taken.
    const ms = manifests();
    expect(ms).toHaveLength(3);
    expect(new Set(ms.map((m) => m.batch_id))).toEqual(new Set([out.batch_id]));
    expect(ms.map((m) => (m.input as { display: string }).display).sort()).toEqual(['docs/alpha.md', 'docs/beta.md', 'docs/sub/gamma.md']);
    // The inputs are untouched: without --in-place each converged document stays in its run folder.
    expect(readFileSync(join(dir, 'docs', 'alpha.md'), 'utf8')).toContain('week 1');
    expect(r.stderr).toMatch(/document\s+status\s+passes\s+notes\s+tokens\s+cost\s+time/);
  });

  it('prints the converged outputs, one path a line, without --json', async () => {
    const r = await runMain(['refine', 'docs/alpha.md', 'docs/beta.md', ...MOCKS], { cwd: dir });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(readFileSync(join(dir, line), 'utf8')).toMatch(/^# (alpha|beta)/);
  });

  it('exits 1 when a document does not converge, and the object says which', async () => {
    writeFileSync(join(dir, 'echo.yaml'), 'steps:\n  default: { action: echo }\n');
    const r = await runMain(['refine', 'docs/alpha.md', 'docs/beta.md', '--reviewer', 'mock', '--composer', 'mock:echo.yaml', '--max-repairs', '0', '--json'], {
      cwd: dir,
    });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'not-converged', exit_code: 1, totals: { not_converged: 2 } });
    // The next step takes each run further on its own (--passes takes one run at a time), in the summary too.
    const ids = out.runs.map((x: { run_id: string }) => x.run_id);
    expect(out.next).toBe(ids.map((id: string) => `bounce resume ${id} --passes 4`).join('; '));
    expect(r.stderr).toContain(`next: ${out.next}`);
    const again = await runMain(['resume', ids[0], '--passes', '4', '--json'], { cwd: dir });
    expect(JSON.parse(again.stdout)).toMatchObject({ run_id: ids[0], passes_run: 4 });
  });

  it('offers no pass count above max_passes: the final pass again within it, or a new run once max_passes is below the passes run', async () => {
    writeFileSync(join(dir, 'echo.yaml'), 'steps:\n  default: { action: echo }\n');
    writeFileSync(join(dir, 'bounce.config.yaml'), 'max_passes: 2\n');
    const r = await runMain(['refine', 'docs/alpha.md', 'docs/beta.md', '--reviewer', 'mock', '--composer', 'mock:echo.yaml', '--max-repairs', '0', '--json'], {
      cwd: dir,
    });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    const ids: string[] = out.runs.map((x: { run_id: string }) => x.run_id);
    expect(out.next).toBe(ids.map((id) => `bounce resume ${id} --passes 2`).join('; '));
    const again = await runMain(['resume', ids[0]!, '--passes', '2', '--json'], { cwd: dir });
    expect(JSON.parse(again.stdout)).toMatchObject({ run_id: ids[0], status: 'not-converged', passes_run: 2 });
    // max_passes lowered below the passes run: a new run from each run's last accepted document, with its agents.
    writeFileSync(join(dir, 'bounce.config.yaml'), 'max_passes: 1\n');
    const ended = await runMain(['resume', '--batch', out.batch_id, '--json'], { cwd: dir });
    const next: string = JSON.parse(ended.stdout).next;
    const steps = next.split('; ');
    // Under max_passes 1 the new run asks for 1 pass: a refine without --passes is refused there.
    expect(steps).toEqual(
      ids.map((id) => `bounce refine ${join(dir, 'runs', id, 'pass-1-reviewer-mock.md')} --reviewer mock --composer mock:echo.yaml --passes 1`),
    );
    writeFileSync(join(dir, 'echo.yaml'), 'steps: {}\n');
    const fresh = await runMain(steps[0]!.split(' ').slice(1), { cwd: dir });
    expect(fresh.code, fresh.stderr).toBe(0);
  });

  it('exits 3 when an agent fails, with everything on disk', async () => {
    writeFileSync(join(dir, 'crash.yaml'), 'steps:\n  default: { action: crash }\n');
    const r = await runMain(['refine', 'docs', '--reviewer', 'mock:crash.yaml', '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'failed', exit_code: 3, next: expect.stringMatching(/^bounce resume --batch /) });
    expect(manifests().map((m) => m.status)).toEqual(['failed', 'failed', 'failed']);
  });

  it('refuses the whole batch (exit 2, no run folder) when any document has an input problem', async () => {
    writeFileSync(join(dir, 'docs', 'empty.md'), '\n');
    const r = await runMain(['refine', 'docs', ...MOCKS], { cwd: dir });
    expect(r.code).toBe(2);
    // The path is printed once: the message names it already.
    expect(r.stderr.split('\n')[0]).toMatch(/^bounce: docs\/empty\.md is empty: /);
    expect(r.stderr).toMatch(/1 of 4 documents cannot be run \(first: docs\/empty\.md is empty: /);
    expect(r.stderr).not.toContain('docs/empty.md: docs/empty.md');
    expect(runNames()).toEqual([]);
  });

  it('refuses flags that name one run or one output', async () => {
    for (const args of [
      ['--out', 'x.md'],
      ['--name', 'x'],
    ]) {
      const r = await runMain(['refine', 'docs', ...MOCKS, ...args], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^bounce: --(out|name) names one/);
    }
    const stdin = await runMain(['refine', 'docs/alpha.md', '-', ...MOCKS], { cwd: dir });
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toMatch(/stdin \(-\) cannot be one document of a batch/);
    for (const bad of ['0', '65', 'many']) {
      const r = await runMain(['refine', 'docs', ...MOCKS, '--concurrency', bad], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--concurrency must be a whole number from 1 to 64/);
    }
    expect(runNames()).toEqual([]);
  });

  it('--in-place rewrites each converged document', async () => {
    const r = await runMain(['refine', 'docs/alpha.md', 'docs/beta.md', ...MOCKS, '--in-place', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.runs.map((x: { output: string }) => x.output)).toEqual([join(dir, 'docs', 'alpha.md'), join(dir, 'docs', 'beta.md')]);
  });
});

describe('a batch budget', () => {
  it('--max-dispatches limits the whole batch: the run that would exceed it stops before that dispatch', async () => {
    const r = await runMain(['refine', 'docs', ...MOCKS, '--concurrency', '1', '--max-dispatches', '3', '--json'], { cwd: dir });
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.totals).toMatchObject({ converged: 1, failed: 2, dispatches: 3 });
    expect(out.runs.slice(1).map((x: { error: { type: string } }) => x.error.type)).toEqual(['budget', 'budget']);
    expect(out.runs[1].error.message).toMatch(/the batch/);
  });
});

describe('--shard and --dry-run', () => {
  const listed = async (shard: string): Promise<string[]> => {
    const r = await runMain(['refine', 'docs', ...MOCKS, '--shard', shard, '--dry-run', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout).documents.map((d: { path: string }) => d.path);
  };

  it('splits the documents across shards with no overlap and no gap, and writes nothing', async () => {
    const parts = [await listed('1/2'), await listed('2/2')];
    expect(parts.flat().sort()).toEqual(['docs/alpha.md', 'docs/beta.md', 'docs/sub/gamma.md']);
    expect(new Set(parts.flat()).size).toBe(3);
    expect(await listed('1/2')).toEqual(parts[0]);
    expect(runNames()).toEqual([]);
  });

  it('an empty shard is not an error', async () => {
    const r = await runMain(['refine', 'docs', ...MOCKS, '--shard', '4/4', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'empty', runs: [], totals: { documents: 0 } });
    expect(r.stderr).toMatch(/nothing to refine: shard 4\/4 of 3 documents is empty/);
  });

  it('a bad --shard is a usage error naming the form', async () => {
    for (const bad of ['0/2', '3/2', '1', 'a/b', '1/1001']) {
      const r = await runMain(['refine', 'docs', ...MOCKS, '--shard', bad], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--shard must be i\/n/);
    }
  });
});

describe('--changed with refine', () => {
  it('refines only the documents changed since the ref', async () => {
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: dir, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', 'docs');
    git('commit', '-qm', 'docs');
    writeFileSync(join(dir, 'docs', 'beta.md'), '# beta\n\nThe beta service moves later.\n');
    const r = await runMain(['refine', 'docs', ...MOCKS, '--changed', 'main', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).runs).toHaveLength(1);
    expect((manifests()[0]!.input as { display: string }).display).toBe('docs/beta.md');
    const none = await runMain(['refine', 'docs/alpha.md', ...MOCKS, '--changed', 'main'], { cwd: dir });
    expect(none.code).toBe(0);
    expect(none.stderr).toMatch(/nothing to refine: no document changed since main/);
  });
});

describe('interrupting and resuming a batch', () => {
  it('Ctrl-C leaves every document an interrupted run; resume --batch finishes them all', async () => {
    writeFileSync(join(dir, 'slow.yaml'), 'steps:\n  default: { action: hang }\n');
    const pending = (): boolean => manifests().some((m) => (m.pass_records as { dispatches: { status: string }[] }[]).some((p) => p.dispatches.length > 0));
    const r = await runMainInterrupted(
      ['refine', 'docs', '--reviewer', 'mock:slow.yaml', '--composer', 'mock', '--concurrency', '1', '--json'],
      { cwd: dir },
      pending,
      'a dispatch',
    );
    expect(r.code).toBe(130);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'interrupted', exit_code: 130, totals: { documents: 3, interrupted: 3 } });
    expect(manifests().map((m) => m.status)).toEqual(['interrupted', 'interrupted', 'interrupted']);
    // The reviewer answers now: resuming the batch finishes every run.
    writeFileSync(join(dir, 'slow.yaml'), 'steps: {}\n');
    const again = await runMain(['resume', '--batch', out.batch_id, '--json'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ batch_id: out.batch_id, status: 'converged', totals: { documents: 3, converged: 3 } });
    for (const name of runNames()) expect((await runMain(['audit', name], { cwd: dir })).code).toBe(0);
    // Once done, resuming the batch again reports it as it ended and runs nothing.
    const done = await runMain(['resume', '--batch', out.batch_id, '--json'], { cwd: dir });
    expect(done.code).toBe(0);
    // Seven dispatches: the six that converged and the one Ctrl-C cut off.
    expect(JSON.parse(done.stdout).totals).toMatchObject({ converged: 3, dispatches: 7 });
  });

  it('resumes several named runs; an unknown batch is a usage error', async () => {
    writeFileSync(join(dir, 'crash.yaml'), 'steps:\n  default: { action: crash }\n');
    expect((await runMain(['refine', 'docs/alpha.md', 'docs/beta.md', '--reviewer', 'mock', '--composer', 'mock:crash.yaml'], { cwd: dir })).code).toBe(3);
    writeFileSync(join(dir, 'crash.yaml'), 'steps: {}\n');
    const r = await runMain(['resume', ...runNames(), '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).totals).toMatchObject({ documents: 2, converged: 2 });
    // A run named on its own must be resumable.
    const finished = await runMain(['resume', ...runNames()], { cwd: dir });
    expect(finished.code).toBe(2);
    expect(finished.stderr).toMatch(/is already converged/);
    const unknown = await runMain(['resume', '--batch', '01NOSUCHBATCH'], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no runs of batch 01NOSUCHBATCH/);
    // --passes (and the agents) change one run's plan: several runs are not taken further at once.
    const extended = await runMain(['resume', ...runNames(), '--passes', '4'], { cwd: dir });
    expect(extended.code).toBe(2);
    expect(extended.stderr).toBe("bounce: --passes changes one run's plan, and several runs are being resumed: drop --passes, or resume one run at a time\n");
  });
});

describe('the batch exit code', () => {
  it.each([
    [[], 'empty', 0],
    [['converged', 'converged'], 'converged', 0],
    [['converged', 'not-converged'], 'not-converged', 1],
    [['not-converged', 'failed', 'converged'], 'failed', 3],
    [['failed', 'interrupted', 'not-converged'], 'interrupted', 130],
  ] as const)('%j -> %s (%i)', (statuses, status, exitCode) => {
    expect(batchOutcome(statuses)).toEqual({ status, exitCode });
  });
});
