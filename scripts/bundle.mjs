#!/usr/bin/env node
// The CLI as one CommonJS file, dist/cli.cjs, which bin/bounce.js loads with a V8 code cache
// (dist/cli.cjs.cache): at start-up one file is read and its compiled code reused, instead of
// about a hundred ES modules resolved, linked and compiled. Run by `npm run build` after tsc,
// whose output (dist/src, dist/adapters) the adapter programs still run from.
// - Dynamic imports stay lazy inside the file: a command's code (and a package used on some
//   paths only, as tinyglobby is) runs only when it is used. None is left as a
//   real import(): code compiled from a code cache cannot load ES modules, so the build
//   fails if one is. The yaml package is bundled too and initialised on first use (src/yaml.ts).
// - A stale code cache is removed, and one mock run writes a fresh one (the launcher writes
//   it when it finds none), so the first real run already starts warm.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'dist', 'cli.cjs');

await build({
  entryPoints: [join(ROOT, 'src', 'cli.ts')],
  outfile: OUT,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // Modules find the package from their own URL (src/package.ts): in the one file, that is the file's.
  define: { 'import.meta.url': 'bounceBundleUrl' },
  banner: { js: "const bounceBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  legalComments: 'none',
  logLevel: 'warning',
});

const bundled = readFileSync(OUT, 'utf8');
const left = /\bimport\((?!\s*\))/.exec(bundled);
if (left) throw new Error(`dist/cli.cjs still holds a dynamic import() at offset ${left.index}: bundle that module, or require it`);
// esbuild escapes the non-ASCII characters of strings but keeps those of regex literals and
// String.raw templates as written, and a single character above U+00FF makes V8 hold the whole
// source as two-byte text: 3 MB more at every start.
const wide = /[^\x00-\x7f]/.exec(bundled);
if (wide) {
  const at = bundled.slice(Math.max(0, wide.index - 50), wide.index + 10).replace(/\s+/g, ' ');
  throw new Error(`dist/cli.cjs holds the non-ASCII character U+${wide[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')} in code, near ${JSON.stringify(at)}: write it as a \\u escape in the source`);
}

rmSync(`${OUT}.cache`, { force: true });
const dir = mkdtempSync(join(tmpdir(), 'bounce-warm-'));
try {
  writeFileSync(join(dir, 'doc.md'), '# Warm-up\n\nA short document that two mock agents refine once each.\n');
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: join(dir, 'cache'), NO_COLOR: '1' };
  execFileSync(process.execPath, [join(ROOT, 'bin', 'bounce.js'), 'refine', 'doc.md', '-r', 'mock', '-c', 'mock', '--all-passes', '--quiet'], {
    cwd: dir,
    env,
    stdio: 'ignore',
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
