import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { usageError } from '../errors.js';
import { writeFileAtomic } from '../store/atomic.js';
import { sha256 } from '../store/hash.js';
import type { OutputTarget } from './plan.js';

export interface OutputFlags {
  out?: string;
  inPlace?: boolean;
  json?: boolean;
}

/** Decides where a converged document goes and refuses combinations that would lose data. */
export function outputTarget(flags: OutputFlags, inputPath: string | null, cwd: string): OutputTarget {
  if (flags.inPlace) {
    if (!inputPath) throw usageError('--in-place needs a file, not stdin', 'name the document file, or use --out FILE', 'usage');
    if (flags.out !== undefined) throw usageError('--in-place and --out both name an output', 'choose one of them', 'usage');
    return { kind: 'in-place', path: inputPath };
  }
  if (flags.out === undefined) return { kind: 'run' };
  if (flags.out === '-') {
    if (flags.json) throw usageError('--out - and --json both want stdout', 'use --out FILE with --json, or drop --json', 'usage');
    return { kind: 'stdout' };
  }
  const path = resolve(cwd, flags.out);
  if (inputPath && sameFile(path, inputPath))
    throw usageError(`--out ${flags.out} is the input document`, 'use --in-place to overwrite the input, or pick another file', 'usage');
  if (existsSync(path) && statSync(path).isDirectory())
    throw usageError(`--out ${flags.out} is a folder`, 'name a file to write, e.g. --out refined.md', 'usage');
  if (!existsSync(dirname(path)) || !statSync(dirname(path)).isDirectory())
    throw usageError(`the folder of --out ${flags.out} does not exist`, 'create it first or pick another path', 'usage');
  return { kind: 'file', path };
}

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return existsSync(a) && realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * Writes the converged document to its target, atomically. In place is refused when the
 * input changed since the run began (someone else edited it: their work wins), unless it
 * already holds this very document (a crash came between that write and run.json's).
 */
export function writeOutput(target: OutputTarget, text: string, inputSha: string): { path: string | null; sha256: string } {
  const sha = sha256(text);
  switch (target.kind) {
    case 'run':
      return { path: null, sha256: sha };
    case 'stdout':
      // The command prints it: the engine never writes to the terminal.
      return { path: null, sha256: sha };
    case 'file':
      writeFileAtomic(target.path, text);
      return { path: target.path, sha256: sha };
    case 'in-place': {
      const now = existsSync(target.path) ? sha256(readFileSync(target.path)) : null;
      if (now === sha) return { path: target.path, sha256: sha };
      if (now !== inputSha)
        throw usageError(
          `${target.path} changed since the run began, so it was not overwritten`,
          'the converged document is in the run folder as final.*; merge it by hand',
          'input',
        );
      // Write through a symlink to its target and keep the file's permissions.
      const real = realpathSync(target.path);
      writeFileAtomic(real, text, statSync(real).mode & 0o7777);
      return { path: target.path, sha256: sha };
    }
  }
}

export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') ? rel : path;
}
