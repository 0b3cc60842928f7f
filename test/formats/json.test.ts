import { describe, expect, it } from 'vitest';
import { renderJson } from '../../src/formats/json.js';
import { testFinding, testReport } from '../support/report.js';

describe('json', () => {
  it('scan: every file with its notes (a clean one with none), the total and the exit code', () => {
    const note = testFinding(3, 'CLARIFY', { refersTo: { line: 2, text: 'Rollback is manual.' } });
    const out = JSON.parse(
      renderJson(
        testReport([
          { path: 'a.md', findings: [note] },
          { path: 'clean.md', findings: [] },
        ]),
      ),
    );
    expect(out).toEqual({
      files: [
        {
          path: 'a.md',
          notes: [
            { kind: 'CLARIFY', line: 3, column: 1, text: '[CLARIFY] note on line 3', canonical: true, refersTo: { line: 2, text: 'Rollback is manual.' } },
          ],
        },
        { path: 'clean.md', notes: [] },
      ],
      total: 1,
      exitCode: 1,
    });
  });

  it('lint: problems, each with its rule and message ahead of the note', () => {
    const report = testReport([{ path: 'a.md', findings: [testFinding(1, 'CLARIFY', { ruleId: 'BP001', message: 'no options' })] }], { command: 'lint' });
    const out = JSON.parse(renderJson(report));
    expect(out.files[0].problems[0]).toMatchObject({ rule: 'BP001', message: 'no options', kind: 'CLARIFY', line: 1 });
    expect(out.files[0].notes).toBeUndefined();
  });
});
