#!/usr/bin/env node
// The baseline of bench/scan-scale.mjs: every .md file under a folder read and parsed
// with commonmark.js, in one Node process. Usage: node bench/commonmark-parse.mjs <folder>
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from 'commonmark';

const parser = new Parser();
let blocks = 0;
for (const rel of readdirSync(process.argv[2], { recursive: true })) {
  if (!rel.endsWith('.md')) continue;
  const doc = parser.parse(readFileSync(join(process.argv[2], rel), 'utf8'));
  if (doc.firstChild) blocks++;
}
process.stdout.write(`${blocks}\n`);
