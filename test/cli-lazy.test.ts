import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, FIXTURES, tempDir } from './support/cli.js';

/** The package modules (dist/ files and dependencies) that `bounce <args>` loads, as paths. */
function modulesLoadedBy(args: string[]): string[] {
  const dir = tempDir();
  const record = join(dir, 'loads.txt');
  writeFileSync(record, '');
  const r = spawnSync(process.execPath, ['--import', join(FIXTURES, 'startup/record-loads.mjs'), BIN, ...args], {
    cwd: dir,
    env: cleanEnv({ RECORD_LOADS: record }),
    encoding: 'utf8',
  });
  expect(r.stderr).not.toMatch(/warning/i);
  return readFileSync(record, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => url.replace(/^.*?\/(dist|node_modules)\//, '$1/'));
}

// Start-up cost is set by what loads, so these say what must not load; speed is in npm run bench.
describe('commands load their modules lazily', () => {
  it('--version and --help load no command, no adapter code and no subprocess library', () => {
    for (const args of [['--version'], ['--help'], ['refine', '--help']]) {
      const loaded = modulesLoadedBy(args);
      expect(loaded).toContain('dist/src/cli.js');
      expect(
        loaded.filter((m) => /dist\/src\/(commands|runner|adapters|store|config)\/|node_modules\/(execa|zod|yaml)\//.test(m)),
        args.join(' '),
      ).toEqual([]);
    }
  });

  it('scan loads the scanner and the config, not the run engine', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'doc.md'), '# Clean\n');
    const loaded = modulesLoadedBy(['scan', join(dir, 'doc.md')]);
    expect(loaded).toContain('dist/src/commands/scan.js');
    expect(loaded.filter((m) => /dist\/src\/(commands\/(?!scan)|runner\/(?!reply)|store\/|audit\/)|node_modules\/execa\//.test(m))).toEqual([]);
  });
});
