#!/usr/bin/env node
// The launcher: loads the CLI, one CommonJS file (dist/cli.cjs, built by `npm run build` and
// by `npm ci` via prepare), reusing V8's compiled code from dist/cli.cjs.cache when that was
// made for this file and this Node. Without a usable cache it compiles the file as usual and,
// after the command, writes one for the next start (silently skipped where the folder cannot
// be written). It is CommonJS (bin/package.json says so), so Node starts no ES module loader.
'use strict';

// A Ctrl-C while the CLI loads is counted, not fatal: main() then ends with exit 130 like any
// interruption. This comes first, before anything is loaded: a signal that arrives earlier
// still, while Node itself starts, ends the process by that signal (docs/faults.md).
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let signals = 0;
const early = () => {
  signals += 1;
};
for (const sig of SIGNALS) process.on(sig, early);

const { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { Module } = require('node:module');
const vm = require('node:vm');

const file = join(__dirname, '..', 'dist', 'cli.cjs');
if (!existsSync(file)) {
  process.stderr.write('bounce: this copy is not built yet: run npm run build (or npm ci) in its folder\n');
  process.exit(2);
}

/** Compiles and runs the file as CommonJS with the cached code, if any; returns its exports, and the script when a cache is to be written. */
function load() {
  const cacheFile = `${file}.cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache yet.
  }
  const script = new vm.Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
  const mod = { exports: {} };
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(file), mod, file, dirname(file));
  return { exports: mod.exports, script: cachedData === undefined || script.cachedDataRejected ? script : null, cacheFile };
}

/**
 * Writes V8's code for the file, with what this command compiled, for the next start. The
 * temporary file is opened first, so where the folder cannot be written (a package installed
 * by another user) no time goes into serialising code; any failure is ignored.
 */
function saveCache(script, cacheFile) {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  let fd;
  try {
    fd = openSync(tmp, 'wx', 0o644);
    writeSync(fd, script.createCachedData());
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, cacheFile);
  } catch {
    try {
      if (fd !== undefined) closeSync(fd);
      rmSync(tmp, { force: true });
    } catch {
      // A folder that cannot be written has no temporary file to remove.
    }
  }
}

const { exports: cli, script, cacheFile } = load();
// main() takes over the signals before it returns its promise; only then does this listener go,
// so that there is always one (removing a signal's last listener resets it to the default, which ends the process).
const ran = cli.main(process.argv, undefined, { signals });
for (const sig of SIGNALS) process.off(sig, early);
ran.then((code) => {
  process.exitCode = code;
  if (script) saveCache(script, cacheFile);
  // The process ends by process.exit once stdout and stderr have taken everything, not by
  // letting the event loop run dry: at such an exit Node first closes its signal watchers and
  // then tears down, and a signal in between ended the process by that signal (143 after a
  // run that had converged). Until process.exit the listener main() keeps stays in place.
  let pending = 2;
  // A write that failed (its reader went away) ends a tick later: the stream's 'error' comes
  // after the callback, and bounce's handler of it says on stderr what the reader missed.
  let failed = false;
  const written = (err) => {
    if (err) failed = true;
    if (--pending > 0) return;
    // A write to stdout that failed for want of space (not a reader gone) raised process.exitCode to 2 (src/cli.ts).
    if (failed) setImmediate(() => process.exit(process.exitCode ?? code));
    else process.exit(process.exitCode ?? code);
  };
  process.stdout.write('', written);
  process.stderr.write('', written);
});
