#!/usr/bin/env node
// A model server for the batch rows of npm run bench: an OpenAI-compatible Chat Completions
// endpoint on 127.0.0.1 that answers every call after a fixed delay (BENCH_MODEL_DELAY_MS,
// default 1000), as a model would, with the document it was sent, unchanged. It runs in a
// process of its own, so the bench can time bounce with blocking spawns. Prints its port.
import { createServer } from 'node:http';

const DELAY_MS = Number(process.env.BENCH_MODEL_DELAY_MS || 1000);
const DOC = /<<<BOUNCE-DOCUMENT-([0-9a-f]+)>>>\n([\s\S]*?)\n?<<<END-BOUNCE-DOCUMENT-\1>>>/;

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const prompt = JSON.parse(body).messages?.[0]?.content ?? '';
    const doc = DOC.exec(prompt)?.[2] ?? '';
    const reply = {
      id: 'bench',
      object: 'chat.completion',
      model: 'bench-model',
      choices: [{ index: 0, message: { role: 'assistant', content: doc }, finish_reason: 'stop' }],
      usage: { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil(doc.length / 4) },
    };
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    }, DELAY_MS);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
