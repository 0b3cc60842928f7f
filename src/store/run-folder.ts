import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ulid } from 'ulid';
import { usageError } from '../errors.js';

/** `<slug>-<UTC yyyymmdd-hhmmss>-<last 6 of a ULID>`: sortable, unique, readable. */
export function makeRunId(name: string, now = new Date(), id = ulid(now.getTime()), isFileName = true): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${slugifyName(name, isFileName)}-${stamp}-${id.slice(-6)}`;
}

export function slugifyName(name: string, stripExtension = true): string {
  const file = name.replace(/.*[\\/]/, '');
  const base = stripExtension ? file.replace(/\.[^.]+$/, '') : file;
  return (
    base
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'doc'
  );
}

/**
 * Checks that the runs dir can be created or written before anything else happens,
 * so a bad `--runs-dir` fails as a usage error without leaving a half-made run.
 */
export function assertRunsDirWritable(runsDir: string): void {
  let probe = runsDir;
  while (!existsSync(probe)) {
    const parent = join(probe, '..');
    if (parent === probe) break;
    probe = parent;
  }
  try {
    if (!statSync(probe).isDirectory()) throw new Error('not a directory');
    accessSync(probe, constants.W_OK);
  } catch {
    throw usageError(`runs dir is not writable: ${runsDir}`, `pass a writable folder with --runs-dir or set runs_dir in ${configInUse()}`, 'input');
  }
}

/** A run folder holds the document, prompts and replies, which may be private: only the owner reads them. */
export const RUN_DIR_MODE = 0o700;
export const RUN_FILE_MODE = 0o600;

export type { AttemptKind } from '../vocabulary.js';
import type { AttemptKind } from '../vocabulary.js';
import { configInUse } from '../config/in-use.js';

/** Artifact stem of one dispatch: `pass-<n>-<role>-<agent>[.retry-<k>|.repair-<k>]`. */
export function dispatchStem(pass: number, role: string, agentSlug: string, kind: AttemptKind, index: number): string {
  const base = `pass-${pass}-${role}-${agentSlug}`;
  return kind === 'pass' ? base : `${base}.${kind}-${index}`;
}
