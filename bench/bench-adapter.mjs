// What the bench's `cmd:` adapters (instant-adapter.mjs, soak-agent.mjs) share: the adapter
// contract's side of a call (docs/adapter-contract.md). `serve(version, answer)` reads the
// request, answers `--check`, and prints `answer(request, document)` as the reply, or a
// config error when the prompt holds no document.
const DOC = /<<<BOUNCE-DOCUMENT-([0-9a-f]+)>>>\n([\s\S]*?)\n?<<<END-BOUNCE-DOCUMENT-\1>>>/;
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

export async function serve(version, answer) {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  if (process.argv.includes('--check')) return print({ ok: true, version, problems: [], warnings: [], resolved: {} });
  const request = JSON.parse(input);
  const doc = DOC.exec(request.prompt)?.[2];
  if (doc === undefined) return print({ ok: false, error: { type: 'config', message: 'no document between BOUNCE-DOCUMENT delimiter lines' } });
  const reply = await answer(request, doc);
  const usage = { input_tokens: null, output_tokens: null, cost_usd: null, provider_reported: false };
  print({ ok: true, reply, stop: 'complete', usage, model: null, agent_version: version });
}
