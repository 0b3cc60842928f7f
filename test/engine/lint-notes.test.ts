import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { lintAdded, lintLines, lintRepairReason } from '../../src/engine/lint-notes.js';
import { scanNotes } from '../../src/protocol/scanner.js';
import { testPlan } from '../support/engine.js';

const TEXT =
  '# Plan\n\nShip on Monday.\n[CONTESTED] This is wrong.\n\nRollback is manual.\n[CLARIFY] Who runs the rollback: (A) on-call, (B) the release owner?\n';

describe('lint of the notes a pass adds', () => {
  it('off finds nothing; otherwise each added note that breaks a rule, by line and rule', async () => {
    const added = scanNotes(TEXT, { syntax: 'markdown' });
    expect(lintAdded(await testPlan(tmpdir(), { lint: 'off' }), TEXT, added)).toEqual([]);
    expect(lintAdded(await testPlan(tmpdir(), { lint: 'warn' }), TEXT, added)).toEqual([{ line: 4, rule: 'dissent-only' }]);
    expect(lintAdded(await testPlan(tmpdir(), { lint: 'repair' }), TEXT, [])).toEqual([]);
  });

  it('lines group the rules of a note, five notes at most and then a count', () => {
    expect(
      lintLines([
        { line: 4, rule: 'dissent-only' },
        { line: 9, rule: 'open-ended' },
        { line: 9, rule: 'misplaced' },
      ]),
    ).toBe('line 4: dissent-only; line 9: open-ended, misplaced');
    const seven = Array.from({ length: 7 }, (_, i) => ({ line: i + 1, rule: 'empty-note' }));
    expect(lintLines(seven)).toBe('line 1: empty-note; line 2: empty-note; line 3: empty-note; line 4: empty-note; line 5: empty-note; and 2 more');
  });

  it("the repair reason counts notes, names each rule's ask, and quotes no note", () => {
    const reason = lintRepairReason([{ line: 4, rule: 'dissent-only' }]);
    expect(reason).toMatch(/^1 note added by this pass breaks the protocol's note rules \(line 4: dissent-only\)\. dissent-only: /);
    expect(reason).toMatch(/Correct those notes and change nothing else\.$/);
    expect(reason).not.toContain('This is wrong');
    expect(
      lintRepairReason([
        { line: 1, rule: 'empty-note' },
        { line: 2, rule: 'empty-note' },
      ]),
    ).toMatch(/^2 notes added by this pass break the /);
  });
});
