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
const reps = Number(process.argv[2]);
let chunk = ''; for (let i = 0; i < reps; i++) chunk += para;
const total = 2_000_000; const n = Math.ceil(total / chunk.length);
for (let k = 0; k < 4; k++) {
  const t = performance.now();
  let ev = 0;
  for (let i = 0; i < n; i++) ev += postprocess(parse().document().write(preprocess()(chunk, undefined, true))).length;
  console.log(chunk.length, n, ev, (performance.now() - t).toFixed(0), 'ms');
}
