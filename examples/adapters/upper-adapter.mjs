#!/usr/bin/env node
// A complete bounce adapter, plain Node, no dependencies: a trivial composer that sends back
// the document it was given with every note removed. Contract: docs/adapter-contract.md.
const VERSION = 'upper-adapter 1.0.0';
const NOTE = /^[\s>*_+-]*(?:\d+[.)]\s*)?[\s*_]*\[(?:CONTESTED|CLARIFY)\]/i; // a marker that starts its line
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
let input = '';
for await (const chunk of process.stdin) input += chunk;
if (process.argv.includes('--check')) {
  print({ ok: true, version: VERSION, problems: [], warnings: [], resolved: {} }); // options on stdin; nothing to verify
} else {
  let prompt = '';
  try { prompt = String(JSON.parse(input).prompt ?? ''); } catch { /* reported below */ }
  const lines = prompt.split('\n');
  const open = lines.findIndex((l) => /^<<<BOUNCE-DOCUMENT-[0-9a-f]+>>>$/.test(l));
  const close = open < 0 ? -1 : lines.indexOf(lines[open].replace('<<<', '<<<END-'), open + 1);
  if (close < 0) {
    print({ ok: false, error: { type: 'config', message: 'no document between BOUNCE-DOCUMENT delimiter lines' } });
  } else {
    let inNote = false; // a note runs from its marker to the end of its paragraph
    const kept = lines.slice(open + 1, close).filter((line) => {
      if (line.trim() === '') inNote = false;
      else if (NOTE.test(line)) inNote = true;
      return !inNote;
    });
    const usage = { input_tokens: null, output_tokens: null, cost_usd: null, provider_reported: false };
    print({ ok: true, reply: kept.join('\n'), stop: 'complete', usage, model: null, agent_version: VERSION });
  }
}
