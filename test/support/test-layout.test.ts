/**
 * Tests live at the path of what they test (test-layout.ts): a unit test file names an existing
 * module, and no fewer source files have a unit test than docs/architecture.md says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './cli.js';
import { moduleNamed, sourcesOf, tsFiles, unitTestCoverage } from './test-layout.js';

/** Folders whose tests drive the whole program (or the test tools), not one module: their shape is their own. */
const WHOLE_PROGRAM = ['test/integration/', 'test/e2e/', 'test/examples/', 'test/docs/', 'test/support/'];

/** Test files among the unit tests that test no one module, and what they test instead. */
const NOT_ONE_MODULE: Record<string, string> = {
  'test/cli-lazy.test.ts': 'the launcher and the bundle: bin/bounce.js, scripts/bundle.mjs',
  'test/commands/cli.test.ts': 'src/cli.ts, the commands it declares, in-process',
  'test/commands/notes-ledger.test.ts': 'the ledger of notes through refine, runs, show and diff',
  'test/formats/formats.test.ts': 'every format against its golden file, through scan and lint',
  'test/preflight/estimate.test.ts': 'the token estimate of src/preflight/preflight.ts',
  'test/store/store.test.ts': 'the run folder written by its writers together: atomic, lock, manifest, recorder',
};

describe('the layout of the tests', () => {
  it('names the module from the path, with or without an aspect', () => {
    expect(moduleNamed('test/engine/pass.test.ts')).toBe('engine/pass');
    expect(moduleNamed('test/engine/run-document.faults.test.ts')).toBe('engine/run-document');
    expect(moduleNamed('test/text-input.test.ts')).toBe('text-input');
    expect(moduleNamed('test/support/engine.ts')).toBeNull();
    expect(sourcesOf(ROOT, 'engine/pass')).toEqual(['src/engine/pass.ts']);
    expect(sourcesOf(ROOT, 'engine/no-such-module')).toEqual([]);
  });

  it('every unit test file is at the path of a module (or says what it tests instead)', () => {
    const misplaced = tsFiles(ROOT, 'test')
      .filter((f) => f.endsWith('.test.ts') && !WHOLE_PROGRAM.some((dir) => f.startsWith(dir)) && !(f in NOT_ONE_MODULE))
      .filter((f) => sourcesOf(ROOT, moduleNamed(f) ?? '').length === 0);
    expect(misplaced, 'move each to test/<path of its module>.test.ts or .<aspect>.test.ts').toEqual([]);
  });

  it('no fewer source files have a unit test than docs/architecture.md says', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const claim = /(\d+)\s+of\s+the\s+(\d+)\s+files\s+in\s+`src\/`\s+have\s+a\s+unit\s+test/.exec(doc);
    expect(claim, 'docs/architecture.md states the count').not.toBeNull();
    const { tested } = unitTestCoverage(ROOT);
    expect(tested.length).toBeGreaterThanOrEqual(Number(claim![1]));
  });
});
