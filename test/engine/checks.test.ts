import { describe, expect, it } from 'vitest';
import { CHECK_REPAIR_MAX_CHARS, checkErrorMessage, checkRepairReason, checkRepairSummary, finalCheckReason, repairOutput } from '../../src/engine/checks.js';

const FILE = '/home/me/project/runs/doc-1/pass-2-composer-mock.check.md';

describe('repairOutput', () => {
  it('shows the copy as {file}, whether the check printed its absolute path or a relative one', () => {
    const output = `Finding: ${FILE}\nruns/doc-1/pass-2-composer-mock.check.md:1 MD022/blanks-around-headings\n"./pass-2-composer-mock.check.md" line 3\n`;
    expect(repairOutput(output, FILE)).toBe('Finding: {file}\n{file}:1 MD022/blanks-around-headings\n"{file}" line 3');
  });

  it('cuts a long output at a line end within the bound and says how much is left out', () => {
    const line = 'x'.repeat(99);
    const output = Array.from({ length: 100 }, () => line).join('\n');
    const shown = repairOutput(output, FILE);
    expect(shown.length).toBeLessThan(CHECK_REPAIR_MAX_CHARS + 100);
    expect(shown).toMatch(new RegExp(`\\n\\[${output.length - CHECK_REPAIR_MAX_CHARS} more characters of output left out\\]$`));
    expect(
      shown
        .split('\n')
        .slice(0, -1)
        .every((l) => l === line),
    ).toBe(true);
  });
});

describe('the words of a check failure', () => {
  const failed = [{ command: 'markdownlint-cli2 {file}', exitCode: 1, output: 'MD022' }];

  it('the repair reason names the check and its exit, never its output', () => {
    const reason = checkRepairReason(failed);
    expect(reason).toContain('fails check `markdownlint-cli2 {file}` (exit 1)');
    expect(reason).not.toContain('MD022');
    expect(checkRepairSummary(failed)).toBe('check `markdownlint-cli2 {file}` failed');
    expect(checkRepairSummary([...failed, { command: 'vale {file}', exitCode: null, output: '' }])).toBe('2 checks failed');
    expect(checkRepairReason([{ command: 'vale {file}', exitCode: null, output: '' }])).toContain('(ended by a signal)');
  });

  it('the final reason says the document still fails after the repairs', () => {
    expect(finalCheckReason(failed, 1)).toMatch(/^the final pass's document still fails check `markdownlint-cli2 \{file\}` \(exit 1\) after 1 repair;/);
  });

  it('a check that did not start, or ran out of time, names the fix', () => {
    const check = { command: 'vale {file}', timeout_s: 5 };
    expect(checkErrorMessage(check, { status: 'not-started', output: 'vale: no such program (not on PATH, or no such file)' })).toBe(
      'check `vale {file}` could not start: vale: no such program (not on PATH, or no such file): install the program or fix the command',
    );
    expect(checkErrorMessage(check, { status: 'timed-out', output: '' })).toContain('ran out of its 5 s time limit and was killed');
  });
});
