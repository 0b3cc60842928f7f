import { parse, postprocess, preprocess, micromark } from 'micromark';
for (const d of process.argv.slice(2).map(s => JSON.parse(s))) {
console.log(JSON.stringify(micromark(d, {allowDangerousHtml: true})));
console.log(postprocess(parse().document().write(preprocess()(d, undefined, true))).filter(e => e[0]==='enter' && !/Prefix|Marker|Whitespace|lineEnding|data|Value|Sequence|Chunk|chunk/.test(e[1].type)).map(e => `${e[1].type}:${e[1].start.offset}-${e[1].end.offset}`).join(' '));
}
