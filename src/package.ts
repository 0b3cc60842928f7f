/**
 * Where this package is installed: the folder of its package.json, found by walking up from
 * this module, so it holds whether the code runs from src/ (tests), dist/src/ (the compiled
 * modules that the adapter programs use) or the single file dist/cli.js (the CLI). Folders
 * that ship with the package (prompts/, dist/adapters/) are found from here, never from the
 * path of the module that asks.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_NAME = 'bounce-runner';

interface Found {
  root: string;
  version: string;
}
let found: Found | undefined;

function find(): Found {
  if (found) return found;
  const here = fileURLToPath(import.meta.url);
  for (let dir = dirname(here); ; ) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === PACKAGE_NAME) return (found = { root: dir, version: typeof pkg.version === 'string' ? pkg.version : '0.0.0' });
    } catch {
      // No package.json here, or not one that reads: look further up.
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package root above ${here}`);
    dir = up;
  }
}

/** The package's root folder. */
export const packageRoot = (): string => find().root;

/** The package's version, from its package.json. */
export const packageVersion = (): string => find().version;
