#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm run build`, and by `npm ci` via prepare).
import { existsSync } from 'node:fs';

// A Ctrl-C while the CLI loads is counted, not fatal: main() then ends with exit 130 like any interruption.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let signals = 0;
const early = () => {
  signals += 1;
};
for (const sig of SIGNALS) process.on(sig, early);

const cli = new URL('../dist/src/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('bounce: this copy is not built yet: run npm run build (or npm ci) in its folder\n');
  process.exit(2);
}
const { main } = await import(cli.href);
for (const sig of SIGNALS) process.off(sig, early);
process.exitCode = await main(process.argv, undefined, { signals });
