import { parse, preprocess, postprocess } from 'micromark';
const words = 'the classifier should retry on transient errors with exponential backoff up to five attempts and then surface'.split(' ');
let doc = ''; let i = 0;
while (doc.length < Number(process.argv[2])) {
  let p = '';
  for (let l = 0; l < 4; l++) { for (let w = 0; w < 12; w++) p += words[(i++ * 7) % words.length] + ' '; p += '\n'; }
  doc += p + (i % 3 === 0 ? '[CONTESTED] Five attempts is too aggressive.\n' : '') + '\n';
}
for (let k = 0; k < 5; k++) {
  const t = performance.now();
  const ev = postprocess(parse().document().write(preprocess()(doc, undefined, true)));
  console.log(doc.length, ev.length, (performance.now() - t).toFixed(0), 'ms');
}
