import { describe, expect, it } from 'vitest';
import { addNote, mockSyntax, resolveNotes } from '../../src/kit/mock-text.js';
import { lintNotes } from '../../src/protocol/lint.js';
import { scanNotes } from '../../src/protocol/scanner.js';
import { structureProblems } from '../../src/protocol/structure.js';
import type { Syntax } from '../../src/vocabulary.js';
import { yamlLib } from '../../src/yaml.js';

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

const mdNotes = (text: string, syntax: Syntax = 'markdown') => scanNotes(text, { syntax });
const values = (text: string): string =>
  JSON.stringify(
    yamlLib()
      .parseAllDocuments(text)
      .map((d) => d.toJS()),
  );

describe('the mock agent is a model citizen: its notes pass lint, its resolve leaves a clean document', () => {
  const MARKDOWN = {
    'a heading first': '# Plan\n\nWe ship on Monday.\nAll users get it.\n\n## Rollback\n\nRollback is manual.\n',
    'one paragraph, no final newline': 'Only this.',
    'a list first': '- one\n- two\n\nAfter the list.\n',
    'only a list': '- one\n- two\n',
    'code first': '```\ncode\n\nmore\n```\n\nText.\n',
    'only a heading': '# Title\n',
    'only code': '```\ncode\n\nmore\n```\n',
    'a BOM and CRLF': '\uFEFF# Plan\r\n\r\nWe ship on Monday.\r\n',
  };
  for (const [name, doc] of Object.entries(MARKDOWN)) {
    it(`Markdown, ${name}: one note right below its text, no lint problem; resolving gives the document back`, () => {
      const out = addNote(doc);
      const added = mdNotes(out);
      expect(added.map((n) => n.kind)).toEqual(['CONTESTED']);
      expect(lintNotes(added, out.replace(/^\uFEFF/, ''))).toEqual([]);
      expect(structureProblems(doc, out, 'markdown')).toEqual([]);
      expect(resolveNotes(out)).toBe(doc);
    });
  }

  const YAML = {
    'a mapping': 'service:\n  name: api\n  retries: 5\n\nlimits:\n  rps: 10\n',
    'a block scalar first': 'motd: |\n  hello\n  # not a comment\nport: 80\n',
    'a comment first, a stream': '# settings\n---\na: 1\n---\n- b\n- c\n',
  };
  for (const [name, doc] of Object.entries(YAML)) {
    it(`YAML, ${name}: the note is a comment below a line, no lint problem, the values unchanged; resolving gives the document back`, () => {
      const out = addNote(doc, 'yaml');
      const added = mdNotes(out, 'yaml');
      expect(added.map((n) => [n.kind, n.canonical])).toEqual([['CONTESTED', true]]);
      expect(lintNotes(added, out)).toEqual([]);
      expect(values(out)).toBe(values(doc));
      expect(resolveNotes(out, 'yaml')).toBe(doc);
    });
  }

  it('YAML notes in comment lines and trailing comments resolve with no `#` left behind', () => {
    const doc =
      'service:\n  name: api  # [CLARIFY] Which api: (A) public (B) internal?\n  retries: 5\n  # [CONTESTED] Too many retries.\n  # Use 2.\n\nlimits:\n  rps: 10 #[CLARIFY] per second? (A) yes (B) no\n';
    const out = resolveNotes(doc, 'yaml');
    expect(out).toBe('service:\n  name: api\n  retries: 5\n\nlimits:\n  rps: 10\n');
    expect(mdNotes(out, 'yaml')).toEqual([]);
    expect(values(out)).toBe(values(doc));
  });

  it('JSON: the note is a member after the one it refers to, no lint problem; resolving gives the document back', () => {
    for (const doc of ['{\n  "name": "api",\n  "retries": 5\n}\n', '{\n  "only": true\n}', '{\r\n  "a": {\r\n    "b": null\r\n  }\r\n}\r\n']) {
      const out = addNote(doc, 'json');
      const added = mdNotes(out, 'json');
      expect(added.map((n) => [n.kind, n.canonical])).toEqual([['CONTESTED', true]]);
      expect(lintNotes(added, out)).toEqual([]);
      expect(JSON.parse(out)).toBeTypeOf('object');
      expect(resolveNotes(out, 'json')).toBe(doc);
    }
  });

  it('JSON notes that share a line with other JSON are taken out of the value, the rest kept', () => {
    const doc =
      '{\n  "a": 1, "a.note": "[CLARIFY] Which unit: (A) s (B) ms?",\n  "list": [1, "[CONTESTED] Drop it. Use 2."],\n  "b": "text [CLARIFY] here? (A) yes (B) no"\n}\n';
    const out = resolveNotes(doc, 'json');
    expect(JSON.parse(out)).toEqual({ a: 1, list: [1], b: 'text' });
    expect(mdNotes(out, 'json')).toEqual([]);
  });

  it('reads the substrate from the rules the prompt carries; Markdown otherwise', () => {
    const rules = { json: 'This document is JSON.\n', yaml: 'This document is YAML.\n' };
    expect(mockSyntax('frame\nThis document is YAML.\nmore', rules)).toBe('yaml');
    expect(mockSyntax('frame\nThis document is JSON.\nmore', rules)).toBe('json');
    expect(mockSyntax('frame with neither', rules)).toBe('markdown');
  });
});
