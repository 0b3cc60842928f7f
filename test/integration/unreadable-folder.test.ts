import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AS_USER, runCli, userTempDir } from '../support/cli.js';

/**
 * A folder bounce cannot list, under a folder or a glob it was given (`scan`, `lint`,
 * `--context`), is an input error naming that folder, exit 2: never a crash with a stack
 * trace, never a file silently left out. Mode 000 stops only a user without root: when the
 * tests run as root, bounce runs as `nobody` (AS_USER).
 */
const MOCK = ['--reviewer', 'mock', '--composer', 'mock'];
const DENIED = /: give bounce read and search permission on it \(chmod u\+rx\), or name the files to read \(or a glob that leaves it out\)\n$/;

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  ({ dir, env } = userTempDir());
  writeFileSync(join(dir, 'doc.md'), '# Doc\n\nText here.\n');
  mkdirSync(join(dir, 'ctx', 'locked'), { recursive: true });
  writeFileSync(join(dir, 'ctx', 'a.md'), '# A\n');
  writeFileSync(join(dir, 'ctx', 'locked', 'b.md'), '# B\n\n[CLARIFY] Hidden? (A) yes (B) no\n');
  chmodSync(join(dir, 'ctx', 'locked'), 0o000);
});
// So that the temporary folder can be removed by a user without root.
afterEach(() => chmodSync(join(dir, 'ctx', 'locked'), 0o755));

const bounce = (args: string[]) => runCli(args, { cwd: dir, env, user: AS_USER });

describe('a folder that cannot be listed', () => {
  it.each([
    ['scan of the folder above it', ['scan', 'ctx'], 'cannot list folder ctx/locked (EACCES: permission denied)'],
    ['lint of the folder above it', ['lint', 'ctx/'], 'cannot list folder ctx/locked (EACCES: permission denied)'],
    ['scan of a glob that must look in it', ['scan', 'ctx/**/*.md'], 'cannot list folder ctx/locked (EACCES: permission denied)'],
    [
      '--context of the folder above it',
      ['refine', 'doc.md', '--context', 'ctx', '--dry-run', ...MOCK],
      '--context: cannot list folder ctx/locked (EACCES: permission denied)',
    ],
    [
      '--context of a glob',
      ['refine', 'doc.md', '--context', 'ctx/**', '--dry-run', ...MOCK],
      '--context: cannot list folder ctx/locked (EACCES: permission denied)',
    ],
  ])('%s: one line naming it and the fix, exit 2', async (_what, args, message) => {
    const r = await bounce(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.startsWith(`bounce: ${message}: `), r.stderr).toBe(true);
    expect(r.stderr).toMatch(DENIED);
    expect(r.stderr.split('\n')).toHaveLength(2);
  });

  it('a file inside it: "cannot read", not "no such file"', async () => {
    const scan = await bounce(['scan', 'ctx/locked/b.md']);
    expect(scan.code, scan.stderr).toBe(2);
    expect(scan.stderr).toBe(
      'bounce: cannot read ctx/locked/b.md (EACCES: permission denied): give bounce search permission on the folders on its path (chmod u+x)\n',
    );
    const context = await bounce(['refine', 'doc.md', '--context', 'ctx/locked/b.md', '--dry-run', ...MOCK]);
    expect(context.code, context.stderr).toBe(2);
    expect(context.stderr).toMatch(/^bounce: cannot read --context ctx\/locked\/b\.md \(EACCES: permission denied\)/);
  });

  it('a glob that need not look in it still scans', async () => {
    const r = await bounce(['scan', 'ctx/*.md']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('no notes (1 file scanned)\n');
  });
});

/** Whether this process may not list /proc/1/fdinfo (another user's process, or root in a container without CAP_SYS_PTRACE). */
const procDenied = ((): boolean => {
  try {
    readdirSync('/proc/1/fdinfo');
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EACCES';
  }
})();

describe.skipIf(!procDenied)('/proc/1/, whose fdinfo this user may not list (root included, here)', () => {
  it.each([
    ['scan', ['scan', '/proc/1/'], 'bounce: cannot list folder /proc/1/fdinfo (EACCES: permission denied): '],
    ['lint', ['lint', '/proc/1/'], 'bounce: cannot list folder /proc/1/fdinfo (EACCES: permission denied): '],
    [
      '--context',
      ['refine', 'doc.md', '--context', '/proc/1/', '--dry-run', ...MOCK],
      'bounce: --context: cannot list folder /proc/1/fdinfo (EACCES: permission denied): ',
    ],
  ])('%s: one line, exit 2', async (_what, args, start) => {
    const r = await runCli(args, { cwd: dir, env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.startsWith(start), r.stderr).toBe(true);
    expect(r.stderr.split('\n')).toHaveLength(2);
  });
});
