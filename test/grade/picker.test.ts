import { describe, expect, it } from 'vitest';
import type { GradableFinding } from '../../src/grade/gradable.js';
import { actionOf, GradingSession, splitKeys } from '../../src/grade/picker.js';
import type { GradeVerdict } from '../../src/vocabulary.js';

const item = (n: number): GradableFinding => ({
  id: `D/00${n}`,
  record: 'audit/dispatches/2026-05-01/D.yaml',
  pass: 1,
  role: 'reviewer',
  agent: 'mock',
  kind: 'CLARIFY',
  message: `question ${n}`,
  document: 'pass-1-reviewer-mock.md',
  lineRange: [3, 3],
  passage: [
    { line: 2, text: 'The text.' },
    { line: 3, text: `[CLARIFY] question ${n}` },
  ],
  fate: 'acted',
  next: 'pass 2 (composer mock) acted on it: the text it refers to changed',
});

describe('the picker', () => {
  it('splits a chunk into keys, an arrow as one; reads keys in either case', () => {
    expect(splitKeys('ar\u001b[Dq')).toEqual(['a', 'r', '\u001b[D', 'q']);
    expect(actionOf('A')).toEqual({ verdict: 'accepted' });
    expect(actionOf('\u001b[D')).toBe('back');
    expect(actionOf('\u0003')).toBe('quit');
    expect(actionOf('z')).toBeNull();
  });

  it('saves each verdict as given, goes back to change one, and ends after the last', () => {
    const saved: [string, GradeVerdict][] = [];
    const s = new GradingSession([item(1), item(2)], new Map([['D/002', 'rejected']]), (f, v) => saved.push([f.id, v]));
    expect(s.screen()).toContain('finding 1 of 2: CLARIFY, raised by pass 1 (reviewer mock)');
    expect(s.screen()).toContain('  > 3 | [CLARIFY] question 1');
    expect(s.screen()).toContain('    2 | The text.');
    expect(s.screen()).toContain('then: pass 2 (composer mock) acted on it');
    expect(s.press('b')).toBe('(this is the first finding)\n');
    expect(s.press('a')).toContain('finding 2 of 2');
    expect(s.screen()).toContain('verdict: rejected (given earlier)');
    expect(s.press('b')).toContain('verdict: accepted (given now)');
    s.press('s');
    expect(s.state).toBe('grading');
    s.press('r');
    expect(s.state).toBe('done');
    expect(saved).toEqual([
      ['D/001', 'accepted'],
      ['D/001', 'skipped'],
      ['D/002', 'rejected'],
    ]);
    expect(s.press('a')).toBe('');
  });

  it('quits on q, keeping what was saved; help lists the keys', () => {
    const saved: string[] = [];
    const s = new GradingSession([item(1), item(2)], new Map(), (f) => saved.push(f.id));
    expect(s.press('?')).toContain('s  skip: no verdict (left out of precision)');
    s.press('a');
    expect(s.press('q')).toBe('quit\n');
    expect(s.state).toBe('quit');
    expect(saved).toEqual(['D/001']);
  });
});
