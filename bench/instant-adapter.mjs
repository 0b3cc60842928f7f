#!/usr/bin/env node
// An adapter that answers at once (docs/adapter-contract.md): it sends back the document it
// was given, unchanged, so a `cmd:` run times bounce and one bare node process per call.
const VERSION = 'instant-adapter 1.0.0';
const DOC = /<<<BOUNCE-DOCUMENT-([0-9a-f]+)>>>\n([\s\S]*?)\n?<<<END-BOUNCE-DOCUMENT-\1>>>/;
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
let input = '';
for await (const chunk of process.stdin) input += chunk;
if (process.argv.includes('--check')) {
  print({ ok: true, version: VERSION, problems: [], warnings: [], resolved: {} });
} else {
  const doc = DOC.exec(JSON.parse(input).prompt)?.[2];
  if (doc === undefined) print({ ok: false, error: { type: 'config', message: 'no document between BOUNCE-DOCUMENT delimiter lines' } });
  else {
    const usage = { input_tokens: null, output_tokens: null, cost_usd: null, provider_reported: false };
    print({ ok: true, reply: doc, stop: 'complete', usage, model: null, agent_version: VERSION });
  }
}
