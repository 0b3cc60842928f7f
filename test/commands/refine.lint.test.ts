import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli.js';
import { unbind } from '../support/records.js';
import { runMain, runMainInterrupted } from '../support/run-main.js';
import { pass2PendingIn } from '../support/run-folders.js';

const DOC = '# Migration\n\nWe move the database on Saturday night.\n';
const MOCKS = ['--reviewer', 'mock', '--composer', 'mock'];

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'doc.md'), DOC);
});

const lintOf = async (args: string[]): Promise<string> => {
  const r = await runMain(['refine', 'doc.md', ...MOCKS, '--dry-run', '--json', ...args], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).lint;
};

describe('refine --lint and config lint', () => {
  it('defaults to off; config lint sets it; --lint overrides the config', async () => {
    expect(await lintOf([])).toBe('off');
    writeFileSync(join(dir, 'bounce.config.yaml'), 'lint: warn\n');
    expect(await lintOf([])).toBe('warn');
    expect(await lintOf(['--lint', 'repair'])).toBe('repair');
  });

  it('an unknown mode is a usage error, as a flag and in the config', async () => {
    const flag = await runMain(['refine', 'doc.md', ...MOCKS, '--lint', 'strict'], { cwd: dir });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--lint.*strict/);
    writeFileSync(join(dir, 'bounce.config.yaml'), 'lint: strict\n');
    const config = await runMain(['refine', 'doc.md', ...MOCKS], { cwd: dir });
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('lint:');
  });

  it('warn prints a progress line naming the note by line and rule', async () => {
    writeFileSync(
      join(dir, 'r.yaml'),
      'steps:\n  "1": "# Migration\\n\\nWe move the database on Saturday night.\\n[CONTESTED] Saturday is a bad night for this.\\n"\n',
    );
    const r = await runMain(['refine', 'doc.md', '--reviewer', 'mock:r.yaml', '--composer', 'mock', '--lint', 'warn'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('pass 1: warning: 1 note added by mock:r.yaml breaks lint rules (line 4: dissent-only); see docs/lint.md');
  });

  const runDir = (): string | null => {
    let names: string[] = [];
    try {
      names = readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.'));
    } catch {
      // No runs folder yet.
    }
    return names[0] ? join(dir, 'runs', names[0]) : null;
  };
  const manifest = () => JSON.parse(readFileSync(join(runDir() as string, 'run.json'), 'utf8'));
  const pass2Pending = (): boolean => pass2PendingIn(dir);
  /** A run interrupted (in-process Ctrl-C) while its pass 2 hangs. */
  const interrupted = async (extra: string[]): Promise<void> => {
    writeFileSync(join(dir, 's.yaml'), 'steps:\n  "2": { action: hang }\n');
    const args = ['refine', 'doc.md', '--reviewer', 'mock', '--composer', 'mock:s.yaml', ...extra];
    const r = await runMainInterrupted(args, { cwd: dir }, pass2Pending, 'pass 2');
    expect(r.code, r.stderr).toBe(130);
    writeFileSync(join(dir, 's.yaml'), 'steps: {}\n');
  };

  it('resume keeps the lint mode the run was made with, whatever the config says now', async () => {
    await interrupted(['--lint', 'warn']);
    writeFileSync(join(dir, 'bounce.config.yaml'), 'lint: off\n');
    const resumed = await runMain(['resume', 'latest'], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(manifest().policy.lint).toBe('warn');
    expect(manifest().pass_records.at(-1).lint).toEqual([]);
  });

  it('a run recorded before lint existed (no policy.lint) resumes, with lint off', async () => {
    await interrupted([]);
    // A run of that bounce bound nothing either: its run.json is trusted as it stands.
    unbind(runDir() as string);
    const m = manifest();
    delete m.policy.lint;
    writeFileSync(join(runDir() as string, 'run.json'), JSON.stringify(m, null, 2));
    const resumed = await runMain(['resume', 'latest'], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    // The recorded policy is kept as it was; the resumed pass ran with lint off (no lint field).
    expect(manifest().policy).not.toHaveProperty('lint');
    expect(manifest().status).toBe('converged');
    expect(manifest().pass_records.at(-1)).not.toHaveProperty('lint');
  });
});
