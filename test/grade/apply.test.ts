import { describe, expect, it } from 'vitest';
import { nextGrading } from '../../src/grade/apply.js';
import { type DispatchRecord, type Grade, GradeSchema, MAX_REASON_CHARS } from '../../src/store/record-schema.js';
import type { GradeVerdict } from '../../src/vocabulary.js';

const T0 = '2026-05-01T10:00:00.000Z';
const AT = new Date('2026-05-02T10:00:00.000Z');
/** Just what nextGrading reads of a record: its findings and its outcome. */
function rec(grade: Grade | null): DispatchRecord {
  return {
    response: { findings: [{ id: 'D/001' }, { id: 'D/002' }, { id: 'D/003' }] },
    outcome: { status: 'completed', reason: null, graded_at: grade ? T0 : null, grade },
  } as unknown as DispatchRecord;
}
const v = (entries: Record<string, GradeVerdict>) => new Map(Object.entries(entries));

describe('nextGrading', () => {
  it('a first grade holds the verdicts in the order of the findings; ids of other records are ignored', () => {
    expect(nextGrading(rec(null), v({ 'D/002': 'rejected', 'D/001': 'accepted', 'X/001': 'accepted' }), 'human:ana', AT, 'auto')).toEqual({
      graded_at: AT.toISOString(),
      grade: {
        grader: 'human:ana',
        verdicts: [
          { finding: 'D/001', verdict: 'accepted' },
          { finding: 'D/002', verdict: 'rejected' },
        ],
        history: [],
      },
    });
    expect(nextGrading(rec(null), v({ 'X/001': 'accepted' }), 'human:ana', AT, 'auto')).toBeNull();
  });

  const ana: Grade = { grader: 'human:ana', verdicts: [{ finding: 'D/001', verdict: 'accepted' }], history: [] };

  it('auto: the same grader adding verdicts goes on with its grade; the same verdicts again change nothing', () => {
    expect(nextGrading(rec(ana), v({ 'D/003': 'skipped' }), 'human:ana', AT, 'auto')?.grade).toEqual({
      ...ana,
      verdicts: [...ana.verdicts, { finding: 'D/003', verdict: 'skipped' }],
    });
    expect(nextGrading(rec(ana), v({ 'D/001': 'accepted' }), 'human:ana', AT, 'auto')).toBeNull();
  });

  it('auto: a changed verdict, or another grader, starts a new grade and keeps the old one in history', () => {
    const changed = nextGrading(rec(ana), v({ 'D/001': 'rejected', 'D/002': 'accepted' }), 'human:ana', AT, 'auto')!.grade!;
    expect(changed.verdicts).toEqual([
      { finding: 'D/001', verdict: 'rejected' },
      { finding: 'D/002', verdict: 'accepted' },
    ]);
    expect(changed.history).toEqual([{ grader: 'human:ana', graded_at: T0, verdicts: ana.verdicts }]);
    const other = nextGrading(rec(ana), v({ 'D/002': 'rejected' }), 'human:bo', AT, 'auto')!.grade!;
    expect(other).toEqual({ grader: 'human:bo', verdicts: [{ finding: 'D/002', verdict: 'rejected' }], history: changed.history });
  });

  it('continue changes a verdict in place; fresh always starts anew', () => {
    expect(nextGrading(rec(ana), v({ 'D/001': 'rejected' }), 'human:ana', AT, 'continue')!.grade).toEqual({
      ...ana,
      verdicts: [{ finding: 'D/001', verdict: 'rejected' }],
    });
    const fresh = nextGrading(rec(ana), v({ 'D/001': 'accepted' }), 'human:ana', AT, 'fresh')!.grade!;
    expect(fresh.verdicts).toEqual(ana.verdicts);
    expect(fresh.history).toHaveLength(1);
  });

  it("keeps each verdict's reason, one line and at most MAX_REASON_CHARS; a new reason for the same verdict is written in place", () => {
    const long = `${'word '.repeat(200)}end`;
    const first = nextGrading(
      rec(null),
      v({ 'D/001': 'accepted', 'D/002': 'rejected' }),
      'agent:claude',
      AT,
      'auto',
      new Map([
        ['D/001', ' a real\n gap '],
        ['D/002', long],
      ]),
    );
    const [a, b] = first!.grade!.verdicts;
    expect(a).toEqual({ finding: 'D/001', verdict: 'accepted', reason: 'a real gap' });
    expect(b!.reason!.length).toBe(MAX_REASON_CHARS);
    expect(b!.reason!.endsWith('…')).toBe(true);
    expect(GradeSchema.safeParse(first!.grade).success).toBe(true);
    const graded = rec(first!.grade);
    // The same verdicts and reasons change nothing; a new reason only is the same grade, in place.
    expect(nextGrading(graded, v({ 'D/001': 'accepted' }), 'agent:claude', AT, 'auto', new Map([['D/001', 'a real gap']]))).toBeNull();
    const again = nextGrading(graded, v({ 'D/001': 'accepted' }), 'agent:claude', AT, 'auto', new Map([['D/001', 'still a gap']]));
    expect(again!.grade!.history).toEqual([]);
    expect(again!.grade!.verdicts[0]).toEqual({ finding: 'D/001', verdict: 'accepted', reason: 'still a gap' });
    // No reason given: none kept.
    expect(nextGrading(rec(null), v({ 'D/001': 'accepted' }), 'agent:claude', AT, 'auto', new Map([['D/001', '  ']]))!.grade!.verdicts[0]).toEqual({
      finding: 'D/001',
      verdict: 'accepted',
    });
  });
});
