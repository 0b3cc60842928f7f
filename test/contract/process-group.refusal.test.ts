/**
 * Nothing is started unguarded: when no watchdog can be started, spawnGuarded, a `cmd:`
 * dispatch and a CLI's probe are refused before the program starts. This file is fast, so
 * every spawn fails here (test/support/no-subprocess.ts): the watchdog's `sh` cannot start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callAdapter } from '../../src/contract/host.js';
import { guardedGroups, NoWatchdogError, spawnGuarded } from '../../src/contract/process-group.js';
import { runQuick } from '../../src/kit/detect.js';
import { takeTried } from '../support/no-subprocess.js';
import { testAgent } from '../support/test-agent.js';

const WATCHDOG_ONLY = ['child_process.spawn("/bin/sh")'];

afterEach(() => {
  // Drained by each test; the guard's own afterEach then finds nothing left.
  expect(takeTried()).toEqual([]);
});

describe('with no watchdog', () => {
  it('spawnGuarded throws NoWatchdogError (exit 3, one line with its fix) and never spawns the program', () => {
    let thrown: unknown;
    try {
      spawnGuarded('node', ['-e', ''], { stdio: 'ignore' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(NoWatchdogError);
    expect(thrown).toMatchObject({ exitCode: 3, code: 'agent' });
    expect((thrown as NoWatchdogError).line).toMatch(/^bounce could not start the watchdog .*, so it starts no agent: check that \/bin\/sh runs/);
    expect(takeTried()).toEqual(WATCHDOG_ONLY);
    expect(guardedGroups().size).toBe(0);
  });

  it('a cmd: dispatch is refused as a config error naming the watchdog, the program not started', async () => {
    const agent = testAgent({ spec: 'cmd:fx', command: 'fx-program', args: [] });
    const result = await callAdapter(agent, {}, { timeoutMs: 60_000, maxOutputBytes: 1000 });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.type).toBe('config');
    expect(!result.ok && result.error.message).toContain('bounce could not start the watchdog');
    expect(takeTried()).toEqual(WATCHDOG_ONLY);
  });

  it("a CLI's probe is refused the same way", async () => {
    await expect(runQuick('claude', ['--version'], {}, 1000)).rejects.toBeInstanceOf(NoWatchdogError);
    expect(takeTried()).toEqual(WATCHDOG_ONLY);
  });
});
