#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (npm run build).
import { main } from '../dist/src/cli.js';

main(process.argv).then((code) => {
  process.exitCode = code;
});
