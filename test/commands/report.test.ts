/** `bounce report`: the page is written under the run's lock, never while a runner works in the folder. */
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';
import { ownerLock } from '../support/lock.js';

describe('bounce report', () => {
  it('is refused while the run is locked by a live process (exit 2), and writes report.html once it is free, leaving no lock', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'doc.md'), '# Notes\n\nThe cache is cleared on deploy.\n');
    const made = await runMain(['refine', 'doc.md', '--reviewer', 'mock', '--composer', 'mock', '--json'], { cwd: dir, env: cleanEnv() });
    expect(made.code, made.stderr).toBe(0);
    const runDir = JSON.parse(made.stdout).run_dir as string;
    const lock = join(runDir, 'lock');
    writeFileSync(lock, `${ownerLock(process.pid)}\n`);
    const locked = await runMain(['report', runDir], { cwd: dir, env: cleanEnv() });
    expect(locked.code).toBe(2);
    expect(locked.stderr).toContain(`the run is in use by process ${process.pid}`);
    expect(existsSync(join(runDir, 'report.html'))).toBe(false);
    rmSync(lock);
    const free = await runMain(['report', runDir], { cwd: dir, env: cleanEnv() });
    expect(free.code, free.stderr).toBe(0);
    expect(free.stdout.trim()).toBe(join(runDir, 'report.html'));
    expect(readdirSync(runDir).filter((n) => n === 'lock' || n.startsWith('lock.'))).toEqual([]);
    const audit = await runMain(['audit', runDir], { cwd: dir, env: cleanEnv() });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
  });
});
