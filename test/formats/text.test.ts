import { describe, expect, it } from 'vitest';
import { renderText, textLine } from '../../src/formats/text.js';
import { testFinding, testReport } from '../support/report.js';

describe('text', () => {
  it('one line a finding: path:line:column, the kind, the message', () => {
    const report = testReport([
      { path: 'a.md', findings: [testFinding(2, 'CONTESTED', { column: 5 })] },
      { path: 'clean.md', findings: [] },
      { path: 'b.md', findings: [testFinding(9, 'CLARIFY')] },
    ]);
    expect(renderText(report)).toBe('a.md:2:5 CONTESTED [CONTESTED] note on line 2\nb.md:9:1 CLARIFY [CLARIFY] note on line 9\n');
  });

  it('lint puts the rule id before the kind', () => {
    expect(textLine('lint', 'a.md', testFinding(1, 'CLARIFY', { ruleId: 'BP003', message: 'too vague' }))).toBe('a.md:1:1 BP003 CLARIFY too vague\n');
  });

  it('writes lines and columns as decimal numbers, as String gives them, however large', () => {
    for (const n of [0, 1, 9, 10, 11, 99, 100, 101, 109, 1000, 1001, 12_345, 99_999_999, 100_000_000, 2_147_483_647]) {
      expect(textLine('scan', 'a.md', testFinding(n, 'CLARIFY', { column: n + 1, message: 'm' }))).toBe(`a.md:${String(n)}:${String(n + 1)} CLARIFY m\n`);
    }
  });
});
