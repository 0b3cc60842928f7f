/** Which agent starts the watchdog guards: each one from its spawn until bounce's last signal to its group. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { killAll, running } from '../adapters/host-support.js';
import { ROOT } from '../support/cli.js';
import { dropWarm, runCli, startWarm } from '../../src/kit/cli-run.js';
import { callAdapter } from '../../src/contract/host.js';
import { guardedGroups, spawnGated } from '../../src/contract/process-group.js';
import { testAgent } from '../support/test-agent.js';
import { waitFor } from '../support/wait-for.js';

const env = { PATH: process.env.PATH ?? '' };
const start = { program: process.execPath, args: ['-e', 'process.stdin.resume()'], env, cwd: process.cwd() };

/** Polls until a group not in `before` is guarded; returns its id. */
async function newlyGuarded(before: Set<number>): Promise<number> {
  return waitFor(() => [...guardedGroups().keys()].find((g) => !before.has(g)), 10_000, 'a new group to be guarded');
}

describe('guarded process groups', () => {
  it('a CLI started ahead of its dispatch is guarded from its start until it is dropped', async () => {
    const warm = startWarm(start);
    const pid = warm?.child.pid;
    expect(pid).toBeGreaterThan(0);
    expect(guardedGroups().has(pid!)).toBe(true);
    await dropWarm(warm!);
    expect(guardedGroups().has(pid!)).toBe(false);
  });

  it('a CLI run by runCli is guarded while it runs, and not once its group is killed', async () => {
    const before = new Set(guardedGroups().keys());
    const run = runCli({
      ...start,
      args: ['-e', 'console.log(process.pid); setTimeout(() => {}, 300)'],
      input: '',
      deadline: new Date(Date.now() + 60_000).toISOString(),
      signal: new AbortController().signal,
      stderr: () => {},
    });
    const pid = await newlyGuarded(before);
    const done = await run;
    expect(Number(done.stdout.trim())).toBe(pid);
    await waitFor(() => !guardedGroups().has(pid), 10_000, 'its group to be forgotten');
  });

  it('a cmd: program is guarded while it runs, and not once it has answered', async () => {
    const agent = testAgent({
      spec: 'cmd:fx',
      command: process.execPath,
      args: ['-e', 'setTimeout(() => console.log(JSON.stringify({ pid: process.pid })), 300)'],
    });
    const before = new Set(guardedGroups().keys());
    const call = callAdapter(agent, {}, { timeoutMs: 60_000, maxOutputBytes: 1000 });
    const pid = await newlyGuarded(before);
    const result = await call;
    expect((JSON.parse(result.stdout) as { pid: number }).pid).toBe(pid);
    expect(guardedGroups().has(pid)).toBe(false);
  });
});

/**
 * Runs `spawn` (code that sets `child`) in a node that SIGKILLs itself right after, using the
 * built module (dist/, as the runCli tests do); waits until that child is gone.
 */
async function spawnThenDie(name: 'spawnGated' | 'spawnGuarded', spawn: string, helper?: () => number | undefined): Promise<void> {
  const module = join(ROOT, 'dist', 'src', 'contract', 'process-group.js');
  const script = [
    `const { ${name} } = await import(${JSON.stringify(module)});`,
    spawn,
    'process.stdout.write(String(child.pid));',
    // With a helper to wait for, the child runs a moment first, so that it has started it.
    helper ? 'await new Promise((r) => setTimeout(r, 1500));' : '',
    "process.kill(process.pid, 'SIGKILL');",
  ].join('\n');
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(r.signal, r.stderr).toBe('SIGKILL');
  const pid = Number(r.stdout);
  expect(pid).toBeGreaterThan(0);
  const helperPid = helper?.();
  if (helper) expect(helperPid, 'the helper started before bounce died').toBeGreaterThan(0);
  try {
    await waitFor(() => !running(pid), 30_000, `the child ${pid} to be gone`);
    if (helperPid) await waitFor(() => !running(helperPid), 30_000, `the helper ${helperPid} to be gone`);
  } finally {
    killAll([pid, ...(helperPid ? [helperPid] : [])]);
  }
}

describe('the gate', () => {
  /** A node program that writes `ran <pid> <argv>` to `file`: whether, and as what, it ran. */
  const writer = (file: string): string[] => [
    '-e',
    `require('fs').writeFileSync(${JSON.stringify(file)}, 'ran ' + process.pid + ' ' + process.argv.slice(1).join(' '))`,
    'one',
    'two',
  ];

  it('runs nothing until it is opened: a bounce killed between the spawn and the watchdog line starts no program', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bounce-gate-')), 'ran');
    await spawnThenDie('spawnGated', `const { child } = spawnGated(process.execPath, ${JSON.stringify(writer(file))}, { stdio: 'ignore' });`);
    expect(existsSync(file)).toBe(false);
  });

  it('once opened, is the program itself: the same pid, its arguments, its exit code', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bounce-gate-')), 'ran');
    const { child, open } = spawnGated(process.execPath, writer(file), { stdio: 'ignore' });
    open();
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(`ran ${child.pid} one two`);
  });

  it('spawns a missing program directly, so the caller gets ENOENT from spawn as before', async () => {
    const { child } = spawnGated('bounce-no-such-program', [], { stdio: 'ignore', env: { PATH: tmpdir() } });
    const err = await new Promise<NodeJS.ErrnoException>((resolve) => child.on('error', resolve));
    expect([err.code, child.pid]).toEqual(['ENOENT', undefined]);
  });
});

describe('the watchdog', () => {
  it.runIf(existsSync('/proc/self') && existsSync('/usr/bin/setsid'))(
    'kills a helper that left its group (setsid): it finds it by the tag in its environment',
    async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'bounce-setsid-')), 'helper');
      const agent = `setsid sleep 4243 </dev/null >/dev/null 2>&1 & echo $! > ${JSON.stringify(file)}; sleep 1000`;
      await spawnThenDie('spawnGuarded', `const child = spawnGuarded('/bin/sh', ['-c', ${JSON.stringify(agent)}], { stdio: 'ignore' });`, () =>
        existsSync(file) && readFileSync(file, 'utf8').trim() !== '' ? Number(readFileSync(file, 'utf8')) : undefined,
      );
    },
  );

  it('has a group in its pipe as soon as spawnGuarded returns: a process SIGKILLed in that very tick takes its child down', async () => {
    await spawnThenDie(
      'spawnGuarded',
      `const child = spawnGuarded(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' });`,
    );
  });
});
