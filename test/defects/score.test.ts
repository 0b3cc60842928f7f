import { describe, expect, it } from 'vitest';
import type { Defect } from '../../src/defects/key.js';
import { defectsNear, NEAR_LINES, rates, type ScoredNote, scoreDocument } from '../../src/defects/score.js';

const defect = (id: string, line: number, fixed_when: Defect['fixed_when'] = { absent: `bad-${id}` }): Defect => ({
  id,
  line,
  kind: 'wrong-number',
  description: id,
  fixed_when,
});
const note = (line: number, extra: Partial<ScoredNote> = {}): ScoredNote => ({ line, lintProblems: 0, fate: 'acted', ...extra });

describe('scoring one document', () => {
  it('counts a defect found when a note is within 2 lines of it, either side, and not at 3', () => {
    expect(NEAR_LINES).toBe(2);
    const defects = [defect('a', 10)];
    for (const line of [8, 9, 10, 11, 12]) expect(scoreDocument(defects, [note(line)], null).found).toEqual(['a']);
    for (const line of [7, 13]) expect(scoreDocument(defects, [note(line)], null).found).toEqual([]);
    expect(defectsNear(12, [defect('a', 10), defect('b', 14), defect('c', 15)]).map((d) => d.id)).toEqual(['a', 'b']);
  });

  it('counts a defect fixed only when its fixed_when holds in the final document, and none without one', () => {
    const defects = [defect('a', 1), defect('b', 5, { present: 'per key' })];
    expect(scoreDocument(defects, [], 'bad-a is here; limits apply per key').fixed).toEqual(['b']);
    expect(scoreDocument(defects, [], 'all good, per key').fixed).toEqual(['a', 'b']);
    expect(scoreDocument(defects, [], null).fixed).toEqual([]);
  });

  it('counts notes near a defect, stray notes, lint failures and fates', () => {
    const s = scoreDocument(
      [defect('a', 10), defect('b', 30)],
      [note(11), note(12, { lintProblems: 2 }), note(20, { fate: 'dismissed' }), note(40, { fate: 'open' })],
      null,
    );
    expect(s).toMatchObject({ defects: 2, found: ['a'], notes: 4, near: 2, stray: 2, lintFailures: 1, acted: 2, dismissed: 1 });
  });
});

describe('rates over documents', () => {
  it('takes recall, fix rate and precision over every document, as fractions from 0 to 1', () => {
    const one = scoreDocument([defect('a', 10), defect('b', 30)], [note(10), note(50, { fate: 'dismissed' })], 'ok');
    const two = scoreDocument([defect('c', 5)], [], 'bad-c');
    expect(rates([one, two])).toEqual({
      defects: 3,
      found: 1,
      fixed: 2,
      notes: 2,
      stray: 1,
      lint_failures: 0,
      recall: 1 / 3,
      fix_rate: 2 / 3,
      precision: 1 / 2,
      dismissal_rate: 1 / 2,
    });
  });

  it('gives null, not zero, for a rate with nothing to divide by', () => {
    const r = rates([scoreDocument([defect('a', 1)], [note(1, { fate: 'open' })], null)]);
    expect(r).toMatchObject({ recall: 1, precision: 1, dismissal_rate: null });
    expect(rates([])).toMatchObject({ recall: null, fix_rate: null, precision: null });
  });
});
