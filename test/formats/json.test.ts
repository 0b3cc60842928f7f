import { describe, expect, it } from 'vitest';
import { JsonReport, renderJson } from '../../src/formats/json.js';
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

  it('writes, a piece at a time, the bytes JSON.stringify gives for the whole report', () => {
    const tricky = testFinding(7, 'CLARIFY', {
      text: 'quote " back\\slash \n line \u2028 sep \ud800 lone, tab\t ünï 🙂',
      refersTo: { line: 6, text: '</script> & "x"' },
      canonical: false,
    });
    const reports = [
      testReport([]),
      testReport([{ path: 'clean.md', findings: [] }]),
      testReport([
        { path: 'a "b".md', findings: [testFinding(1), tricky] },
        { path: 'clean.md', findings: [] },
        { path: 'c.md', findings: [testFinding(2, 'CONTESTED')] },
      ]),
      testReport([{ path: 'a.md', findings: [testFinding(1, 'CLARIFY', { ruleId: 'BP001', message: 'no options' }), tricky] }], { command: 'lint' }),
    ];
    for (const report of reports) {
      const key = report.command === 'scan' ? 'notes' : 'problems';
      const note = (n: ReturnType<typeof testFinding>) => ({
        kind: n.kind,
        line: n.line,
        column: n.column,
        text: n.text,
        canonical: n.canonical,
        refersTo: n.refersTo,
      });
      const whole = {
        files: report.files.map((f) => ({
          path: f.path,
          [key]: f.findings.map((n) => (report.command === 'scan' ? note(n) : { rule: n.ruleId, message: n.message, ...note(n) })),
        })),
        total: report.files.reduce((sum, f) => sum + f.findings.length, 0),
        exitCode: report.exitCode,
      };
      expect(renderJson(report)).toBe(`${JSON.stringify(whole, null, 2)}\n`);
    }
  });

  it('hands each piece to its writer as soon as it is made', () => {
    const pieces: string[] = [];
    const json = new JsonReport('scan', (s) => pieces.push(s));
    json.file('a.md');
    json.item({ kind: 'CLARIFY' });
    const before = pieces.length;
    json.item({ kind: 'CONTESTED' });
    expect(pieces.length).toBe(before + 1);
    expect(pieces.at(-1)).toContain('"CONTESTED"');
    json.end(2, 1);
    expect(JSON.parse(pieces.join(''))).toEqual({ files: [{ path: 'a.md', notes: [{ kind: 'CLARIFY' }, { kind: 'CONTESTED' }] }], total: 2, exitCode: 1 });
  });
});
