import { type Dirent, readdir as readdirCallback } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { usageError } from './errors.js';
import { pushAll } from './arrays.js';

/**
 * The documents a command's path arguments name (scan, lint, refine of several documents):
 * files, folders (their .md, .markdown, .mdx and .txt files) and globs, optionally only those
 * changed since a git ref.
 */
export interface Input {
  /** As every report shows it: relative to the working directory, forward slashes; `<stdin>` for `-`. */
  label: string;
  /** As given (relative to the working directory), or undefined for stdin. */
  path: string | undefined;
}

/** Extensions taken when a folder is given (a glob or a file path may name anything). */
export const FOLDER_EXTENSIONS = /\.(?:md|markdown|mdx|txt)$/i;
export const STDIN_LABEL = '<stdin>';

/** resolveInputs, then with `changed` only the files git lists as changed since that ref (stdin stays). */
export async function selectInputs(patterns: string[], cwd: string, changed?: string): Promise<Input[]> {
  const inputs = await resolveInputs(patterns, cwd);
  if (changed === undefined) return inputs;
  const { changedFiles } = await import('./git/changed-files.js');
  const files = await changedFiles(cwd, changed);
  return inputs.filter((i) => i.path === undefined || files.has(resolve(cwd, i.path)));
}

/**
 * A path as bounce shows it, the one function for it: relative to the working directory `cwd`
 * with forward slashes. `outside` says what a path not below `cwd` becomes: `relative`
 * (`../x.md`: a document's name, as every format shows it) or `absolute` (a file or folder
 * bounce wrote, such as a run folder or an output, where `../../x` helps no one); with
 * `absolute`, `cwd` itself is shown absolute too.
 */
export function displayPath(path: string, cwd: string, outside: 'relative' | 'absolute' = 'relative'): string {
  const rel = relative(cwd, resolve(cwd, path));
  if (outside === 'absolute' && (rel === '' || rel.startsWith('..') || isAbsolute(rel))) return path;
  return sep === '/' ? rel : rel.split(sep).join('/');
}

/** Whether an argument is a glob, by tinyglobby's own test: loaded only for a path that is not there. */
export async function isGlob(pattern: string): Promise<boolean> {
  const { isDynamicPattern } = await import('tinyglobby');
  return isDynamicPattern(pattern);
}

/** Arguments in order; within a folder or glob, sorted. A file named twice is scanned once. */
export async function resolveInputs(patterns: string[], cwd: string): Promise<Input[]> {
  const seen = new Set<string>();
  const inputs: Input[] = [];
  const add = (label: string, path: string | undefined, key = path === undefined ? '-' : resolve(cwd, path)): void => {
    if (!seen.has(key)) inputs.push({ label, path });
    seen.add(key);
  };
  for (const pattern of patterns) {
    if (pattern === '-') {
      add(STDIN_LABEL, undefined);
      continue;
    }
    const kind = await pathKind(resolve(cwd, pattern), pattern);
    if (kind === 'file') add(displayPath(pattern, cwd), pattern);
    else if (kind === 'dir') {
      const root = resolve(cwd, pattern);
      const found = await walk(root, '', undefined, (path) => displayPath(path, cwd, 'absolute'));
      if (found.length === 0) throw usageError(`no .md, .markdown, .mdx or .txt files in folder ${pattern}`, 'name the files, or use a glob');
      // The folder's path is worked out once, not for each of its files (a tree can hold thousands): `rel` is normalised.
      const shown = displayPath(pattern, cwd);
      const under = root.endsWith(sep) ? root : root + sep;
      for (const rel of found) {
        const label = sep === '/' ? rel : rel.split(sep).join('/');
        add(shown === '' ? label : `${shown}/${label}`, join(pattern, rel), under + rel);
      }
    } else if (await isGlob(pattern)) {
      const found = await globFiles(pattern, cwd, (path) => displayPath(path, cwd, 'absolute'));
      if (found.length === 0) throw usageError(`no files match ${pattern}`, 'check the pattern (quote it so the shell leaves it alone)');
      for (const rel of found) add(displayPath(rel, cwd), rel);
    } else throw usageError(`no such file or folder: ${pattern}`, 'check the path (relative to the current folder)');
  }
  return inputs;
}

/**
 * Whether a path a user gave is a folder, something else, or not there. A path bounce may not
 * look at (a folder on the way has no search permission) is a usage error naming `label`, not
 * "no such file".
 */
export async function pathKind(path: string, label: string): Promise<'dir' | 'file' | 'missing'> {
  try {
    return (await stat(path)).isDirectory() ? 'dir' : 'file';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM')
      throw usageError(`cannot read ${label} (${code}: permission denied)`, 'give bounce search permission on the folders on its path (chmod u+x)');
    return 'missing';
  }
}

/**
 * Scannable files (or those `take` accepts) under a folder, relative to it; skips node_modules,
 * hidden entries and symlinks. A folder in it that cannot be listed (no read or search
 * permission, or /proc/1/fd as another user) is a usage error naming it, shown as `shown`
 * shows a path (relative to the working directory, or absolute outside it), after `what`
 * (e.g. `--context: `).
 */
export async function walk(
  dir: string,
  prefix = '',
  take: (name: string) => boolean = (name) => FOLDER_EXTENSIONS.test(name),
  shown: (path: string) => string = (path) => path,
  what = '',
): Promise<string[]> {
  const folder = join(dir, prefix);
  const entries = (
    await readdir(folder, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      throw unlistable(shown(folder), what, err);
    })
  ).sort((a, b) => (a.name < b.name ? -1 : 1));
  const out: string[] = [];
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const rel = join(prefix, e.name);
    if (e.isDirectory()) pushAll(out, await walk(dir, rel, take, shown, what));
    else if (e.isFile() && take(e.name)) out.push(rel);
  }
  return out;
}

/**
 * The files a glob matches, relative to `cwd`, sorted (hidden entries and node_modules left
 * out). A folder the glob had to look in but could not list (no permission) is a usage error,
 * as it is under a folder argument: a file in it must not drop out of a scan unseen.
 */
export async function globFiles(pattern: string, cwd: string, shown: (path: string) => string, what = ''): Promise<string[]> {
  const { glob } = await import('tinyglobby');
  let denied: { path: string; err: NodeJS.ErrnoException } | undefined;
  type Done = (err: NodeJS.ErrnoException | null, entries: Dirent[]) => void;
  const listing = (path: string, options: { withFileTypes: true }, done: Done): void =>
    readdirCallback(path, options, (err, entries) => {
      if (err && denied === undefined && (err.code === 'EACCES' || err.code === 'EPERM')) denied = { path: resolve(cwd, path), err };
      done(err, entries);
    });
  const found = await glob(pattern, {
    cwd,
    onlyFiles: true,
    expandDirectories: false,
    ignore: ['**/node_modules/**'],
    fs: { readdir: listing as unknown as typeof readdirCallback },
  });
  if (denied) throw unlistable(shown(denied.path), what, denied.err);
  return found.sort();
}

/** A folder that could not be listed: an input error naming it and its errno, not a crash. */
function unlistable(folder: string, what: string, err: NodeJS.ErrnoException): Error {
  if (typeof err?.code !== 'string') return err;
  const denied = err.code === 'EACCES' || err.code === 'EPERM';
  return usageError(
    `${what}cannot list folder ${folder} (${err.code}${denied ? ': permission denied' : ''})`,
    denied
      ? 'give bounce read and search permission on it (chmod u+rx), or name the files to read (or a glob that leaves it out)'
      : 'check that it exists and is readable, or name the files to read',
  );
}
