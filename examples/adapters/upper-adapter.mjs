#!/usr/bin/env node
// A complete bounce adapter, plain Node, no dependencies: a trivial composer that sends back the document it
// was given with every note removed and every code block exactly as it was. Contract: docs/adapter-contract.md.
const VERSION = 'upper-adapter 1.0.0';
const NOTE = /^[\s>*_+-]*(?:\d+[.)]\s*)?[\s*_]*\\?\[(?:CONTESTED|CLARIFY)\\?\]/i; // a marker that starts its line
const FENCE = /^[\s>]*(?:(?:[-*+]|\d+[.)])\s+)?(`{3,}|~{3,})(.*)$/; // a code fence, also in a list item or quote
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
let input = ''; for await (const chunk of process.stdin) input += chunk;
function withoutNotes(lines) {
  let inNote = false, fence = '', gap = true; // a note runs to the end of its paragraph
  return lines.filter((line) => {
    const f = FENCE.exec(line), blank = line.trim() === '';
    if (fence) { if (f && f[1][0] === fence[0] && f[1].length >= fence.length && f[2].trim() === '') fence = ''; return true; }
    if (f && (f[1][0] === '~' || !f[2].includes('`'))) { fence = f[1]; inNote = false; return true; }
    gap = blank || (gap && /^( {4}|\t)/.test(line)); // indented code starts only after a blank line
    inNote = !gap && (inNote || NOTE.test(line));
    return !inNote;
  });
}
if (process.argv.includes('--check')) print({ ok: true, version: VERSION, problems: [], warnings: [], resolved: {} }); // nothing to verify
else {
  let prompt = ''; try { prompt = String(JSON.parse(input).prompt ?? ''); } catch { /* reported below */ }
  const lines = prompt.split('\n');
  const open = lines.findIndex((l) => /^<<<BOUNCE-DOCUMENT-[0-9a-f]+>>>$/.test(l));
  const close = open < 0 ? -1 : lines.indexOf(lines[open].replace('<<<', '<<<END-'), open + 1);
  if (close < 0) print({ ok: false, error: { type: 'config', message: 'no document between BOUNCE-DOCUMENT delimiter lines' } });
  else print({ ok: true, reply: withoutNotes(lines.slice(open + 1, close)).join('\n'), stop: 'complete', model: null, agent_version: VERSION,
    usage: { input_tokens: null, output_tokens: null, cost_usd: null, provider_reported: false } });
}
