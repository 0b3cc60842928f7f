import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ZodError } from 'zod';
import { usageError } from '../errors.js';
import { MANIFEST_FILE, readManifest, type RunManifest } from './manifest.js';

export interface RunEntry {
  dir: string;
  manifest: RunManifest | null;
  error?: string;
}

const isDir = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** A folder is a run folder when it has run.json or an audit trail. */
const looksLikeRun = (dir: string): boolean => existsSync(join(dir, MANIFEST_FILE)) || isDir(join(dir, 'audit'));

/** `<slug>-<yyyymmdd-hhmmss>-<xxxxxx>` -> ISO time, for runs whose run.json cannot be read. */
function stampOf(name: string): string | null {
  const m = /(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-[0-9A-Za-z]{6}$/.exec(name);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z` : null;
}

/** One line saying why run.json could not be read (a parser's message quotes the file, line breaks and all: made one line). */
export function manifestProblem(dir: string, err: unknown): string {
  if (!existsSync(join(dir, MANIFEST_FILE))) return 'run.json is missing';
  const line = (text: string): string => text.replace(/\s+/g, ' ').trim();
  if (err instanceof SyntaxError) return `run.json is not JSON: ${line(err.message)}`;
  if (err instanceof ZodError) {
    const issue = err.issues[0];
    return `run.json does not match its schema${issue ? `: ${issue.path.join('.') || '(root)'}: ${line(issue.message)}` : ''}`;
  }
  return `run.json cannot be read: ${line(err instanceof Error ? err.message : String(err))}`;
}

function readEntry(dir: string): RunEntry {
  try {
    return { dir, manifest: readManifest(dir) };
  } catch (err) {
    return { dir, manifest: null, error: manifestProblem(dir, err) };
  }
}

/** Every run folder in runsDir, newest first (created_at, else the time in the name, else the name). */
export function listRuns(runsDir: string): RunEntry[] {
  if (!isDir(runsDir)) return [];
  const entries = readdirSync(runsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .map((d) => readEntry(join(runsDir, d.name)));
  const key = (e: RunEntry): string => {
    const created = e.manifest ? Date.parse(e.manifest.created_at) : NaN;
    return Number.isNaN(created) ? (stampOf(basename(e.dir)) ?? '') : new Date(created).toISOString();
  };
  return entries.sort((a, b) => key(b).localeCompare(key(a)) || basename(b.dir).localeCompare(basename(a.dir)));
}

/**
 * The runs whose id holds `part` (case aside: a ULID tail is Crockford base32). When several
 * do, the one whose id starts with it is meant, as long as only one does.
 */
export function runsMatching(part: string, names: string[]): string[] {
  const p = part.toLowerCase();
  const matches = names.filter((n) => n.toLowerCase().includes(p)).sort();
  const prefixed = matches.filter((n) => n.toLowerCase().startsWith(p));
  return matches.length > 1 && prefixed.length === 1 ? prefixed : matches;
}

/**
 * `<run>` as every command takes it: a path to a run folder, a run id, any part of an id
 * that only one run in runsDir has (a prefix, the ULID tail), or `latest`. Anything else
 * is a usage error naming what exists.
 */
export function resolveRunDir(arg: string, runsDir: string, cwd: string): string {
  const root = resolve(cwd, runsDir);
  if (arg === '') throw usageError('no run given', 'pass a run id, a part of one only that run has, a path to a run folder, or latest');
  if (arg === 'latest') {
    const newest = listRuns(root)[0];
    if (!newest) throw usageError(`no runs in ${root}`, 'run `bounce refine <file>` first, or pass --runs-dir');
    return newest.dir;
  }
  const byId = join(root, arg);
  if (!arg.includes('/') && !arg.includes('\\') && isDir(byId)) return byId;
  const byPath = resolve(cwd, arg);
  if (isDir(byPath) && looksLikeRun(byPath)) return byPath;
  const names = isDir(root)
    ? readdirSync(root, { withFileTypes: true })
        .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
        .map((d) => d.name)
    : [];
  const matches = runsMatching(arg, names);
  if (matches.length === 1) return join(root, matches[0]!);
  if (matches.length > 1) {
    const shown = matches.slice(0, 10).join(', ') + (matches.length > 10 ? `, and ${matches.length - 10} more` : '');
    throw usageError(`run "${arg}" is ambiguous: it matches ${shown}`, 'give more of the id, or the whole id');
  }
  const known = listRuns(root)
    .slice(0, 5)
    .map((e) => basename(e.dir));
  const hint =
    known.length > 0
      ? `runs in ${root}: ${known.join(', ')}${names.length > 5 ? ', ...' : ''} (or latest)`
      : `there are no runs in ${root}; pass --runs-dir or a path to a run folder`;
  throw usageError(`no run matches "${arg}"`, hint);
}

/**
 * The run folders a command of several runs acts on (`resume`, `replay`): each named one once,
 * in the order given, or with `batch` every run of that batch in the runs folder, oldest first.
 * `verb` is the command's, for the messages ("resumes", "replays").
 */
export function selectRunDirs(sel: { runs: readonly string[]; batch?: string | undefined }, runsDir: string, cwd: string, verb: string): string[] {
  if (sel.batch !== undefined) {
    if (sel.runs.length > 0) throw usageError(`--batch ${verb} the runs of one batch: name no run besides it`, 'drop the run ids, or drop --batch');
    const found = listRuns(runsDir)
      .filter((e) => e.manifest?.batch_id === sel.batch)
      .reverse()
      .map((e) => e.dir);
    if (found.length === 0)
      throw usageError(
        `no runs of batch ${sel.batch} in ${runsDir}`,
        'check the id (bounce refine prints it, and run.json has it as batch_id), or pass --runs-dir',
      );
    return found;
  }
  const dirs: string[] = [];
  for (const arg of sel.runs) {
    const dir = resolveRunDir(arg, runsDir, cwd);
    if (!dirs.includes(dir)) dirs.push(dir);
  }
  return dirs;
}
