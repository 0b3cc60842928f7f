/** What `bounce scan` and `bounce lint` share: reading their inputs, and writing a report where it is asked for. */
import { createReadStream, statSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { mapLimited } from '../concurrency.js';
import { type Input, selectInputs } from '../documents.js';
import { type BounceError, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { decodeText, readBounded, readBoundedText, readUserText } from '../text-input.js';
import { DEFAULT_CONFIG, MARKER_NAME, MARKER_NAME_RULE } from '../config/schema.js';
import { configInUse } from '../config/in-use.js';
import { mdxForPath, scanNotes, syntaxForPath, type Note, type ScanOptions, type Syntax } from '../protocol/scanner.js';
import type { Format, Level, Report } from '../formats/finding.js';
import { render } from '../formats/render.js';
import { type GithubOptions, renderGithub, STEP_SUMMARY_LIMIT_BYTES, STEP_SUMMARY_MARGIN_BYTES, stepSummary } from '../formats/github.js';
import { withoutBom } from '../text/lines.js';

export interface InputOptions {
  patterns: string[];
  markers?: string[];
  /** Force a syntax for every input instead of choosing by extension (and MDX by `.mdx`). */
  syntax?: Syntax;
  /** Largest input in bytes, per file: config `max_bytes`, the limit refine applies. */
  maxBytes?: number;
  /** Only files changed since this git ref (see src/git/changed-files.ts). */
  changed?: string;
}

export interface OutputOptions {
  /** `--json` is `--format json`. */
  json?: boolean;
  format?: Format;
  /** Write the report here (atomically) instead of stdout. */
  output?: string;
  /** Severity of every finding in github, sarif and codequality output (default warning; see github.ts NOTE_LEVELS). */
  level?: Level;
  /** `--max-annotations`: github annotations per level (default GITHUB_ANNOTATIONS_PER_LEVEL), as typed. */
  maxAnnotations?: string;
  /** `--changed`: with the github format, notes on the lines changed since this ref come first. */
  changed?: string;
  /** `--sarif FILE`: with the github format, also write the SARIF report there (the overflow notice names it). */
  sarif?: string;
}

/** A scanned input: its display path, its text and its notes. */
export interface ScannedFile {
  path: string;
  source: string;
  notes: Note[];
}

/** Files read at once: a tree of thousands of files must not exhaust open file descriptors. */
const READ_CONCURRENCY = 32;

/** Resolves, filters (--changed) and reads every input, then scans it; an unreadable input fails before any output. */
export async function scanInputs(opts: InputOptions, io: Io): Promise<ScannedFile[]> {
  const files = await readInputs(opts, io);
  return files.map(({ input, source }) => ({ path: input.label, source, notes: scanNotes(source, scanOptions(opts, input)) }));
}

/** An input and its text (without a BOM). */
export interface ReadFile {
  input: Input;
  source: string;
}

/** Every input read (and checked: size, binary, UTF-8) before any is scanned or printed. */
export async function readInputs(opts: InputOptions, io: Io): Promise<ReadFile[]> {
  for (const name of opts.markers ?? []) {
    if (!MARKER_NAME.test(name)) throw usageError(`invalid marker name ${JSON.stringify(name.slice(0, 40))}`, MARKER_NAME_RULE);
  }
  const inputs = await selectInputs(opts.patterns, io.cwd, opts.changed);
  const maxBytes = opts.maxBytes ?? DEFAULT_CONFIG.max_bytes;
  return mapLimited(inputs, READ_CONCURRENCY, async (input) => {
    const source = await readInput(input, io, maxBytes);
    return { input, source: withoutBom(source) };
  });
}

/** How an input is read: its syntax (and MDX) by extension unless --syntax forces one. */
export function scanOptions(opts: InputOptions, input: Input): ScanOptions {
  return { syntax: opts.syntax ?? syntaxForPath(input.path), mdx: opts.syntax === undefined && mdxForPath(input.path), markers: opts.markers };
}

export function outputFormat(opts: OutputOptions): Format {
  if (opts.json && opts.format !== undefined && opts.format !== 'json') throw usageError(`--json and --format ${opts.format} disagree`, 'give one of them');
  const format = opts.json ? 'json' : (opts.format ?? 'text');
  if (opts.sarif !== undefined && format !== 'github')
    throw usageError(
      `--sarif applies to --format github, not ${format}`,
      format === 'sarif' ? 'use --output for the SARIF file' : 'add --format github, or drop --sarif',
    );
  if (opts.maxAnnotations !== undefined) {
    if (format !== 'github') throw usageError(`--max-annotations applies to --format github, not ${format}`, 'add --format github, or drop --max-annotations');
    annotationsCap(opts.maxAnnotations);
  }
  return format;
}

/** `--max-annotations N`: a whole number from 1 to 1000. */
function annotationsCap(value: string): number {
  const n = /^\d{1,4}$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= 1000)) {
    const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
    throw usageError(`--max-annotations ${shown} is not a whole number from 1 to 1000`, 'give the annotations to print per level, e.g. --max-annotations 10');
  }
  return n;
}

/** Renders the report to stdout or `--output`, and with the github format appends the job summary. */
export async function emitReport(report: Report, format: Format, opts: OutputOptions, io: Io): Promise<void> {
  const summaryFile = format === 'github' ? io.env.GITHUB_STEP_SUMMARY : undefined;
  const summary = summaryFile ? stepSummary(report, summaryBudget(resolve(io.cwd, summaryFile))) : undefined;
  if (opts.sarif !== undefined) await writeReport('--sarif', opts.sarif, render('sarif', report), io);
  const body = format === 'github' ? renderGithub(report, await githubOptions(opts, summary, io)) : render(format, report);
  if (opts.output === undefined) io.stdout.write(body);
  else await writeReport('--output', opts.output, body, io);
  if (summaryFile && summary) {
    // Appending is the step summary's contract: other steps write to the same file.
    await appendFile(resolve(io.cwd, summaryFile), summary.text).catch((err: NodeJS.ErrnoException) => {
      io.stderr.write(`bounce: cannot append to GITHUB_STEP_SUMMARY (${err.code ?? 'error'}); the annotations above are complete\n`);
    });
    if (summary.omitted > 0) io.stderr.write(`bounce: the job summary leaves out ${summary.omitted} rows to stay under GitHub's 1 MiB limit\n`);
  }
}

/** A report written atomically to a file a flag names; a failure is a usage error naming the flag. */
async function writeReport(flag: string, file: string, body: string, io: Io): Promise<void> {
  // Loaded only here: a plain scan loads nothing from the run store.
  const { writeFileAtomic } = await import('../atomic.js');
  try {
    writeFileAtomic(resolve(io.cwd, file), body);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw usageError(`cannot write ${flag} ${file} (${code})`, 'check that its folder exists and is writable');
  }
}

/** The bytes the summary may add: GitHub's limit less a margin and what the step already wrote there. */
function summaryBudget(file: string): number {
  let written = 0;
  try {
    written = statSync(file).size;
  } catch {
    // Not written yet: the whole budget.
  }
  return Math.max(0, STEP_SUMMARY_LIMIT_BYTES - STEP_SUMMARY_MARGIN_BYTES - written);
}

/** The annotations' cap, the changed lines (--changed) that come first, and where the full list is. */
async function githubOptions(opts: OutputOptions, summary: { omitted: number } | undefined, io: Io): Promise<GithubOptions> {
  const fullList = [...(summary?.omitted === 0 ? ['the job summary'] : []), ...(opts.sarif === undefined ? [] : [opts.sarif])];
  const max = opts.maxAnnotations === undefined ? undefined : annotationsCap(opts.maxAnnotations);
  if (opts.changed === undefined) return { max, fullList };
  const { changedLines } = await import('../git/changed-files.js');
  const lines = await changedLines(io.cwd, opts.changed);
  return {
    max,
    fullList,
    changed: (path, line) => {
      const l = lines.get(resolve(io.cwd, path));
      return l === 'all' || (l?.has(line) ?? false);
    },
  };
}

async function readInput(input: Input, io: Io, maxBytes: number): Promise<string> {
  if (input.path === undefined) {
    const piped = await readBoundedText(io.stdin, maxBytes, input.label, io.signal);
    if ('over' in piped) throw overLimit(input.label, 0, maxBytes);
    return piped.text;
  }
  const path = resolve(io.cwd, input.path);
  const missing = (): BounceError => usageError(`cannot read ${input.label} (ENOENT)`, 'check that it exists and is readable');
  // A FIFO is refused: with no writer its open blocks. The type comes from the open file (one stat fewer per file of a tree).
  const file = readUserText(path, input.label, maxBytes, 'usage', { missing, devices: 'left' });
  if ('text' in file) return file.text;
  if ('over' in file) throw overLimit(input.label, file.statSize > maxBytes ? file.statSize : 0, maxBytes);
  // A character device (/dev/null, a terminal) is read as a stream, bounded by max_bytes; the read is asynchronous, so a signal still ends it.
  const bytes = await readBounded(createReadStream(path), maxBytes);
  if (bytes.length > maxBytes)
    throw usageError(
      `${input.label} is more than ${maxBytes} bytes (a character device, read as a stream)`,
      `bounce reads a device only up to max_bytes (${configInUse()}): name a regular file`,
    );
  return decodeText(bytes, input.label);
}

/** An input over max_bytes; `size` is the file system's, when it gives one above the limit (0 for stdin and files of /proc). */
function overLimit(label: string, size: number, maxBytes: number): BounceError {
  const what = size > maxBytes ? `${size} bytes, over the ${maxBytes}-byte limit` : `more than ${maxBytes} bytes`;
  return usageError(`${label} is ${what}`, `raise max_bytes in ${configInUse()}, or scan it in parts`);
}
