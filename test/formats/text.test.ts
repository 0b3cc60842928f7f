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
});
