import { describe, expect, it } from 'vitest';
import { structureProblems } from '../../src/protocol/structure.js';

const FENCED = 'Intro.\n\n```js\nconst a = 1;\n```\n\n[CLARIFY] Which one?\n';
/** `kind line/sentLine` per problem. */
type Case = [name: string, sent: string, reply: string, expected: string[], opts?: { mdx?: boolean }];

const cases: Case[] = [
  // Unclosed fences (CommonMark 0.31 §4.5: an unclosed fence runs to the end of its container)
  ['unchanged', FENCED, FENCED, []],
  ['closing fence deleted', FENCED, 'Intro.\n\n```js\nconst a = 1;\n\n[CLARIFY] Which one?\n', ['unclosed-fence 3/-', 'code-changed 3/3']],
  ['closing fence shortened', FENCED, 'Intro.\n\n```js\nconst a = 1;\n``\n', ['unclosed-fence 3/-', 'code-changed 3/3']],
  ['closing fence of the other character', '~~~\nx\n~~~\n', '~~~\nx\n```\n', ['unclosed-fence 1/-', 'code-changed 1/1']],
  ['the sent document left a fence open too', '```\nx\n', '```\nx\n\nmore\n', ['code-changed 1/1']],
  ['a fence closed by its list item is not closed by a fence', '- ```\n  x\n  ```\n- b\n', '- ```\n  x\n- b\n', ['unclosed-fence 1/-']],
  ['a fence in a quote', '> ```\n> x\n> ```\n', '> ```\n> x\n', ['unclosed-fence 1/-']],
  ['a new unclosed fence', 'a\n', 'a\n\n```\nb\n', ['unclosed-fence 3/-', 'code-changed 3/-']],
  // Code content (§4.4 indented, §4.5 fenced)
  ['code moved, content kept', FENCED, '[CLARIFY] Which one?\n\n```js\nconst a = 1;\n```\n', []],
  ['info string changed, content kept', FENCED, FENCED.replace('```js', '```ts'), []],
  ['indented code turned fenced, content kept', 'a\n\n    x = 1\n', 'a\n\n```\nx = 1\n```\n', []],
  ['CRLF line endings in the reply', FENCED, FENCED.replace(/\n/g, '\r\n'), []],
  ['a line inside a fence deleted', '```\na\nb\n```\n', '```\na\n```\n', ['code-changed 1/1']],
  ['a line inside a fence changed', 'x\n\n```\n[CLARIFY] in code\n```\n', 'x\n\n```\n[clarify] in code\n```\n', ['code-changed 3/3']],
  ['indented code changed', 'a\n\n    x = 1\n', 'a\n\n    x = 2\n', ['code-changed 3/3']],
  ['trailing blank lines after indented code are not content', 'a\n\n    x\n\n\nb\n', 'a\n\n    x\nb\n', []],
  ['a blank line inside a fence is content', '```\na\n\nb\n```\n', '```\na\nb\n```\n', ['code-changed 1/1']],
  ['code in a list item, prefix changed with the item', '- a\n\n      code\n', '* a\n\n      code\n', []],
  ['second block removed', '```\na\n```\n\n```\nb\n```\n', '```\na\n```\n', ['code-changed -/5']],
  ['first of two blocks removed', '```\na\n```\n\n```\nb\n```\n', '```\nb\n```\n', ['code-changed 1/1']],
  ['code block added', 'a\n', 'a\n\n    new\n', ['code-changed 3/-']],
  ['a fence inside an HTML comment is no code', '<!--\n```\n-->\n', '<!--\n-->\n', []],
  // MDX: no indented code
  ['mdx: indented text is not code', 'a\n\n    x\n', 'a\n\n    y\n', [], { mdx: true }],
];

describe('structureProblems', () => {
  it.each(cases)('%s', (_name, sent, reply, expected, opts = {}) => {
    const problems = structureProblems(sent, reply, 'markdown', opts);
    expect(problems.map((p) => `${p.kind} ${p.line ?? '-'}/${p.sentLine ?? '-'}`)).toEqual(expected);
  });

  it('has nothing to say about plain text', () => {
    expect(structureProblems(FENCED, 'Intro.\n\n```js\n', 'plain')).toEqual([]);
  });

  it('gives one-line reasons that name lines, never document text', () => {
    const secret = 'Intro.\n\n```\nSECRET_VALUE\n```\n\nmore\n';
    const problems = [
      ...structureProblems(secret, 'Intro.\n\n```\nSECRET_VALUE changed\n\nmore\n', 'markdown'),
      ...structureProblems(secret, 'Intro.\n', 'markdown'),
      ...structureProblems('a\n', 'a\n\n```\nSECRET_VALUE\n```\n', 'markdown'),
    ];
    expect(problems.map((p) => p.reason)).toEqual([
      'The code fence opened on line 3 is never closed, so everything after it reads as code; close it as the sent document closed all of its fences.',
      'The code block on line 3 differs from the one on line 3 of the sent document; keep every code block exactly as it was sent.',
      'The code block on line 3 of the sent document is missing (the reply has 0 code blocks, the sent document 1); keep every code block exactly as it was sent.',
      'The code block on line 3 is not in the sent document (the reply has 1 code block, the sent document 0); keep every code block exactly as it was sent.',
    ]);
    for (const p of problems) expect(p.reason).not.toMatch(/SECRET|\n/);
  });
});
