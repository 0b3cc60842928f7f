import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCodeSchema, HostErrorTypeSchema, RunErrorTypeSchema } from '../src/vocabulary.js';

const ROOT = join(import.meta.dirname, '..');

describe("run.json's error.type", () => {
  it('is one closed list holding every agent-call failure and every error code', () => {
    for (const word of [...HostErrorTypeSchema.options, ...ErrorCodeSchema.options]) expect(RunErrorTypeSchema.options).toContain(word);
    expect(new Set(RunErrorTypeSchema.options).size).toBe(RunErrorTypeSchema.options.length);
    expect(RunErrorTypeSchema.safeParse('transient').success).toBe(false);
  });

  it('has every word documented for scripts in docs/run-folder.md', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'run-folder.md'), 'utf8');
    const list = doc.slice(doc.indexOf('`error.type` is one closed list'));
    const paragraph = list.slice(0, list.indexOf('\n\n'));
    const documented = new Set([...paragraph.matchAll(/`([a-z_-]+)`/g)].map((m) => m[1]));
    expect([...RunErrorTypeSchema.options].filter((w) => !documented.has(w))).toEqual([]);
  });
});
