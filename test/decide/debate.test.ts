import { describe, expect, it } from 'vitest';
import { composerTemplateProblem, MAX_STATEMENT_CHARS, noteEntry, parseStatement, reviewerTemplateProblem } from '../../src/decide/debate.js';
import { packageTemplate } from '../../src/prompt-files.js';
import { finding } from './finding.js';

describe('the debate of a decision round', () => {
  it('takes one paragraph of prose, as one line', () => {
    expect(parseStatement('Use five retries\nwith backoff.\n')).toEqual({ ok: true, value: 'Use five retries with backoff.' });
    expect(parseStatement('One.\n\nTwo.')).toMatchObject({ ok: false, reason: expect.stringMatching(/one paragraph/) });
    expect(parseStatement('- a list')).toMatchObject({ ok: false, reason: expect.stringMatching(/no heading, list or code fence/) });
    expect(parseStatement('x'.repeat(MAX_STATEMENT_CHARS + 1))).toMatchObject({ ok: false, reason: expect.stringMatching(/at most 1200/) });
  });

  it('quotes the note without its marker twice, with where it stood and what became of it', () => {
    expect(noteEntry(finding())).toBe(
      "[CONTESTED] Three retries is too few. Use five with backoff.\n(line 4 of pass-1-reviewer-claude.md, raised by pass 1, reviewer claude; no pass resolved it: it is still in the run's last document)",
    );
  });

  it('ships templates that pass their own checks, and refuses a wrong placeholder', () => {
    expect(reviewerTemplateProblem(packageTemplate('decide-reviewer'))).toBeNull();
    expect(composerTemplateProblem(packageTemplate('decide-composer'))).toBeNull();
    expect(reviewerTemplateProblem('{{document}} {{note}} {{alternative}}')).toMatch(/unknown placeholder \{\{alternative\}\}/);
    expect(composerTemplateProblem('{{document}} {{note}}')).toBe('missing placeholder {{alternative}}');
  });
});
