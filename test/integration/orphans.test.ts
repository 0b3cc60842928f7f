import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { killAll, pidsIn, running } from '../adapters/host-support.js';
import { cleanEnv, FIXTURES, runCli, tempDir } from '../support/cli.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Nothing bounce started outlives it, even when it is killed with SIGKILL and can do
 * nothing about it: the agents' process groups are killed by its watchdog
 * (src/contract/process-group.ts). Each fixture agent starts a child that ignores SIGTERM
 * and writes both pids to a file.
 */

const DOC = '# Rollout plan\n\nWe ship the feature to every user on Monday.\n';
const LOGGED_IN = JSON.stringify({ loggedIn: true, authMethod: 'claude.ai', subscriptionType: 'max' });

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'plan.md'), DOC);
});

/** Runs bounce until `pidFile` names the agent and its child, SIGKILLs bounce, and returns those pids. */
async function killBounceDuringDispatch(args: string[], env: NodeJS.ProcessEnv, pidFile: string): Promise<number[]> {
  const r = await runCli(args, {
    cwd: dir,
    env,
    onSpawn: (child) => {
      const poll = setInterval(() => {
        if (pidsIn(pidFile).length < 2) return;
        clearInterval(poll);
        child.kill('SIGKILL');
      }, 20);
      child.on('close', () => clearInterval(poll));
    },
  });
  expect(r.signal, r.stderr).toBe('SIGKILL');
  return pidsIn(pidFile);
}

/** Every pid stops running (a bounded wait, not a measure of speed); the test kills the rest if not. */
async function expectAllGone(pids: number[]): Promise<void> {
  try {
    // 30 s: on a busy machine the watchdog's shell may be slow to run; still a bounded wait, not a measure.
    await waitFor(() => pids.every((pid) => !running(pid)), 30_000, `the agent processes ${pids.join(', ')} to be gone`);
  } finally {
    killAll(pids);
  }
}

describe('bounce killed with SIGKILL during a dispatch', () => {
  it('takes a cmd: adapter and the child it started down with it', async () => {
    const pidFile = join(dir, 'pids');
    const agent = `cmd:${join(FIXTURES, 'adapters', 'stubborn.mjs')}`;
    const pids = await killBounceDuringDispatch(
      ['refine', 'plan.md', '--reviewer', agent, '--composer', 'mock'],
      cleanEnv({ STUBBORN_PID_FILE: pidFile }),
      pidFile,
    );
    expect(pids).toHaveLength(2);
    await expectAllGone(pids);
  });

  it('takes a built-in CLI (claude, started early) and its child down with it', async () => {
    const pidFile = join(dir, 'pids');
    const log = join(dir, 'starts.log');
    const env = cleanEnv({
      BOUNCE_CLAUDE_BIN: join(FIXTURES, 'cli', 'fake-cli.mjs'),
      FAKE_CLI_AUTH: LOGGED_IN,
      FAKE_CLI_MODE: 'hang',
      FAKE_CLI_PIDS: pidFile,
      FAKE_CLI_LOG: log,
    });
    const pids = await killBounceDuringDispatch(['refine', 'plan.md', '--reviewer', 'claude', '--composer', 'claude'], env, pidFile);
    expect(pids).toHaveLength(2);
    // The CLI got its prompt: it is the dispatch's own start, not a check.
    expect(readFileSync(log, 'utf8')).toContain('-p');
    await expectAllGone(pids);
  });
});

describe('bounce killed with SIGKILL during a probe', () => {
  it("takes a CLI's hanging `--version` and the child it started down with it", async () => {
    const pidFile = join(dir, 'pids');
    const log = join(dir, 'starts.log');
    const env = cleanEnv({
      BOUNCE_CLAUDE_BIN: join(FIXTURES, 'cli', 'fake-cli.mjs'),
      FAKE_CLI_AUTH: LOGGED_IN,
      FAKE_CLI_VERSION: 'hang',
      FAKE_CLI_PIDS: pidFile,
      FAKE_CLI_LOG: log,
      // A cache of its own: a version remembered by another test would spare the probe.
      XDG_CACHE_HOME: tempDir('bounce-orphans-cache-'),
    });
    const pids = await killBounceDuringDispatch(['refine', 'plan.md', '--reviewer', 'claude', '--composer', 'claude'], env, pidFile);
    expect(pids).toHaveLength(2);
    // The hanging start is the probe: no dispatch had begun.
    expect(readFileSync(log, 'utf8')).toContain('--version');
    expect(readFileSync(log, 'utf8')).not.toContain('-p');
    await expectAllGone(pids);
  });
});

describe('bounce resume killed with SIGKILL during a dispatch', () => {
  it('takes its agent down with it too', async () => {
    const pidFile = join(dir, 'pids');
    const agent = `cmd:${join(FIXTURES, 'adapters', 'stubborn.mjs')}`;
    const env = cleanEnv({ STUBBORN_PID_FILE: pidFile });
    const first = await killBounceDuringDispatch(['refine', 'plan.md', '--reviewer', agent, '--composer', 'mock'], env, pidFile);
    await expectAllGone(first);
    const run = readdirSync(join(dir, 'runs')).find((n) => !n.startsWith('.'));
    expect(run && existsSync(join(dir, 'runs', run, 'run.json'))).toBe(true);
    writeFileSync(pidFile, '');
    const again = await killBounceDuringDispatch(['resume', run!], env, pidFile);
    expect(again).toHaveLength(2);
    expect(again).not.toEqual(first);
    await expectAllGone(again);
  });
});

/** The watchdog bounce started: its child that runs /bin/sh (from /proc). */
function watchdogOf(bouncePid: number): number | null {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === bouncePid && readFileSync(`/proc/${name}/cmdline`, 'utf8').startsWith('/bin/sh\0')) return Number(name);
    } catch {
      // Gone meanwhile.
    }
  }
  return null;
}

describe('bounce resume after a runner and its watchdog were both killed', () => {
  it('kills the agent group the dead runner left and removes the staged files of writes cut short', async () => {
    const agent = `cmd:${join(FIXTURES, 'adapters', 'stubborn.mjs')}`;
    const firstPids = join(dir, 'first.pids');
    const r = await runCli(['refine', 'plan.md', '--reviewer', agent, '--composer', 'mock'], {
      cwd: dir,
      env: cleanEnv({ STUBBORN_PID_FILE: firstPids }),
      onSpawn: (child) => {
        const poll = setInterval(() => {
          const watchdog = child.pid === undefined ? null : watchdogOf(child.pid);
          if (pidsIn(firstPids).length < 2 || watchdog === null) return;
          clearInterval(poll);
          process.kill(watchdog, 'SIGKILL');
          child.kill('SIGKILL');
        }, 20);
        child.on('close', () => clearInterval(poll));
      },
    });
    expect(r.signal, r.stderr).toBe('SIGKILL');
    const left = pidsIn(firstPids);
    try {
      // With no watchdog left, the agent and its child outlive bounce: what resume is for.
      expect(left.every(running)).toBe(true);
      const run = readdirSync(join(dir, 'runs')).find((n) => !n.startsWith('.'))!;
      const runDir = join(dir, 'runs', run);
      expect(existsSync(join(runDir, 'processes.json'))).toBe(true);
      // Staged files of a writer that is gone (no process has pid 99999999), beside run.json and a record.
      const day = join(runDir, 'audit', 'dispatches', '2026-01-01');
      mkdirSync(day, { recursive: true });
      const staged = [join(runDir, '.run.json.99999999.0badf00d.tmp'), join(day, '.01KRMEXMCGP8Y12X1PTT085SWC.yaml.99999999.12345678.tmp')];
      for (const file of staged) writeFileSync(file, 'half a write');
      const kept = join(runDir, '.notes.99999999.tmp');
      writeFileSync(kept, 'not a staged file');
      const againPids = join(dir, 'again.pids');
      const again = await runCli(['resume', run], {
        cwd: dir,
        env: cleanEnv({ STUBBORN_PID_FILE: againPids }),
        onSpawn: (child) => {
          // The resumed run's own call hangs too: once it is out, bounce is killed again (its watchdog kills that call).
          const poll = setInterval(() => {
            if (pidsIn(againPids).length < 2) return;
            clearInterval(poll);
            child.kill('SIGKILL');
          }, 20);
          child.on('close', () => clearInterval(poll));
        },
      });
      expect(again.signal, again.stderr).toBe('SIGKILL');
      await expectAllGone(left);
      await expectAllGone(pidsIn(againPids));
      for (const file of staged) expect(existsSync(file), file).toBe(false);
      expect(existsSync(kept)).toBe(true);
      expect(readFileSync(join(runDir, 'run.log'), 'utf8')).toContain(`resume killed the agent process groups its predecessor left running: ${left[0]}`);
    } finally {
      killAll(left);
    }
  });
});
