import { describe, expect, it } from 'vitest';
import { finalPassNotes, noteLines, structureCounts } from '../../src/engine/final-pass.js';
import { scanNotes } from '../../src/protocol/scanner.js';
import { structureProblems } from '../../src/protocol/structure.js';

const notesOf = (text: string) => scanNotes(text, { syntax: 'markdown' });

describe('the final-pass rule', () => {
  it('a reply with no note passes; one with notes breaks the rule, counted', () => {
    expect(finalPassNotes([])).toBeNull();
    const one = finalPassNotes(notesOf('# A\n\n[CLARIFY] Who?\n'));
    expect(one).toBe('1 note left on the final pass, which must resolve every note and add none (line 3: [CLARIFY])');
    expect(finalPassNotes(notesOf('[CLARIFY] a?\n\n[CONTESTED] b\n'))).toMatch(/^2 notes left on the final pass/);
  });

  it('names notes by line and kind, never by their text, five at most', () => {
    const text = Array.from({ length: 7 }, (_, i) => `[CONTESTED] secret text ${i}\n`).join('\n');
    const shown = noteLines(notesOf(text));
    expect(shown).toBe('line 1: [CONTESTED], line 3: [CONTESTED], line 5: [CONTESTED], line 7: [CONTESTED], line 9: [CONTESTED], and 2 more');
    expect(shown).not.toContain('secret');
  });

  it('an open fence counts on every pass, any other structure problem only on the final one', () => {
    const sent = '# A\n\n```\ncode\n```\n';
    const [open] = structureProblems(sent, '# A\n\n```\ncode\n', 'markdown');
    const [other] = structureProblems(sent, '# A\n\n```\nchanged\n```\n', 'markdown');
    expect([open?.kind, other?.kind]).toEqual(['unclosed-fence', 'code-changed']);
    if (!open || !other) return;
    expect([structureCounts(open, false), structureCounts(open, true)]).toEqual([true, true]);
    expect([structureCounts(other, false), structureCounts(other, true)]).toEqual([false, true]);
  });
});
