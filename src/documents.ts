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
  const add = (label: string, path: string | undefined): void => {
    const key = path === undefined ? '-' : resolve(cwd, path);
    if (!seen.has(key)) inputs.push({ label, path });
    seen.add(key);
  };
  for (const pattern of patterns) {
    if (pattern === '-') {
      add(STDIN_LABEL, undefined);
      continue;
    }
    const kind = await stat(resolve(cwd, pattern)).then(
      (s) => (s.isDirectory() ? 'dir' : 'file'),
      () => 'missing',
    );
    if (kind === 'file') add(displayPath(pattern, cwd), pattern);
    else if (kind === 'dir') {
      const found = await walk(resolve(cwd, pattern));
      if (found.length === 0) throw usageError(`no .md, .markdown, .mdx or .txt files in folder ${pattern}`, 'name the files, or use a glob');
      for (const rel of found) add(displayPath(join(pattern, rel), cwd), join(pattern, rel));
    } else if (await isGlob(pattern)) {
      const { glob } = await import('tinyglobby');
      const found = (await glob(pattern, { cwd, onlyFiles: true, expandDirectories: false, ignore: ['**/node_modules/**'] })).sort();
      if (found.length === 0) throw usageError(`no files match ${pattern}`, 'check the pattern (quote it so the shell leaves it alone)');
      for (const rel of found) add(displayPath(rel, cwd), rel);
    } else throw usageError(`no such file or folder: ${pattern}`, 'check the path (relative to the current folder)');
  }
  return inputs;
}

/** Scannable files (or those `take` accepts) under a folder, relative to it; skips node_modules, hidden entries and symlinks. */
export async function walk(dir: string, prefix = '', take: (name: string) => boolean = (name) => FOLDER_EXTENSIONS.test(name)): Promise<string[]> {
  const entries = (await readdir(join(dir, prefix), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const out: string[] = [];
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const rel = join(prefix, e.name);
    if (e.isDirectory()) pushAll(out, await walk(dir, rel, take));
    else if (e.isFile() && take(e.name)) out.push(rel);
  }
  return out;
}
