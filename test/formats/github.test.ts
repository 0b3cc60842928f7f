import { describe, expect, it } from 'vitest';
import { escapeData, escapeProperty, renderGithub, stepSummary } from '../../src/formats/github.js';
import { testFinding, testReport } from '../support/report.js';

describe('github workflow commands', () => {
  it('data escapes % CR LF; a property also escapes : and ,', () => {
    expect(escapeData('50% a\r\nb')).toBe('50%25 a%0D%0Ab');
    expect(escapeProperty('a,b:c%')).toBe('a%2Cb%3Ac%25');
  });

  it('one annotation a finding, at the report level, titled by the kind for scan and by rule and kind for lint', () => {
    const files = [{ path: 'docs/a.md', findings: [testFinding(3), testFinding(9, 'CLARIFY', { column: 4 })] }];
    expect(renderGithub(testReport(files))).toBe(
      '::warning file=docs/a.md,line=3,col=1,title=CONTESTED::[CONTESTED] note on line 3\n' +
        '::warning file=docs/a.md,line=9,col=4,title=CLARIFY::[CLARIFY] note on line 9\n',
    );
    const lint = testReport([{ path: 'a.md', findings: [testFinding(2, 'CLARIFY', { ruleId: 'BP001' })] }], { command: 'lint', level: 'error' });
    expect(renderGithub(lint)).toBe('::error file=a.md,line=2,col=1,title=BP001 (CLARIFY)::[CLARIFY] note on line 2\n');
  });

  it('a clean report prints no annotation', () => {
    expect(renderGithub(testReport([{ path: 'a.md', findings: [] }]))).toBe('');
  });
});

describe('stepSummary', () => {
  it('says nothing was found, with the count of files', () => {
    expect(stepSummary(testReport([{ path: 'a.md', findings: [] }]))).toBe('### bounce scan: nothing found (1 file scanned)\n\n');
  });

  it('lists every finding in a table whose cells cannot break the table or carry HTML', () => {
    const hostile = testFinding(5, 'CONTESTED', { message: 'a | b\n<b>x</b> `c` \\' });
    const out = stepSummary(
      testReport([
        { path: 'a.md', findings: [hostile] },
        { path: 'b.md', findings: [] },
      ]),
    );
    expect(out.split('\n')).toEqual([
      '### bounce scan: 1 note (2 files scanned)',
      '',
      '| file | line | kind | text |',
      '|---|---|---|---|',
      '| a.md | 5 | CONTESTED | a \\| b &lt;b&gt;x&lt;/b&gt; \\`c\\` \\\\ |',
      '',
      '',
    ]);
  });

  it('lint adds a rule column and counts problems', () => {
    const out = stepSummary(testReport([{ path: 'a.md', findings: [testFinding(1, 'CLARIFY', { ruleId: 'BP002' }), testFinding(2)] }], { command: 'lint' }));
    expect(out).toContain('### bounce lint: 2 problems (1 file scanned)');
    expect(out).toContain('| file | line | kind | rule | text |\n|---|---|---|---|---|\n| a.md | 1 | CLARIFY | BP002 |');
  });
});
