#!/usr/bin/env node
// bounce verify in npm run bench (or alone: npm run build, then node bench/verify.mjs;
// BENCH_RUNS sets the rounds): 10 documents refined in place by the built-in mock (2 passes)
// and attested, then verified in one call, in-process; the row is the median time per document.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { main } from '../dist/src/cli.js';
import { median } from './timing.mjs';
import { document } from './document.mjs';

const DOCS = 10;

function io(cwd) {
  const sink = () => ({
    text: '',
    write(s) {
      this.text += s;
      return true;
    },
    isTTY: false,
  });
  const stdin = new PassThrough();
  stdin.end();
  return { cwd, env: { PATH: process.env.PATH, NO_COLOR: '1' }, stdout: sink(), stderr: sink(), stdin, signal: new AbortController().signal };
}

async function bounce(cwd, args) {
  const i = io(cwd);
  const code = await main(['node', 'bounce', ...args], i);
  return { code, stdout: i.stdout.text, stderr: i.stderr.text };
}

/** The median milliseconds `bounce verify` takes per document, over `rounds` calls of all of them. */
export async function verifyPerDocument(rounds) {
  const dir = mkdtempSync(join(tmpdir(), 'bounce-bench-verify-'));
  try {
    mkdirSync(join(dir, 'docs'));
    const docs = [];
    for (let i = 0; i < DOCS; i++) {
      const doc = `docs/doc-${i}.md`;
      writeFileSync(join(dir, doc), document(40));
      const r = await bounce(dir, ['refine', doc, '--reviewer', 'mock', '--composer', 'mock', '--in-place', '--quiet']);
      if (r.code !== 0) throw new Error(`bench refine failed with exit ${r.code}: ${r.stderr}`);
      const a = await bounce(dir, ['attest', 'latest']);
      if (a.code !== 0) throw new Error(`bench attest failed with exit ${a.code}: ${a.stderr}`);
      docs.push(doc);
    }
    const times = [];
    for (let k = 0; k < rounds; k++) {
      const t0 = performance.now();
      const r = await bounce(dir, ['verify', ...docs]);
      times.push((performance.now() - t0) / DOCS);
      if (r.code !== 0) throw new Error(`bench verify failed with exit ${r.code}: ${r.stdout}`);
    }
    return median(times);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const ms = await verifyPerDocument(Number(process.env.BENCH_RUNS || 15));
  console.log(`verify, per document (10 attested 2-pass runs)  ${ms.toFixed(1)} ms   target: < 100 ms`);
}
