import { describe, expect, it } from 'vitest';
import { fingerprints, totalFindings } from '../../src/formats/finding.js';
import { testFinding, testReport } from '../support/report.js';

describe('fingerprints', () => {
  const note = { ruleId: 'CLARIFY', kind: 'CLARIFY', text: '[CLARIFY] who?' };

  it('depend on path, rule, kind and text, not on where the note stands', () => {
    const [a] = fingerprints('a.md', [note]);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(fingerprints('a.md', [{ ...note, ruleId: 'CONTESTED' }, note])[1]).toBe(a);
    expect(fingerprints('b.md', [note])[0]).not.toBe(a);
    expect(fingerprints('a.md', [{ ...note, text: '[CLARIFY] who else?' }])[0]).not.toBe(a);
  });

  it('two identical notes in a file get different fingerprints, the first the same as a lone one', () => {
    const [first, second] = fingerprints('a.md', [note, note]);
    expect(first).toBe(fingerprints('a.md', [note])[0]);
    expect(second).not.toBe(first);
  });
});

describe('totalFindings', () => {
  it('counts the findings of every file', () => {
    expect(totalFindings(testReport([]))).toBe(0);
    expect(
      totalFindings(
        testReport([
          { path: 'a', findings: [testFinding(1), testFinding(2)] },
          { path: 'b', findings: [] },
          { path: 'c', findings: [testFinding(1)] },
        ]),
      ),
    ).toBe(3);
  });
});
