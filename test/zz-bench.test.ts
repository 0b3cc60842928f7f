import { it } from 'vitest';
import { scanNotes } from '../src/protocol/scanner.js';
const dense = `Some text about retries and *emphasis* with \`code\` and [a link](http://x).
[CONTESTED] Five attempts is too aggressive; cap at 2.
- item one
- item [CLARIFY] two
  continued \`[CLARIFY] no\` here

\`\`\`js
const x = '[CLARIFY]';
\`\`\`

> quote <!-- [CONTESTED] hidden -->
> more
> [CLARIFY] in a quote

    [CLARIFY] indented code

1. one
2. two [CONTESTED] mid
   - nested *[CLARIFY]* note

`;
const words = 'the classifier should retry on transient errors with exponential backoff up to five attempts and then surface'.split(' ');
function prose(n: number): string {
  let doc = ''; let i = 0;
  while (doc.length < n) {
    let p = '';
    for (let l = 0; l < 4; l++) { for (let w = 0; w < 12; w++) p += words[(i++ * 7) % words.length] + ' '; p += '\n'; }
    doc += p + '[CONTESTED] Five attempts is too aggressive.\nCap at 2 attempts.\n\n';
  }
  return doc;
}
it('bench', () => {
  let d = ''; while (d.length < 2_000_000) d += dense;
  const docs = { dense: d, prose: prose(2_000_000), noMarkers: prose(2_000_000).replace(/\[CONTESTED\]/g, 'CONTESTED'), bigList: ('- item [CLARIFY] x `y`\n').repeat(90000), bigQuote: ('> line [CLARIFY] x\n').repeat(100000) };
  for (const [name, doc] of Object.entries(docs)) {
    for (const syntax of ['markdown', 'plain'] as const) {
      const times: number[] = []; let n = 0;
      for (let k = 0; k < 4; k++) { const t = performance.now(); n = scanNotes(doc, { syntax }).length; times.push(performance.now() - t); }
      console.log(`BENCH ${name} ${syntax} ${(doc.length / 1e6).toFixed(2)}MB notes=${n} ms=${times.map((t) => t.toFixed(0)).join(',')}`);
    }
  }
});
