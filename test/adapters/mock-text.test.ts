import { describe, expect, it } from 'vitest';
import { addNote, resolveNotes } from '../../adapters/mock.js';
import { scanNotes } from '../../src/protocol/scanner.js';
import { structureProblems } from '../../src/protocol/structure.js';

const CODE = 'Intro.\n\n```\n[CLARIFY] literal text in code\n\n\n\nx = 1\n```\n\n    indented [CONTESTED] code\n\n- item\n\n  ~~~\n  inside an item\n\n  ~~~\n';

describe('the mock agent keeps code intact', () => {
  it('resolving notes leaves every code block as it was, and removes the notes', () => {
    const doc = `${CODE}\nProse.\n[CLARIFY] Which one: (A) this, (B) that?\nstill the note\n\nEnd.\n`;
    const out = resolveNotes(doc);
    expect(structureProblems(doc, out, 'markdown')).toEqual([]);
    expect(scanNotes(out)).toEqual([]);
    expect(out).toContain('[CLARIFY] literal text in code\n\n\n\nx = 1');
    expect(out).toContain('Prose.\n\nEnd.\n');
  });

  it('adding a note never puts it inside code, and the scanner finds it', () => {
    const doc = '```js\nconst a = 1;\n\nconst b = 2;\n```\n\nText here.\n\nMore.\n';
    const out = addNote(doc);
    expect(structureProblems(doc, out, 'markdown')).toEqual([]);
    expect(scanNotes(out).map((n) => n.kind)).toEqual(['CONTESTED']);
  });

  it('a document of one paragraph gets the note after it', () => {
    expect(scanNotes(addNote('Only this.\n'))).toHaveLength(1);
  });
});
