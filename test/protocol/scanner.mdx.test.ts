import { describe, expect, it } from 'vitest';
import { parse, postprocess, preprocess } from 'micromark';
import { mdxjs } from 'micromark-extension-mdxjs';
import { scanNotes } from '../../src/protocol/scanner.js';
import { seeded } from '../support/random.js';

/** `line:col` of each note, read with the MDX rules. */
const notes = (doc: string): string[] => scanNotes(doc, { mdx: true }).map((n) => `${n.line}:${n.column}`);

// Tokens whose text a reader of the rendered MDX never sees. The generator below writes
// expressions only as `{/* comments */}`, so a whole expression is hidden.
const HIDDEN = new Set(['codeFenced', 'codeText', 'mdxJsxFlowTag', 'mdxJsxTextTag', 'mdxjsEsm', 'mdxFlowExpression', 'mdxTextExpression']);

/** Visible marker offsets as the MDX parser (micromark with micromark-extension-mdxjs) reads the document; null when it rejects it. */
function mdxVisible(doc: string): number[] | null {
  const hidden: [number, number][] = [];
  try {
    for (const [kind, token] of postprocess(
      parse({ extensions: [mdxjs()] })
        .document()
        .write(preprocess()(doc, undefined, true)),
    )) {
      if (kind === 'enter' && HIDDEN.has(token.type)) hidden.push([token.start.offset, token.end.offset]);
    }
  } catch {
    return null;
  }
  return [...doc.matchAll(/\[(?:CLARIFY|CONTESTED)\]/g)].map((m) => m.index).filter((o) => !hidden.some(([a, b]) => a <= o && o < b));
}

describe('MDX as the MDX parser reads it', () => {
  it('a fenced code block indented four or more columns (inside a tab) closes, and the notes after it count', () => {
    const doc =
      '<Tabs>\n  <TabItem value="a">\n\n    ```js\n    [CLARIFY] in code\n    ```\n\n  </TabItem>\n</Tabs>\n\nShip it.\n[CLARIFY] Which day? (A) Monday (B) Friday\n';
    expect(notes(doc)).toEqual(['12:1']);
    expect(mdxVisible(doc)).toEqual([doc.lastIndexOf('[CLARIFY]')]);
    expect(notes('        ~~~\n        [CLARIFY] code\n        ~~~\n[CLARIFY] text a or b?\n')).toEqual(['4:1']);
  });

  it('a JSX tag whose closing > stands alone on its line hides its attributes; the > opens no block quote', () => {
    const doc = '<Tabs\n  groupId="os"\n  title="[CLARIFY] an attribute"\n>\n\n[CLARIFY] a child, shown\n\n</Tabs>\n';
    expect(notes(doc)).toEqual(['6:1']);
    expect(mdxVisible(doc)).toEqual([doc.lastIndexOf('[CLARIFY]')]);
    expect(notes('- <Note\n    label="[CONTESTED] x"\n  >\n  [CLARIFY] y or z?\n')).toEqual(['4:3']);
  });

  it('<pre> and <textarea> are JSX: their children are markdown and their notes count; markdown still reads them as HTML blocks', () => {
    for (const tag of ['pre', 'textarea']) {
      // An HTML block (markdown) reads none of the comment, the code span or the fence: all three hide their marker in MDX.
      const doc = `<${tag}>\n{/* [CLARIFY] a comment */}\n\`[CLARIFY]\` and\n[CLARIFY] inside, a or b?\n\n\`\`\`\n[CLARIFY] code\n\`\`\`\n</${tag}>\n`;
      expect(notes(doc)).toEqual(['4:1']);
      expect(mdxVisible(doc)).toEqual([doc.indexOf('[CLARIFY] inside')]);
      expect(scanNotes(doc).map((n) => n.line)).toEqual([2, 3, 4, 7]);
    }
    // In markdown a `<pre>` block runs to its closing tag across blank lines; in MDX it is a tag like any other.
    expect(notes('<pre>\n\n[CLARIFY] a or b?\n\n</pre>\n')).toEqual(['3:1']);
  });

  it('script and style stay hidden (a browser shows no part of them), though MDX reads their children as markdown', () => {
    expect(notes('<script>\n[CLARIFY] s\n</script>\n\n<style>\n[CLARIFY] t\n</style>\n')).toEqual([]);
  });
});

// Pieces of real-world MDX: tabs with indented fences, tags spanning lines, attributes holding markers.
const PIECES = [
  '<Tabs>',
  '</Tabs>',
  '<TabItem value="npm" label="[CLARIFY] npm">',
  '</TabItem>',
  '<Tabs\n  groupId="[CLARIFY] os"\n>',
  '<Note\n  title="[CONTESTED] t"\n  />',
  '<Callout type="warn"\n>',
  '</Callout>',
  '```js\n[CLARIFY] code\n```',
  '    ```sh\n    [CLARIFY] indented code\n    ```',
  '      ~~~\n      [CONTESTED] deeper code\n      ~~~',
  '  ```\n  [CLARIFY] two spaces\n  ```',
  'Text [CLARIFY] in a paragraph.',
  '[CONTESTED] Use two.',
  '    [CLARIFY] indented text, not code in MDX',
  '<pre>',
  '</pre>',
  '<textarea>',
  '</textarea>',
  'Inline `[CLARIFY]` code.',
  '{/* [CLARIFY] comment */}',
  'A <Kbd label="[CLARIFY]">key</Kbd> and [CLARIFY] text.',
  '- item [CLARIFY] in a list',
  '> quoted [CLARIFY] text',
  '## Heading [CONTESTED] here',
  "import { Tabs } from './tabs.js'",
  '<br />',
];

describe('MDX: a seeded differential against the MDX parser on generated documents', () => {
  it('finds exactly the markers the MDX parser shows as text', () => {
    const next = seeded(Number(process.env.FUZZ_SEED ?? 11));
    const pick = (): string => PIECES[Math.floor(next() * PIECES.length)]!;
    const runs = Number(process.env.FUZZ_N ?? 400);
    let parsed = 0;
    for (let n = 0; n < runs; n++) {
      let doc = pick();
      const len = 1 + Math.floor(next() * 8);
      for (let k = 0; k < len; k++) {
        const indent = next() < 0.3 ? '  '.repeat(1 + Math.floor(next() * 3)) : '';
        const piece = pick().replace(/\n/g, `\n${indent}`);
        doc += `${next() < 0.5 ? '\n\n' : '\n'}${indent}${piece}`;
      }
      doc += '\n';
      const expected = mdxVisible(doc);
      if (expected === null) continue;
      parsed++;
      expect(
        scanNotes(doc, { mdx: true }).map((x) => x.offset),
        JSON.stringify(doc),
      ).toEqual(expected);
    }
    expect(parsed).toBeGreaterThan(runs / 4);
  });
});
