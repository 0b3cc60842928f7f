#!/usr/bin/env node
// Scanner time on hostile documents (test/fixtures/hostile-markdown.mjs, and the disguise
// scan's in test/fixtures/hostile-disguises.mjs), each at two sizes:
// linear work keeps the ratio of the two times near the ratio of the sizes. Run alone
// (npm run build, then node bench/scanner-hostile.mjs; HOSTILE_SIZES=40000,80000 for
// others) or call hostileRows() from bench/run.mjs. It reports; it never fails.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { scanNotes } from '../dist/src/protocol/scanner.js';
import { HOSTILE_DISGUISES } from '../test/fixtures/hostile-disguises.mjs';
import { HOSTILE_MARKDOWN } from '../test/fixtures/hostile-markdown.mjs';

function time(text, opts = {}) {
  const times = [];
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    scanNotes(text, { syntax: 'markdown', ...opts });
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[1];
}

/** Rows of [what, value, target], as bench/run.mjs prints them. */
export function hostileRows(sizes = [1_000_000, 4_000_000]) {
  return [...HOSTILE_MARKDOWN, ...HOSTILE_DISGUISES].map(([name, make, opts]) => {
    const ms = sizes.map((size) => time(make(size), opts));
    const kb = sizes.map((size) => `${Math.round(size / 1000)} KB`).join(', ');
    return [`scan, ${name} (${kb})`, ms.map((t) => `${t.toFixed(0)} ms`).join(', '), 'target: < 500 ms per MB'];
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const sizes = (process.env.HOSTILE_SIZES ?? '').split(',').filter(Boolean).map(Number);
  for (const [what, value, target] of hostileRows(sizes.length ? sizes : undefined)) console.log(`${what.padEnd(72)} ${value.padStart(18)}   ${target}`);
}
