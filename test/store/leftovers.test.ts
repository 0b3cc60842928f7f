import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endGroup, guardGroup } from '../../src/contract/process-group.js';
import { siblingName, stagedBy } from '../../src/atomic.js';
import { clearLeftovers, PROCESSES_FILE, trackGroups } from '../../src/store/leftovers.js';
import { killAll, pidsIn, running } from '../adapters/host-support.js';
import { FIXTURES, tempDir } from '../support/cli.js';
import { mountTmpfs, remount } from '../support/mount.js';
import { waitFor } from '../support/wait-for.js';

/** No process has this pid (above Linux's largest pid_max). */
const GONE = 99_999_999;

let dir: string;
let started: number[] = [];
beforeEach(() => {
  dir = tempDir();
  started = [];
});
afterEach(() => killAll(started));

/** A process group as an agent's: tree.sh and a child of it that ignores SIGTERM; returns both pids. */
async function agentGroup(): Promise<number[]> {
  const pidFile = join(dir, `tree-${started.length}.pids`);
  const child = spawn(join(FIXTURES, 'host', 'tree.sh'), [pidFile], { detached: true, stdio: 'ignore' });
  child.unref();
  const pids = await waitFor(() => (pidsIn(pidFile).length === 2 ? pidsIn(pidFile) : null), 10_000, 'the fixture to start');
  started.push(...pids);
  return pids;
}

const processesFile = (pid: number, groups: Array<{ pgid: number; started_at: string }>): void =>
  writeFileSync(join(dir, PROCESSES_FILE), `${JSON.stringify({ pid, groups })}\n`);

describe('staged files', () => {
  it('stagedBy reads the writer of exactly the names siblingName makes with tag tmp', () => {
    expect(stagedBy(siblingName(join(dir, 'run.json'), 'tmp').slice(dir.length + 1))).toBe(process.pid);
    expect(stagedBy('.run.json.123.0badf00d.tmp')).toBe(123);
    for (const name of ['run.json', '.run.json.tmp', '.run.json.123.0badf00d.orig', '.run.json.123.xyz.tmp', 'lock.123.tmp'])
      expect(stagedBy(name), name).toBeNull();
  });

  it("are removed when their writer is gone, in the run folder and below it; a live writer's are kept", () => {
    const day = join(dir, 'audit', 'dispatches', '2026-01-01');
    mkdirSync(day, { recursive: true });
    const dead = [join(dir, `.run.json.${GONE}.0badf00d.tmp`), join(day, `.01KRMEXMCGP8Y12X1PTT085SWC.yaml.${GONE}.12345678.tmp`)];
    // The test runner's parent is alive, and is not this process.
    const live = join(dir, `.run.json.${process.ppid}.abcdef01.tmp`);
    const other = join(dir, '.run.json.tmp');
    for (const file of [...dead, live, other]) writeFileSync(file, 'x');
    expect(clearLeftovers(dir).temps.sort()).toEqual([
      `.run.json.${GONE}.0badf00d.tmp`,
      `audit/dispatches/2026-01-01/.01KRMEXMCGP8Y12X1PTT085SWC.yaml.${GONE}.12345678.tmp`,
    ]);
    for (const file of dead) expect(existsSync(file)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(other)).toBe(true);
  });
});

describe('agent groups a dead runner left', () => {
  it('are killed, with everything in them, when the leader is the process started then', async () => {
    const [leader, child] = (await agentGroup()) as [number, number];
    processesFile(GONE, [{ pgid: leader, started_at: new Date().toISOString() }]);
    expect(clearLeftovers(dir).groups).toEqual([leader]);
    await waitFor(() => !running(leader) && !running(child), 10_000, 'the group to be gone');
    expect(existsSync(join(dir, PROCESSES_FILE))).toBe(false);
  });

  it('are left alone when the id now belongs to a process started at another time (a reused id)', async () => {
    const [leader, child] = (await agentGroup()) as [number, number];
    processesFile(GONE, [{ pgid: leader, started_at: new Date(Date.now() - 3_600_000).toISOString() }]);
    expect(clearLeftovers(dir).groups).toEqual([]);
    expect(running(leader) && running(child)).toBe(true);
  });

  it('are left alone while the runner that started them is alive', async () => {
    const [leader] = (await agentGroup()) as [number];
    processesFile(process.ppid, [{ pgid: leader, started_at: new Date().toISOString() }]);
    expect(clearLeftovers(dir).groups).toEqual([]);
    expect(running(leader)).toBe(true);
    expect(existsSync(join(dir, PROCESSES_FILE))).toBe(true);
  });
});

describe('agent groups of this very process', () => {
  it('are never killed by a file that names this pid: they belong to a run this process is running', async () => {
    const [leader] = (await agentGroup()) as [number];
    guardGroup(leader);
    try {
      processesFile(process.pid, [{ pgid: leader, started_at: new Date().toISOString() }]);
      expect(clearLeftovers(dir).groups).toEqual([]);
      expect(running(leader)).toBe(true);
    } finally {
      endGroup(leader);
    }
  });
});

describe('trackGroups', () => {
  it.runIf(process.getuid?.() === 0)('stops quietly when the run folder has turned read-only: the file stays, no error', async () => {
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    expect(mountTmpfs(ro, '1m')).toBe(true);
    try {
      const stop = trackGroups(ro);
      const [leader] = (await agentGroup()) as [number];
      guardGroup(leader);
      expect(existsSync(join(ro, PROCESSES_FILE))).toBe(true);
      remount(ro, 'ro');
      expect(() => stop()).not.toThrow();
      expect(existsSync(join(ro, PROCESSES_FILE))).toBe(true);
      endGroup(leader);
    } finally {
      execFileSync('umount', [ro]);
    }
  });

  it('names the guarded groups of this process in processes.json as each starts, and removes the file when it stops', async () => {
    const stop = trackGroups(dir);
    const [leader] = (await agentGroup()) as [number];
    guardGroup(leader);
    const file = JSON.parse(readFileSync(join(dir, PROCESSES_FILE), 'utf8'));
    expect(file.pid).toBe(process.pid);
    expect(file.groups.map((g: { pgid: number }) => g.pgid)).toContain(leader);
    endGroup(leader);
    const [second] = (await agentGroup()) as [number];
    guardGroup(second);
    const groups = JSON.parse(readFileSync(join(dir, PROCESSES_FILE), 'utf8')).groups.map((g: { pgid: number }) => g.pgid);
    expect(groups).toContain(second);
    expect(groups).not.toContain(leader);
    stop();
    expect(existsSync(join(dir, PROCESSES_FILE))).toBe(false);
    endGroup(second);
  });
});
