import { describe, expect, it } from 'vitest';
import { escapeData, escapeProperty, renderGithub, STEP_SUMMARY_LIMIT_BYTES, stepSummary } from '../../src/formats/github.js';
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

  it("without --level a scan note takes its kind's level: CONTESTED warning, CLARIFY notice, other markers and lint the report level", () => {
    const findings = [testFinding(1), testFinding(2, 'CLARIFY'), testFinding(3, 'RISK'), testFinding(4, 'CLARIFY', { ruleId: 'open-ended' })];
    const levels = (out: string) =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ')[0]);
    expect(levels(renderGithub(testReport([{ path: 'a.md', findings }], { level: 'error', levelByKind: true })))).toEqual([
      '::warning',
      '::notice',
      '::error',
      '::error',
    ]);
    // --level given: every note at it.
    expect(levels(renderGithub(testReport([{ path: 'a.md', findings }], { level: 'error' })))).toEqual(['::error', '::error', '::error', '::error']);
  });
});

/** `n` findings of `kind` on lines 1..n. */
const many = (n: number, kind = 'CONTESTED') => Array.from({ length: n }, (_, i) => testFinding(i + 1, kind));
const lines = (out: string) => out.split('\n').filter(Boolean);

describe("github annotations fit GitHub's limits", () => {
  it('at most 10 of a level, then one notice counting the rest by level and naming the full list (the notice takes a notice slot)', () => {
    const report = testReport([{ path: 'a.md', findings: [...many(12), ...many(11, 'CLARIFY')] }], { levelByKind: true });
    const out = lines(renderGithub(report, { fullList: ['the job summary'] }));
    expect(out.filter((l) => l.startsWith('::warning ')).length).toBe(10);
    expect(out.filter((l) => l.startsWith('::notice file=')).length).toBe(9);
    expect(out.at(-1)).toBe(
      '::notice title=bounce scan::4 more notes not shown as annotations (2 warning, 2 notice; GitHub shows 10 per level per step): every note is listed in the job summary',
    );
    expect(out.length).toBe(20);
  });

  it('exactly 10 of each level: all shown, no notice', () => {
    const out = lines(renderGithub(testReport([{ path: 'a.md', findings: [...many(10), ...many(10, 'CLARIFY')] }], { levelByKind: true })));
    expect(out.length).toBe(20);
    expect(out.some((l) => l.includes('more notes'))).toBe(false);
  });

  it('--max-annotations sets the cap; with no full list the notice says which command lists them all', () => {
    const out = lines(renderGithub(testReport([{ path: 'a.md', findings: many(5) }], { command: 'lint' }), { max: 2 }));
    expect(out.length).toBe(3);
    expect(out[2]).toBe(
      '::notice title=bounce lint::3 more problems not shown as annotations (3 warning; GitHub shows 2 per level per step): bounce lint --format text lists every problem',
    );
  });

  it('notes on changed lines come first, so they are the ones shown', () => {
    const report = testReport([
      { path: 'a.md', findings: many(15) },
      { path: 'b.md', findings: many(3) },
    ]);
    const changed = (path: string, line: number) => (path === 'a.md' && line > 12) || path === 'b.md';
    const out = lines(renderGithub(report, { changed }));
    const where = out.slice(0, 10).map((l) => /file=([^,]+),line=(\d+)/.exec(l)!.slice(1).join(':'));
    expect(where).toEqual(['a.md:13', 'a.md:14', 'a.md:15', 'b.md:1', 'b.md:2', 'b.md:3', 'a.md:1', 'a.md:2', 'a.md:3', 'a.md:4']);
    expect(out[10]).toMatch(/^::notice title=bounce scan::8 more notes not shown/);
  });
});

describe('stepSummary', () => {
  it('says nothing was found, with the count of files', () => {
    expect(stepSummary(testReport([{ path: 'a.md', findings: [] }])).text).toBe('### bounce scan: nothing found (1 file scanned)\n\n');
  });

  it('lists every finding in a table whose cells cannot break the table or carry HTML', () => {
    const hostile = testFinding(5, 'CONTESTED', { message: 'a | b\n<b>x</b> `c` \\' });
    const out = stepSummary(
      testReport([
        { path: 'a.md', findings: [hostile] },
        { path: 'b.md', findings: [] },
      ]),
    ).text;
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
    const out = stepSummary(
      testReport([{ path: 'a.md', findings: [testFinding(1, 'CLARIFY', { ruleId: 'BP002' }), testFinding(2)] }], { command: 'lint' }),
    ).text;
    expect(out).toContain('### bounce lint: 2 problems (1 file scanned)');
    expect(out).toContain('| file | line | kind | rule | text |\n|---|---|---|---|---|\n| a.md | 1 | CLARIFY | BP002 |');
  });
});

describe("the job summary stays under GitHub's 1 MiB limit", () => {
  it('with many notes, rows stop before the byte budget (UTF-8 bytes, not characters) and a line counts the rest', () => {
    // Each message is 300 characters of a 3-byte character: 900 bytes a row, 3000 rows well over 1 MiB.
    const findings = Array.from({ length: 3000 }, (_, i) => testFinding(i + 1, 'CONTESTED', { message: `[CONTESTED] ${'€'.repeat(300)}` }));
    const report = testReport([{ path: 'a.md', findings }]);
    const { text, omitted } = stepSummary(report);
    const bytes = Buffer.byteLength(text);
    expect(bytes).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT_BYTES - 64 * 1024);
    expect(bytes).toBeGreaterThan(STEP_SUMMARY_LIMIT_BYTES - 64 * 1024 - 1000);
    const rows = text.split('\n').filter((l) => l.startsWith('| a.md |')).length;
    expect(rows + omitted).toBe(3000);
    expect(omitted).toBeGreaterThan(1800);
    expect(text.endsWith(`\n${omitted} more notes left out: GitHub drops a job summary over 1 MiB. bounce scan --format text lists them all.\n\n`)).toBe(true);
  });

  it('a smaller budget (what the step already wrote taken off) holds fewer rows; every row fits when there is room', () => {
    const report = testReport([{ path: 'a.md', findings: many(50) }]);
    const small = stepSummary(report, 1500, 'bounce.sarif');
    expect(Buffer.byteLength(small.text)).toBeLessThanOrEqual(1500);
    expect(small.omitted).toBeGreaterThan(0);
    expect(small.text).toContain('bounce.sarif lists them all.');
    expect(stepSummary(report).omitted).toBe(0);
  });
});
