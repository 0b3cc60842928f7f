import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../support/cli.js';
import { runMain, runMainInterrupted } from '../support/run-main.js';
import { pass2PendingIn } from '../support/run-folders.js';
import { ownerLock } from '../support/lock.js';

const DOC = '# Migration\n\nWe move the database on Saturday night.\n\nThe old cluster stays up for a week.\n';

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'migrate.md'), DOC);
});

const runDir = (): string => join(dir, 'runs', readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.'))[0]!);
const manifest = () => JSON.parse(readFileSync(join(runDir(), 'run.json'), 'utf8'));
const records = (): string[] => {
  const root = join(runDir(), 'audit', 'dispatches');
  return readdirSync(root).flatMap((day) => readdirSync(join(root, day)).map((f) => readFileSync(join(root, day, f), 'utf8')));
};

/** Whether run.json lists a dispatch with this stem as pending (false before there is a run). */
const pendingStem = (stem: string): boolean => {
  if (!existsSync(join(dir, 'runs')) || !readdirSync(join(dir, 'runs')).some((n) => !n.startsWith('.'))) return false;
  if (!existsSync(join(runDir(), 'run.json'))) return false;
  return manifest().pass_records.some((p: PassJson) => p.dispatches.some((d) => d.stem === stem && d.status === 'pending'));
};
interface PassJson {
  pass: number;
  status: string;
  dispatches: { stem: string; status: string }[];
}

/** Pass 2's call is out: run.json lists it as pending (so its record is written too). */
const pass2Pending = (): boolean => pass2PendingIn(dir);

/** Starts a run whose pass 2 takes a while, and SIGKILLs bounce (a process) in the middle of that pass. */
async function killedInPass2(extraArgs: string[] = []): Promise<void> {
  writeFileSync(join(dir, 's.yaml'), 'steps:\n  "2": { delay_ms: 4000 }\n');
  const r = await runCli(['refine', 'migrate.md', '--reviewer', 'mock', '--composer', 'mock:s.yaml', ...extraArgs], {
    cwd: dir,
    onSpawn: (child) => {
      const poll = setInterval(() => {
        if (pass2Pending()) {
          clearInterval(poll);
          child.kill('SIGKILL');
        }
      }, 20);
      child.on('close', () => clearInterval(poll));
    },
  });
  expect(r.signal).toBe('SIGKILL');
  writeFileSync(join(dir, 's.yaml'), 'steps: {}\n');
}

/** Starts a run in-process whose pass 2 hangs, and aborts it (Ctrl-C) once that call is out. */
async function interruptedInPass2(extraArgs: string[] = []): Promise<void> {
  writeFileSync(join(dir, 's.yaml'), 'steps:\n  "2": { action: hang }\n');
  const args = ['refine', 'migrate.md', '--reviewer', 'mock', '--composer', 'mock:s.yaml', ...extraArgs];
  const r = await runMainInterrupted(args, { cwd: dir }, pass2Pending, "pass 2's call");
  expect(r.code, r.stderr).toBe(130);
  writeFileSync(join(dir, 's.yaml'), 'steps: {}\n');
}

describe('bounce resume', () => {
  it('a run made with --out - resumed with --json goes to its run folder, and stdout holds only the JSON object', async () => {
    await interruptedInPass2(['--out', '-']);
    const r = await runMain(['resume', 'latest', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'converged', exit_code: 0, next: null });
    expect(out.output).toBe(join(runDir(), 'final.md'));
    expect(r.stderr).toContain('cannot share stdout with --json');
  });

  it('a timed-out run resumes with a longer --timeout, which run.json then records; the summary names that command', async () => {
    writeFileSync(join(dir, 's.yaml'), 'steps:\n  "2": { delay_ms: 3000 }\n');
    const first = await runMain(['refine', 'migrate.md', '--reviewer', 'mock', '--composer', 'mock:s.yaml', '--timeout', '1', '--json'], { cwd: dir });
    expect(first.code).toBe(3);
    const failed = JSON.parse(first.stdout);
    expect(failed.error.type).toBe('timeout');
    expect(failed.next).toBe(`bounce resume ${failed.run_id} --timeout 2`);
    expect(first.stderr).toContain(`next: bounce resume ${failed.run_id} --timeout 2`);
    const r = await runMain(['resume', failed.run_id, '--timeout', '30', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(manifest().agents.composer.timeout_s).toBe(30);
  });

  it('finishes a run killed with SIGKILL mid-pass, to the result a whole run reaches', async () => {
    await killedInPass2(['--out', 'migrated.md']);
    expect(manifest().status).toBe('running');
    expect(records().some((r) => /status: pending/.test(r))).toBe(true);
    // Its process is gone: runs and show call it crashed and name the resume, and write nothing.
    const id = basename(runDir());
    const listed = await runMain(['runs'], { cwd: dir });
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+migrate\\.md\\s+crashed`, 'm'));
    expect(listed.stderr).toContain(`bounce resume ${id}`);
    expect((await runMain(['show', id], { cwd: dir })).stdout).toContain(`next      bounce resume ${id}`);
    expect(manifest().status).toBe('running');
    const r = await runCli(['resume', 'latest', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'converged', exit_code: 0, passes_run: 2 });
    expect(readFileSync(join(dir, 'migrated.md'), 'utf8')).toBe(DOC);
    const m = manifest();
    expect(m.status).toBe('converged');
    expect(m.pass_records.filter((p: { status: string }) => p.status === 'completed').map((p: { pass: number }) => p.pass)).toEqual([1, 2]);
    expect(records().some((r) => /status: pending/.test(r))).toBe(false);
    expect(records().some((r) => /status: error/.test(r) && /stopped before this dispatch finished/.test(r))).toBe(true);
    const audit = await runMain(['audit', 'latest'], { cwd: dir });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    const again = await runMain(['resume', 'latest'], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already converged');
  });

  it('refuses a run made under another policy and keeps it', async () => {
    await interruptedInPass2();
    const before = readFileSync(join(runDir(), 'run.json'), 'utf8');
    writeFileSync(join(dir, 'bounce.config.yaml'), 'markers: [RISK]\n');
    const r = await runMain(['resume', 'latest'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/another policy \(markers changed\)/);
    // The way on: a new run from the last completed pass's document (pass 1 here).
    const pass1 = manifest().pass_records.find((p: { pass: number; status: string }) => p.pass === 1 && p.status === 'completed').document;
    // With the run's agents: it works as printed on a machine with no default agent.
    expect(r.stderr).toContain(
      `start a new run from where it got to: bounce refine ${join('runs', basename(runDir()), pass1)} --reviewer mock --composer mock:s.yaml`,
    );
    expect(r.stderr).not.toContain('prompt templates');
    expect(manifest().status).toBe('interrupted');
    expect(readFileSync(join(runDir(), 'run.json'), 'utf8')).toBe(before);
  });

  it('refuses a run another live process holds, and takes over a dead one', async () => {
    await killedInPass2();
    writeFileSync(join(runDir(), 'lock'), ownerLock(process.pid));
    const held = await runMain(['resume', 'latest'], { cwd: dir });
    expect(held.code).toBe(2);
    expect(held.stderr).toContain(`in use by process ${process.pid}`);
    writeFileSync(join(runDir(), 'lock'), JSON.stringify({ pid: 999_999_999, host: hostname(), started_at: new Date().toISOString() }));
    const r = await runMain(['resume', 'latest'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(runDir(), 'lock'))).toBe(false);
  });

  it('takes over a lock whose pid a later process reuses: that process started after the lock was written', async () => {
    await killedInPass2();
    // This test process is alive, but it started long after 2020: it is not the lock's owner.
    writeFileSync(join(runDir(), 'lock'), JSON.stringify({ pid: process.pid, host: hostname(), started_at: '2020-01-01T00:00:00.000Z' }));
    const r = await runMain(['resume', 'latest'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(manifest().status).toBe('converged');
  });

  it('refuses an --in-place run whose input changed since it began', async () => {
    await interruptedInPass2(['--in-place']);
    const before = readFileSync(join(runDir(), 'run.json'), 'utf8');
    writeFileSync(join(dir, 'migrate.md'), `${DOC}\nEdited by hand meanwhile.\n`);
    const r = await runMain(['resume', 'latest'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('changed since the run began');
    expect(readFileSync(join(dir, 'migrate.md'), 'utf8')).toContain('Edited by hand');
    expect(readFileSync(join(runDir(), 'run.json'), 'utf8')).toBe(before);
  });

  it('closes a run that converged but crashed before it was closed, without another call', async () => {
    writeFileSync(join(dir, 's.yaml'), 'steps:\n  "1": { action: echo }\n');
    const first = await runMain(['refine', 'migrate.md', '--passes', '3', '--reviewer', 'mock:s.yaml', '--composer', 'mock', '--out', 'done.md'], { cwd: dir });
    expect(first.code).toBe(0);
    // Rewind the manifest to the moment after pass 1 was recorded and before the run was closed.
    const m = manifest();
    Object.assign(m, { status: 'running', exit_code: null, finished_at: null, output: { ...m.output, written: false, sha256: null } });
    writeFileSync(join(runDir(), 'run.json'), JSON.stringify(m, null, 2));
    rmSync(join(dir, 'done.md'));
    const r = await runMain(['resume', 'latest', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'converged', passes_run: 1 });
    expect(manifest().totals.dispatches).toBe(1);
    expect(readFileSync(join(dir, 'done.md'), 'utf8')).toBe(DOC);
  });

  it('a pass run again after each resume gets .resume-<k>, and no earlier artifact is overwritten', async () => {
    writeFileSync(join(dir, 's.yaml'), 'steps:\n  "2": { action: hang }\n');
    const stem = 'pass-2-composer-mock-s.yaml';
    /** Runs bounce in-process and aborts it (Ctrl-C) once the dispatch `pending` is out. */
    const interrupted = async (args: string[], pending: string): Promise<void> => {
      const r = await runMainInterrupted(args, { cwd: dir }, () => pendingStem(pending), `${pending} to be dispatched`);
      expect(r.code, r.stderr).toBe(130);
      expect(manifest().status).toBe('interrupted');
    };
    const artifacts = (): Record<string, string> =>
      Object.fromEntries(
        readdirSync(runDir())
          .filter((f) => f.startsWith('pass-'))
          .map((f) => [f, readFileSync(join(runDir(), f), 'utf8')]),
      );

    await interrupted(['refine', 'migrate.md', '--reviewer', 'mock', '--composer', 'mock:s.yaml'], stem);
    const afterRefine = artifacts();
    await interrupted(['resume', 'latest'], `${stem}.resume-1`);
    const afterResume1 = artifacts();
    writeFileSync(join(dir, 's.yaml'), 'steps: {}\n');
    const r = await runMain(['resume', 'latest', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'converged', exit_code: 0, passes_run: 2 });

    const m = manifest();
    expect(m.status).toBe('converged');
    const pass2 = m.pass_records.filter((p: PassJson) => p.pass === 2);
    expect(pass2.map((p: PassJson) => p.status)).toEqual(['interrupted', 'interrupted', 'completed']);
    expect(pass2.map((p: PassJson) => p.dispatches.map((d) => d.stem))).toEqual([[stem], [`${stem}.resume-1`], [`${stem}.resume-2`]]);
    const files = readdirSync(runDir());
    for (const name of [`${stem}.prompt.md`, `${stem}.resume-1.prompt.md`, `${stem}.resume-2.prompt.md`]) expect(files).toContain(name);
    // Every file an earlier attempt left is still there, byte for byte.
    expect(afterResume1).toMatchObject(afterRefine);
    expect(artifacts()).toMatchObject(afterResume1);
    expect(Object.keys(afterResume1).length).toBeGreaterThan(Object.keys(afterRefine).length);
    const audit = await runMain(['audit', 'latest', '--json'], { cwd: dir });
    expect(audit.code, audit.stdout).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ ok: true, problems: [], records: m.totals.dispatches });
    expect(m.totals.dispatches).toBe(4);
  });

  it('accepts no flag that would change what the run was asked (--goal, --all-passes); --passes and the agents are its own (resume-passes.test.ts)', async () => {
    for (const flags of [['--goal', 'other'], ['--all-passes']]) {
      const r = await runMain(['resume', 'latest', ...flags], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`unknown option '${flags[0]}'`);
    }
  });
});
