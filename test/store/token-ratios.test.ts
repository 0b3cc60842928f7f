import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listRecordFiles, readRecord, renderRecord } from '../../src/store/dispatch-record.js';
import { charsPerTokenByModel, MAX_RATIO, MIN_RATIO, MIN_RECORDS } from '../../src/store/token-ratios.js';
import { makeFakeRun } from '../support/fake-run.js';

let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A runs folder of `runs` fake runs whose answered records say the provider counted `perChar` tokens a prompt character, for `model`. */
function runsFolder(runs: number, over: { perChar: number; reported?: boolean; model?: string; records?: number }): string {
  root = mkdtempSync(join(tmpdir(), 'bounce-ratios-'));
  let marked = 0;
  for (let i = 0; i < runs; i++) {
    const run = makeFakeRun(root, { runId: `doc-${i}`, evidence: 'live' });
    for (const rel of listRecordFiles(run.dir)) {
      const path = join(run.dir, rel);
      const r = readRecord(path);
      if (!r.response || marked >= (over.records ?? Number.POSITIVE_INFINITY)) continue;
      marked++;
      const prompt = r.request.context.files.find((f) => f.purpose === 'prompt')!;
      const chars = readFileSync(join(run.dir, prompt.path), 'utf8').length;
      r.response.metadata.usage_provider_reported = over.reported ?? true;
      r.response.metadata.input_tokens = Math.round(chars * over.perChar);
      r.response.metadata.model = over.model ?? 'model-x';
      writeFileSync(path, renderRecord(r));
    }
  }
  return root;
}

describe('charsPerTokenByModel', () => {
  it("measures a model's characters a token from the prompts and the provider-reported input tokens", () => {
    const ratios = charsPerTokenByModel(runsFolder(2, { perChar: 0.5 }));
    expect(Object.keys(ratios)).toEqual(['model-x']);
    expect(ratios['model-x']).toBeCloseTo(2, 2);
  });

  it('uses no record whose usage the provider did not report', () => {
    expect(charsPerTokenByModel(runsFolder(2, { perChar: 0.5, reported: false }))).toEqual({});
  });

  it('needs at least three records of a model', () => {
    expect(charsPerTokenByModel(runsFolder(2, { perChar: 0.5, records: MIN_RECORDS - 1 }))).toEqual({});
    rmSync(root, { recursive: true, force: true });
    expect(charsPerTokenByModel(runsFolder(2, { perChar: 0.5, records: MIN_RECORDS }))['model-x']).toBeCloseTo(2, 2);
  });

  it('keeps the ratio between its bounds', () => {
    expect(charsPerTokenByModel(runsFolder(2, { perChar: 0.01 }))['model-x']).toBe(MAX_RATIO);
    rmSync(root, { recursive: true, force: true });
    expect(charsPerTokenByModel(runsFolder(2, { perChar: 3 }))['model-x']).toBe(MIN_RATIO);
  });

  it('is empty for a runs folder that does not exist', () => {
    root = mkdtempSync(join(tmpdir(), 'bounce-ratios-'));
    expect(charsPerTokenByModel(join(root, 'nowhere'))).toEqual({});
  });
});
