import { describe, expect, it } from 'vitest';
import type { RunNote } from '../../src/audit/run-notes.js';
import { githubSuggestions } from '../../src/suggestions/github.js';
import type { Cause } from '../../src/suggestions/run-suggestions.js';
import { lineHunks, linesWithBreaks } from '../../src/suggestions/hunks.js';

const note: RunNote = {
  kind: 'CONTESTED',
  text: '[CONTESTED] Use `code` here.',
  raisedBy: { pass: 1, agent: 'claude' },
  raisedLine: 3,
  raisedIn: 0,
  finding: null,
  fate: 'acted',
  resolvedBy: { pass: 2, agent: 'codex' },
  resolvedIn: 1,
  resolvedLine: 3,
  refersTo: [2, 2],
};

function render(before: string, after: string, causes: Cause[] = [{ note, dispatch: '01DISPATCH', pass: 2 }]): string {
  const s = { runId: 'run-1', original: linesWithBreaks(before), final: after, hunks: lineHunks(before, after).map((hunk) => ({ hunk, causes })) };
  return githubSuggestions(s, 'docs/a.md');
}

describe('github suggestions', () => {
  it('a comment a hunk: the header the poster reads, path and lines, the message, the block of whole lines', () => {
    expect(render('a\nb\nc\n', 'a\nB\nC\n')).toBe(
      [
        '<!-- bounce-suggestion path="docs/a.md" start_line=2 line=3 -->',
        '**docs/a.md** lines 2-3',
        '',
        'bounce run run-1: [CONTESTED] Use `code` here. (raised by claude (pass 1); resolved (acted on) by codex (pass 2), dispatch 01DISPATCH)',
        '',
        '```suggestion',
        'B',
        'C',
        '```',
        '',
      ].join('\n'),
    );
  });

  it('a fence longer than any backtick run in the lines; an insertion takes the line above; a deletion is an empty block', () => {
    expect(render('a\n', 'a\nuse ```` here\n')).toContain('\n`````suggestion\na\nuse ```` here\n`````\n');
    const deleted = render('a\nb\n', 'a\n', []);
    expect(deleted).toContain('line 2\n\nbounce run run-1: a change no note of the run asked for\n\n```suggestion\n```\n');
  });

  it('several notes: one line each, as Markdown line breaks', () => {
    const other = { note: { ...note, text: '[CLARIFY] Which? (A) x (B) y', fate: 'dismissed' as const }, dispatch: null, pass: 2 };
    expect(render('a\n', 'b\n', [{ note, dispatch: '01DISPATCH', pass: 2 }, other])).toContain(
      'dispatch 01DISPATCH)  \n[CLARIFY] Which? (A) x (B) y (raised by claude (pass 1); resolved (dismissed) by codex (pass 2))',
    );
  });
});
