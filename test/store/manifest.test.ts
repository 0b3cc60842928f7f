import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunManifestSchema } from '../../src/store/manifest.js';
import { makeFakeRun, type FakeRun } from '../support/fake-run.js';

let tmp: string;
let run: FakeRun;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'bounce-extensions-'));
  run = makeFakeRun(join(tmp, 'runs'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const raw = (): Record<string, unknown> => JSON.parse(readFileSync(join(run.dir, 'run.json'), 'utf8'));
const extension = {
  at: '2026-05-15T00:00:00.000Z',
  status: 'not-converged',
  after_pass: 1,
  passes: { from: 2, to: 4 },
  agents: { composer: { from: 'mock:s.yaml', to: 'mock' } },
  policy_version: '0123456789abcdef',
};

describe('run.json extensions', () => {
  it('are absent in a run never extended', () => {
    expect(RunManifestSchema.parse(raw()).extensions).toBeUndefined();
  });

  it('an extension as resume records it parses, and keeps every field', () => {
    expect(RunManifestSchema.parse({ ...raw(), extensions: [extension] }).extensions).toEqual([extension]);
  });

  it('are strict: an unknown key, an unknown role or a pass budget of 0 is refused', () => {
    for (const bad of [
      { ...extension, note: 'x' },
      { ...extension, agents: { editor: { from: 'a', to: 'b' } } },
      { ...extension, passes: { from: 2, to: 0 } },
    ])
      expect(RunManifestSchema.safeParse({ ...raw(), extensions: [bad] }).success).toBe(false);
  });
});
