import { parse, preprocess, postprocess } from 'micromark';
const para = `Some text about retries and *emphasis* with \`code\` and [a link](http://x).
[CONTESTED] Five attempts is too aggressive; cap at 2.
- item one
- item [CLARIFY] two

\`\`\`js
const x = '[CLARIFY]';
\`\`\`

> quote <!-- [CONTESTED] hidden -->
> more

`;
const N = Number(process.argv[2]);
let doc = ''; while (doc.length < N) doc += para;
for (let i = 0; i < 12; i++) {
  const t = performance.now();
  const w = parse().document().write(preprocess()(doc, undefined, true));
  const t1 = performance.now();
  const ev = postprocess(w);
  if (i > 8) console.log(doc.length, ev.length, (t1 - t).toFixed(1), (performance.now() - t1).toFixed(1), 'ms');
}
