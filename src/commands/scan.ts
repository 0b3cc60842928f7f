import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { EXIT, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { decodeText, readBounded } from '../text-input.js';
import { DEFAULT_CONFIG, MARKER_NAME, MARKER_NAME_RULE } from '../config/schema.js';
import { mdxForPath, scanNotes, syntaxForPath, type Note, type Syntax } from '../protocol/scanner.js';

export interface ScanCommandOptions {
  patterns: string[];
  json?: boolean;
  markers?: string[];
  /** Force a syntax for every input instead of choosing by extension (and MDX by `.mdx`). */
  syntax?: Syntax;
  /** Largest input in bytes, per file: config `max_bytes`, the limit refine applies. */
  maxBytes?: number;
}

interface Input {
  label: string;
  path: string | undefined;
}

/** Extensions scanned when a folder is given (a glob or a file path may name anything). */
const FOLDER_EXTENSIONS = /\.(?:md|markdown|mdx|txt)$/i;
/** Files read at once: a tree of thousands of files must not exhaust open file descriptors. */
const READ_CONCURRENCY = 32;
const STDIN_LABEL = '<stdin>';

/** `bounce scan`: lists notes as `file:line:col KIND text`; exit 0 when none, 1 when any. */
export async function runScan(opts: ScanCommandOptions, io: Io): Promise<number> {
  if (opts.patterns.length === 0) throw usageError('bounce scan needs a file, folder or glob', "try 'bounce scan docs/' or 'bounce scan -' for stdin");
  for (const name of opts.markers ?? []) {
    if (!MARKER_NAME.test(name)) throw usageError(`invalid marker name ${JSON.stringify(name.slice(0, 40))}`, MARKER_NAME_RULE);
  }
  const inputs = await resolveInputs(opts.patterns, io.cwd);
  const maxBytes = opts.maxBytes ?? DEFAULT_CONFIG.max_bytes;
  // Scan everything first so an unreadable input fails before any output.
  const files = await mapLimited(inputs, READ_CONCURRENCY, async (input) => ({
    path: input.label,
    notes: scanNotes(await readInput(input, io, maxBytes), {
      syntax: opts.syntax ?? syntaxForPath(input.path),
      mdx: opts.syntax === undefined && mdxForPath(input.path),
      markers: opts.markers,
    }),
  }));
  const total = files.reduce((sum, f) => sum + f.notes.length, 0);
  const exitCode = total === 0 ? EXIT.ok : EXIT.notConverged;

  if (opts.json) {
    const json = { files: files.map((f) => ({ path: f.path, notes: f.notes.map(publicNote) })), total, exitCode };
    io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return exitCode;
  }
  for (const f of files) {
    for (const n of f.notes) io.stdout.write(`${f.path}:${n.line}:${n.column} ${n.kind} ${n.text}\n`);
  }
  io.stderr.write(`${summary(total, files)}\n`);
  return exitCode;
}

function publicNote(n: Note): Pick<Note, 'kind' | 'line' | 'column' | 'text' | 'canonical' | 'refersTo'> {
  return { kind: n.kind, line: n.line, column: n.column, text: n.text, canonical: n.canonical, refersTo: n.refersTo };
}

function summary(total: number, files: { notes: Note[] }[]): string {
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  const scanned = plural(files.length, 'file');
  if (total === 0) return `no notes (${scanned} scanned)`;
  const withNotes = files.filter((f) => f.notes.length > 0).length;
  return `${plural(total, 'note')} in ${plural(withNotes, 'file')} (${scanned} scanned)`;
}

/** Arguments in order; within a folder or glob, sorted. A file named twice is scanned once. */
async function resolveInputs(patterns: string[], cwd: string): Promise<Input[]> {
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
    if (kind === 'file') add(pattern, pattern);
    else if (kind === 'dir') {
      const found = await walk(resolve(cwd, pattern));
      if (found.length === 0) throw usageError(`no .md, .markdown, .mdx or .txt files in folder ${pattern}`, 'name the files, or use a glob');
      for (const rel of found) add(join(pattern, rel), join(pattern, rel));
    } else if (isDynamicPattern(pattern)) {
      const found = (await glob(pattern, { cwd, onlyFiles: true, expandDirectories: false, ignore: ['**/node_modules/**'] })).sort();
      if (found.length === 0) throw usageError(`no files match ${pattern}`, 'check the pattern (quote it so the shell leaves it alone)');
      for (const rel of found) add(rel, rel);
    } else throw usageError(`no such file or folder: ${pattern}`, 'check the path (relative to the current folder)');
  }
  return inputs;
}

/** Scannable files under a folder, relative to it; skips node_modules, hidden entries and symlinks. */
async function walk(dir: string, prefix = ''): Promise<string[]> {
  const entries = (await readdir(join(dir, prefix), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const out: string[] = [];
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const rel = join(prefix, e.name);
    if (e.isDirectory()) out.push(...(await walk(dir, rel)));
    else if (e.isFile() && FOLDER_EXTENSIONS.test(e.name)) out.push(rel);
  }
  return out;
}

/** fn over items with at most `limit` calls pending; results in input order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function readInput(input: Input, io: Io, maxBytes: number): Promise<string> {
  let bytes: Buffer | undefined;
  let size: number;
  try {
    if (input.path === undefined) bytes = await readBounded(io.stdin, maxBytes);
    else {
      const path = resolve(io.cwd, input.path);
      size = (await stat(path)).size; // an oversized file is never read
      if (size <= maxBytes) bytes = await readFile(path);
    }
    size = bytes?.length ?? size!;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw usageError(`cannot read ${input.label} (${code})`, 'check that it exists and is readable');
  }
  if (bytes === undefined || size > maxBytes) {
    const what = input.path === undefined ? `more than ${maxBytes} bytes` : `${size} bytes, over the ${maxBytes}-byte limit`;
    throw usageError(`${input.label} is ${what}`, 'raise max_bytes in bounce.config.yaml, or scan it in parts');
  }
  return decodeText(bytes, input.label);
}
