import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const MOCKS = ['--reviewer', 'mock', '--composer', 'mock'];
let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'doc.md'), '# Migration\n\nWe move the database on Saturday night.\n');
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'lint.sh'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(dir, 'tools', 'lint.sh'), 0o755);
});

const dryRun = async (args: string[]) => {
  const r = await runMain(['refine', 'doc.md', ...MOCKS, '--dry-run', '--json', ...args], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('refine --check-cmd and config checks', () => {
  it('the plan takes config checks; --check-cmd replaces them; a plan without checks names none', async () => {
    expect(await dryRun([])).not.toHaveProperty('checks');
    writeFileSync(join(dir, 'bounce.config.yaml'), 'checks:\n  - ./tools/lint.sh {file}\n  - command: ./tools/lint.sh --strict {file}\n    timeout_s: 5\n');
    expect((await dryRun([])).checks).toEqual([
      { command: './tools/lint.sh {file}', timeout_s: 60 },
      { command: './tools/lint.sh --strict {file}', timeout_s: 5 },
    ]);
    expect((await dryRun(['--check-cmd', './tools/lint.sh -q {file}'])).checks).toEqual([{ command: './tools/lint.sh -q {file}', timeout_s: 60 }]);
  });

  it('a check that cannot run is refused before anything is written, in one line, exit 2', async () => {
    const r = await runMain(['refine', 'doc.md', ...MOCKS, '--check-cmd', './tools/missing.sh {file}'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `bounce: --check-cmd: \`./tools/missing.sh {file}\`: ./tools/missing.sh not found: check the path (relative to ${dir}) or make it executable\n`,
    );
    writeFileSync(join(dir, 'bounce.config.yaml'), 'checks:\n  - command: ./tools/lint.sh {file}\n    timeout_s: 0\n');
    const config = await runMain(['refine', 'doc.md', ...MOCKS], { cwd: dir });
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('checks');
  });
});
