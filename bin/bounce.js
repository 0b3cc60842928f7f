#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm run build`, and by `npm ci` via prepare).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/src/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('bounce: this copy is not built yet: run npm run build (or npm ci) in its folder\n');
  process.exit(2);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv);
