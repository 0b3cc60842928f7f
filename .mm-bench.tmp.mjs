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
for (let i = 0; i < 8; i++) {
  const t = performance.now();
  const ev = postprocess(parse().document().write(preprocess()(doc, undefined, true)));
  console.log(doc.length, ev.length, (performance.now() - t).toFixed(0), 'ms');
}
console.log(JSON.stringify(postprocess(parse().document().write(preprocess()("```\ncode\n\n", undefined, true))).filter(e=>e[0]==='enter').map(e=>[e[1].type,e[1].start.offset,e[1].end.offset])));
console.log(JSON.stringify(postprocess(parse().document().write(preprocess()("- a\n- b\n\npara\nx `y` z\n", undefined, true))).map(e=>[e[0],e[1].type,e[1].start.offset,e[1].end.offset])));
