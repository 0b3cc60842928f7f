import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { AS_USER, runCli, userTempDir } from '../support/cli.js';

/**
 * A read-only folder stops only a user without root: when the tests run as root, bounce runs
 * as `nobody` (AS_USER), so that chmod 555 means for it what it means for a user.
 */
const DOC = '# Rollout plan\n\nWe ship the feature to every user on Monday.\n\nRollback is manual.\n';
const MOCK = ['--reviewer', 'mock', '--composer', 'mock'];

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  // Every folder the bounce process writes is its own (or open to it).
  ({ dir, env } = userTempDir());
  mkdirSync(join(dir, 'ro'));
  writeFileSync(join(dir, 'plan.md'), DOC);
  writeFileSync(join(dir, 'ro', 'plan.md'), DOC);
  chmodSync(join(dir, 'ro', 'plan.md'), 0o666);
  chmodSync(join(dir, 'ro'), 0o555);
});

const runs = (): string[] => (existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.')) : []);
const bounce = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: dir, env: { ...env, ...extra }, user: AS_USER });

describe('an output that cannot be written is refused before the first dispatch', () => {
  it('refine --out into a read-only folder: one line, exit 2, no run folder', async () => {
    const r = await bounce(['refine', 'plan.md', '--out', 'ro/refined.md', ...MOCK]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `bounce: --out ${join(dir, 'ro', 'refined.md')} cannot be written: permission denied (EACCES) in ${join(dir, 'ro')}: make that folder writable, or pick another path with --out\n`,
    );
    expect(runs()).toEqual([]);
    expect(readdirSync(join(dir, 'ro'))).toEqual(['plan.md']);
  });

  it('refine --in-place of a document in a read-only folder (the file itself writable): exit 2, the input untouched', async () => {
    const r = await bounce(['refine', 'ro/plan.md', '--in-place', '--json', ...MOCK]);
    expect(r.code, r.stderr).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', run_id: null, error: { type: 'usage' } });
    expect(JSON.parse(r.stdout).error.message).toMatch(/^--in-place .*ro\/plan\.md cannot be written: permission denied \(EACCES\)/);
    expect(runs()).toEqual([]);
    expect(readFileSync(join(dir, 'ro', 'plan.md'), 'utf8')).toBe(DOC);
  });

  it('resume of a run whose --out folder became read-only: exit 2 and no dispatch; writable again, it converges', async () => {
    mkdirSync(join(dir, 'out'));
    chmodSync(join(dir, 'out'), 0o777);
    // Killed just before its 12th write: pass 1 is done, the run is not.
    const killed = await bounce(['refine', 'plan.md', '--out', 'out/refined.md', ...MOCK], { BOUNCE_TEST_KILL_AT_WRITE: '12' });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [run] = runs();
    const manifest = (): { status: string; totals: { dispatches: number } } => JSON.parse(readFileSync(join(dir, 'runs', run!, 'run.json'), 'utf8'));
    const before = manifest();
    expect(before.status).toBe('running');
    chmodSync(join(dir, 'out'), 0o555);
    const refused = await bounce(['resume', run!]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`--out ${join(dir, 'out', 'refined.md')} cannot be written: permission denied (EACCES)`);
    expect(manifest().totals.dispatches).toBe(before.totals.dispatches);
    chmodSync(join(dir, 'out'), 0o777);
    const resumed = await bounce(['resume', run!]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(manifest().status).toBe('converged');
    expect(existsSync(join(dir, 'out', 'refined.md'))).toBe(true);
  });
});

describe('a folder no one can make a file in, root included', () => {
  it.runIf(existsSync('/sys/kernel'))('--out /sys/kernel/refined.md: exit 2 before any dispatch', async () => {
    const r = await runCli(['refine', 'plan.md', '--out', '/sys/kernel/refined.md', ...MOCK], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^bounce: --out \/sys\/kernel\/refined\.md cannot be written: .* in \/sys\/kernel: make that folder writable/);
    expect(runs()).toEqual([]);
  });
});
