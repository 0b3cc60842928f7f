import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acquireLock, LOCK_FILE, shownStatus } from '../../src/store/lock.js';
import { cleanEnv, ROOT, runCli, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const DOC = '# Rollout plan\n\nWe ship the feature to every user on Monday.\n\nRollback is manual.\n';
const REFINE = ['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock', '--json'];

describe('a real bounce process killed at each of its writes, then resumed', () => {
  it('leaves a run that bounce audit accepts, whatever write the SIGKILL lands before', async () => {
    // A whole 2-pass run makes fewer than 40 writes; past the last one the process is never killed.
    let k = 1;
    for (; k < 40; k++) {
      const dir = tempDir();
      writeFileSync(join(dir, 'plan.md'), DOC);
      const killed = await runCli(REFINE, { cwd: dir, env: cleanEnv({ BOUNCE_TEST_KILL_AT_WRITE: String(k) }) });
      if (killed.signal !== 'SIGKILL') {
        // The run finished before its k-th write: every kill point has been tried.
        expect(killed.code, killed.stderr).toBe(0);
        break;
      }
      const runs = existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.')) : [];
      if (runs.length === 0) continue; // killed before the run folder was renamed into place: there is no run
      const resumed = await runCli(['resume', 'latest', '--json'], { cwd: dir });
      // A run killed after it was closed is already finished: resume refuses it (exit 2), and that is right.
      expect([0, 2], `write ${k}: ${resumed.stderr}`).toContain(resumed.code);
      if (resumed.code === 0) expect(JSON.parse(resumed.stdout).status).toBe('converged');
      else expect(JSON.parse(readFileSync(join(dir, 'runs', runs[0]!, 'run.json'), 'utf8')).status, `write ${k}: ${resumed.stderr}`).toBe('converged');
      const audit = await runCli(['audit', 'latest'], { cwd: dir });
      expect(audit.code, `write ${k}: ${audit.stdout}${audit.stderr}`).toBe(0);
    }
    expect(k).toBeGreaterThan(15);
    expect(k).toBeLessThan(40);
  }, 240_000);
});

describe('a batch killed with SIGKILL before some of its runs began', () => {
  it('shows every run crashed once it is gone, the ones not begun too (running while it lived), each with a step that works as printed', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'docs'));
    for (const name of ['a', 'b', 'c']) writeFileSync(join(dir, 'docs', `${name}.md`), DOC);
    // The first document's first call never returns: with one run at a time, the other two wait for their turn.
    writeFileSync(join(dir, 'hang.yaml'), 'steps:\n  default: { action: hang }\n');
    const runsDir = join(dir, 'r');
    const folders = (): string[] =>
      existsSync(runsDir)
        ? readdirSync(runsDir)
            .filter((n) => !n.startsWith('.'))
            .sort()
        : [];
    const manifestOf = (name: string) => JSON.parse(readFileSync(join(runsDir, name, 'run.json'), 'utf8'));
    const calling = (): boolean =>
      folders().length === 3 && folders().some((n) => manifestOf(n).pass_records.some((p: { dispatches: { status: string }[] }) => p.dispatches.length > 0));
    let whileAlive: string[] = [];
    const killed = await runCli(['refine', 'docs', '--reviewer', 'mock:hang.yaml', '--composer', 'mock', '--runs-dir', 'r', '--concurrency', '1', '-q'], {
      cwd: dir,
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (!calling()) return;
          clearInterval(poll);
          // Its process lives: no run of it is crashed, begun or not.
          whileAlive = folders().map((n) => shownStatus(join(runsDir, n), manifestOf(n).status).status);
          child.kill('SIGKILL');
        }, 20);
        child.on('close', () => clearInterval(poll));
      },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(whileAlive).toEqual(['running', 'running', 'running']);
    const names = folders();
    const begun = names.filter((n) => manifestOf(n).pass_records.length > 0);
    expect(begun).toHaveLength(1);
    // Every run.json still says running: runs and show tell the process is gone.
    expect(names.map((n) => manifestOf(n).status)).toEqual(['running', 'running', 'running']);
    const listed = await runMain(['runs', '--runs-dir', 'r'], { cwd: dir });
    expect(listed.stdout.split('\n').filter((l) => / crashed /.test(l))).toHaveLength(3);
    // One hint for each crashed run, each naming its runs folder.
    expect(listed.stderr.trim().split('\n').sort()).toEqual(names.map((n) => `${n} crashed (its process is gone): bounce resume ${n} --runs-dir r`));
    const waiting = names.find((n) => !begun.includes(n))!;
    const shown = await runMain(['show', waiting, '--runs-dir', 'r'], { cwd: dir });
    expect(shown.stdout).toMatch(/^status +crashed/m);
    const next = /^next +(bounce .*)$/m.exec(shown.stdout)?.[1];
    expect(next).toBe(`bounce resume ${waiting} --runs-dir r`);
    // The printed step works as printed (the agent answers now), and so does the batch's resume for the rest.
    writeFileSync(join(dir, 'hang.yaml'), 'steps: {}\n');
    const resumed = await runMain([...next!.split(' ').slice(1), '--json'], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ run_id: waiting, status: 'converged' });
    const rest = await runMain(['resume', '--batch', manifestOf(waiting).batch_id, '--runs-dir', 'r', '--json'], { cwd: dir });
    expect(rest.code, rest.stderr).toBe(0);
    expect(names.map((n) => manifestOf(n).status)).toEqual(['converged', 'converged', 'converged']);
    for (const n of names) expect(existsSync(join(runsDir, n, 'lock')), n).toBe(false);
  }, 60_000);
});

describe('a process that ends holding its locks, as a forced stop after a second signal does', () => {
  it('leaves its run crashed, not running with no owner, and the next process takes the lock over', () => {
    const run = join(tempDir(), 'run');
    mkdirSync(run);
    // Another process writes the lock, holds it and exits 130 at once, as forceStop in src/cli.ts does.
    const lockModule = pathToFileURL(join(ROOT, 'dist/src/store/lock.js')).href;
    const script = `const l = await import(${JSON.stringify(lockModule)}); l.lockNewFolder(process.argv[1]); l.holdLock(process.argv[1]); process.exit(130);`;
    const ended = spawnSync(process.execPath, ['--input-type=module', '-e', script, run]);
    expect(ended.status, ended.stderr.toString()).toBe(130);
    const { status, lock } = shownStatus(run, 'running');
    expect(status).toBe('crashed');
    expect(lock?.pid).toBe(ended.pid);
    const release = acquireLock(run);
    expect(JSON.parse(readFileSync(join(run, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    release();
  });
});
