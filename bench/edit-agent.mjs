#!/usr/bin/env node
// The agent of the edit-reply rows of npm run bench (bench/edits.mjs), an adapter program
// (docs/adapter-contract.md) that makes a few local changes per pass, the same in either
// edit format: a reviewer rewrites two lines and adds two notes, a composer (or any final
// pass) settles every note by rewriting the line it refers to. Asked for edit blocks, it
// sends only its changes as blocks; otherwise the whole revised document.
import { editBlocksFor, EDIT_MARKERS } from '../dist/src/text/edit-blocks.js';

const VERSION = 'edit-agent 1.0.0';
const DOC = /<<<BOUNCE-DOCUMENT-([0-9a-f]+)>>>\n([\s\S]*?)\n?<<<END-BOUNCE-DOCUMENT-\1>>>/;
const NOTE = /^\[CONTESTED\] /;
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

/** Lines that end a paragraph (a non-blank line followed by a blank one), outside the title. */
function paragraphEnds(lines) {
  const out = [];
  for (let i = 2; i + 1 < lines.length; i++) if (lines[i].trim() !== '' && lines[i + 1].trim() === '' && !NOTE.test(lines[i])) out.push(i);
  return out;
}

function review(doc, pass) {
  const lines = doc.split('\n');
  const ends = paragraphEnds(lines);
  const pick = (k) => ends[(pass * 7 + k * 13) % ends.length];
  const [a, b, c, d] = [0, 1, 2, 3].map(pick);
  for (const i of [a, b]) lines[i] = lines[i].replace(/\.$/, `, as pass ${pass} states more precisely.`);
  // Notes go in from the bottom up, so the indices above them stay valid.
  for (const i of [c, d].sort((x, y) => y - x))
    lines.splice(i + 1, 0, '', `[CONTESTED] Line ${i + 1} leaves the retry budget open. State it: two retries, then fail.`);
  return lines.join('\n');
}

function resolve(doc) {
  const lines = doc.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    if (NOTE.test(lines[i])) {
      // Drop the blank line before the note and settle the line it refers to.
      out.pop();
      out[out.length - 1] = out[out.length - 1].replace(/\.$/, ', with two retries and then a failure.');
      continue;
    }
    out.push(lines[i]);
  }
  return out.join('\n');
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
if (process.argv.includes('--check')) {
  print({ ok: true, version: VERSION, problems: [], warnings: [], resolved: {} });
} else {
  const req = JSON.parse(input);
  const doc = DOC.exec(req.prompt)?.[2];
  if (doc === undefined) print({ ok: false, error: { type: 'config', message: 'no document between BOUNCE-DOCUMENT delimiter lines' } });
  else {
    const revised = req.role === 'reviewer' && !req.final ? review(doc, req.pass) : resolve(doc);
    const frame = req.prompt.replace(DOC, '');
    const edits = frame.split('\n').some((line) => line.trim() === EDIT_MARKERS.search);
    const reply = (edits && editBlocksFor(doc, revised)) || revised;
    const usage = { input_tokens: null, output_tokens: null, cost_usd: null, provider_reported: false };
    print({ ok: true, reply, stop: 'complete', usage, model: null, agent_version: VERSION });
  }
}
