/** Start-up: `bounce --version` and `bounce scan` load neither execa nor an adapter module. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/adapter-process.js';

const dir = mkdtempSync(join(tmpdir(), 'bounce-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The module URLs `bounce <args>` resolved. */
function modulesLoadedBy(args: string[]): string[] {
  const trace = join(dir, `${args[0]}.trace`);
  // scan exits 1 when it finds notes: the exit code is not what is tested here.
  spawnSync(process.execPath, ['--import', join(ROOT, 'test/fixtures/trace/register.mjs'), join(ROOT, 'bin/bounce.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', TRACE_FILE: trace },
    cwd: ROOT,
  });
  return readFileSync(trace, 'utf8').trim().split('\n');
}

describe('start-up', () => {
  for (const args of [['--version'], ['scan', 'test/fixtures/scan/retry-policy.md']]) {
    it(`bounce ${args[0]} loads no execa and no adapter module`, () => {
      const loaded = modulesLoadedBy(args);
      expect(loaded.some((url) => url.includes('/dist/src/cli.js'))).toBe(true);
      expect(loaded.filter((url) => /\/execa\/|\/dist\/adapters\//.test(url))).toEqual([]);
    });
  }
});
