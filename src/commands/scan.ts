import { createReadStream, statSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { mapLimited } from '../concurrency.js';
import { type Input, selectInputs } from '../documents.js';
import { type BounceError, EXIT, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { decodeText, readBounded, readUserFile } from '../text-input.js';
import { DEFAULT_CONFIG, MARKER_NAME, MARKER_NAME_RULE } from '../config/schema.js';
import { DEFAULT_MARKERS, mdxForPath, noteStream, scanNotes, syntaxForPath, type Note, type ScanOptions, type Syntax } from '../protocol/scanner.js';
import { fingerprints, plural, type FileFindings, type Finding, type Format, type Level, type Report, type RuleInfo } from '../formats/finding.js';
import { render } from '../formats/render.js';
import { stepSummary } from '../formats/github.js';
import { pushAll } from '../arrays.js';
import { textLine } from '../formats/text.js';

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
  /** Severity of every finding in github, sarif and codequality output (default warning). */
  level?: Level;
}

export interface ScanCommandOptions extends InputOptions, OutputOptions {
  /** Also check every note against the lint rules (src/protocol/lint.ts). */
  lint?: boolean;
  /** Lint rule ids to apply (default: all). */
  rules?: string[];
}

/** A scanned input: its display path, its text and its notes. */
export interface ScannedFile {
  path: string;
  source: string;
  notes: Note[];
}

/** Files read at once: a tree of thousands of files must not exhaust open file descriptors. */
const READ_CONCURRENCY = 32;

/** `bounce scan`: lists notes (as `file:line:col KIND text` or a CI format); exit 0 when none, 1 when any. */
export async function runScan(opts: ScanCommandOptions, io: Io): Promise<number> {
  if (opts.patterns.length === 0) throw usageError('bounce scan needs a file, folder or glob', "try 'bounce scan docs/' or 'bounce scan -' for stdin");
  const format = outputFormat(opts);
  if (opts.rules !== undefined && !opts.lint) throw usageError('--rules chooses lint rules', 'add --lint, or use bounce lint');
  const ruleIds = opts.lint ? (await import('../formats/lint-findings.js')).selectRules(opts.rules) : undefined;
  if (format === 'text' && !opts.lint && opts.output === undefined) return streamText(await readInputs(opts, io), opts, io);
  const files = await scanInputs(opts, io);
  const total = files.reduce((sum, f) => sum + f.notes.length, 0);
  const exitCode = total === 0 ? EXIT.ok : EXIT.notConverged;
  const findings: FileFindings[] = files.map((f) => ({ path: f.path, findings: noteFindings(f) }));
  const rules = markerRules(opts.markers ?? []);
  if (ruleIds) {
    const { lintFindings, lintRuleInfo } = await import('../formats/lint-findings.js');
    for (const [i, f] of findings.entries()) pushAll(f.findings, lintFindings(files[i]!, ruleIds));
    rules.push(...lintRuleInfo(ruleIds));
  }
  const report: Report = { command: 'scan', files: findings, rules, level: opts.level ?? 'warning', exitCode };
  await emitReport(report, format, opts, io);
  if (format !== 'json') io.stderr.write(`${summary(total, files.filter((f) => f.notes.length > 0).length, files.length)}\n`);
  return exitCode;
}

/** Text to stdout, the common case: each note printed as it is found and none kept, so a file of a million notes needs no more memory than one. */
function streamText(files: ReadFile[], opts: InputOptions, io: Io): number {
  let out = '';
  let total = 0;
  let withNotes = 0;
  for (const [i, f] of files.entries()) {
    let count = 0;
    for (const n of noteStream(f.source, scanOptions(opts, f.input))) {
      out += textLine('scan', f.input.label, { ...n, ruleId: n.kind, message: n.text });
      count++;
      if (out.length >= 1 << 16) {
        io.stdout.write(out);
        out = '';
      }
    }
    total += count;
    if (count > 0) withNotes++;
    files[i] = { input: f.input, source: '' }; // scanned: its text is no longer needed
  }
  if (out !== '') io.stdout.write(out);
  io.stderr.write(`${summary(total, withNotes, files.length)}\n`);
  return total === 0 ? EXIT.ok : EXIT.notConverged;
}

/** Resolves, filters (--changed) and reads every input, then scans it; an unreadable input fails before any output. */
export async function scanInputs(opts: InputOptions, io: Io): Promise<ScannedFile[]> {
  const files = await readInputs(opts, io);
  return files.map(({ input, source }) => ({ path: input.label, source, notes: scanNotes(source, scanOptions(opts, input)) }));
}

/** An input and its text (without a BOM). */
interface ReadFile {
  input: Input;
  source: string;
}

/** Every input read (and checked: size, binary, UTF-8) before any is scanned or printed. */
async function readInputs(opts: InputOptions, io: Io): Promise<ReadFile[]> {
  for (const name of opts.markers ?? []) {
    if (!MARKER_NAME.test(name)) throw usageError(`invalid marker name ${JSON.stringify(name.slice(0, 40))}`, MARKER_NAME_RULE);
  }
  const inputs = await selectInputs(opts.patterns, io.cwd, opts.changed);
  const maxBytes = opts.maxBytes ?? DEFAULT_CONFIG.max_bytes;
  return mapLimited(inputs, READ_CONCURRENCY, async (input) => {
    const source = await readInput(input, io, maxBytes);
    return { input, source: source.charCodeAt(0) === 0xfeff ? source.slice(1) : source };
  });
}

/** How an input is read: its syntax (and MDX) by extension unless --syntax forces one. */
function scanOptions(opts: InputOptions, input: Input): ScanOptions {
  return { syntax: opts.syntax ?? syntaxForPath(input.path), mdx: opts.syntax === undefined && mdxForPath(input.path), markers: opts.markers };
}

export function outputFormat(opts: OutputOptions): Format {
  if (opts.json && opts.format !== undefined && opts.format !== 'json') throw usageError(`--json and --format ${opts.format} disagree`, 'give one of them');
  return opts.json ? 'json' : (opts.format ?? 'text');
}

/** Renders the report to stdout or `--output`, and with the github format appends the job summary. */
export async function emitReport(report: Report, format: Format, opts: OutputOptions, io: Io): Promise<void> {
  const body = render(format, report);
  if (opts.output === undefined) io.stdout.write(body);
  else {
    // Loaded only here: a plain scan loads nothing from the run store.
    const { writeFileAtomic } = await import('../atomic.js');
    try {
      writeFileAtomic(resolve(io.cwd, opts.output), body);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw usageError(`cannot write --output ${opts.output} (${code})`, 'check that its folder exists and is writable');
    }
  }
  const summaryFile = io.env.GITHUB_STEP_SUMMARY;
  if (format === 'github' && summaryFile) {
    // Appending is the step summary's contract: other steps write to the same file.
    await appendFile(resolve(io.cwd, summaryFile), stepSummary(report)).catch((err: NodeJS.ErrnoException) => {
      io.stderr.write(`bounce: cannot append to GITHUB_STEP_SUMMARY (${err.code ?? 'error'}); the annotations above are complete\n`);
    });
  }
}

function noteFindings(f: ScannedFile): Finding[] {
  const prints = fingerprints(
    f.path,
    f.notes.map((n) => ({ ruleId: n.kind, kind: n.kind, text: n.text })),
  );
  return f.notes.map((n, i) => ({
    ruleId: n.kind,
    kind: n.kind,
    line: n.line,
    column: n.column,
    text: n.text,
    message: n.text,
    fingerprint: prints[i]!,
    canonical: n.canonical,
    refersTo: n.refersTo,
  }));
}

const MARKER_RULES: Record<string, Omit<RuleInfo, 'id' | 'name'>> = {
  CONTESTED: {
    short: 'An unresolved [CONTESTED] note: an agent disputes the text above it.',
    full: 'A [CONTESTED] note says what is wrong with the passage above it and what to write instead. A document with notes has not converged under the Bounce Protocol.',
    help: 'Decide the point in the text, then delete the note (bounce refine does both).',
  },
  CLARIFY: {
    short: 'An unresolved [CLARIFY] note: the text above it can be read more than one way.',
    full: 'A [CLARIFY] note names two readings of the passage above it, or asks a question with a closed set of answers. A document with notes has not converged under the Bounce Protocol.',
    help: 'Rewrite the passage so only one reading remains, then delete the note (bounce refine does both).',
  },
};

/** One rule per marker kind: the protocol's two and the extra ones configured. */
function markerRules(extra: string[]): RuleInfo[] {
  const kinds = [...new Set([...DEFAULT_MARKERS, ...extra].map((k) => k.toUpperCase()))];
  return kinds.map((id) => ({
    id,
    name: `Unresolved${id.charAt(0)}${id
      .slice(1)
      .toLowerCase()
      .replace(/[-_](.)/g, (_, c: string) => c.toUpperCase())}Note`,
    ...(MARKER_RULES[id] ?? {
      short: `An unresolved [${id}] note (a marker configured for this project).`,
      full: `[${id}] is an extra marker configured in bounce.config.yaml or with --marker; it counts like the protocol's own notes.`,
      help: 'Settle the point in the text, then delete the note.',
    }),
  }));
}

function summary(total: number, withNotes: number, files: number): string {
  const scanned = plural(files, 'file');
  if (total === 0) return `no notes (${scanned} scanned)`;
  return `${plural(total, 'note')} in ${plural(withNotes, 'file')} (${scanned} scanned)`;
}

/** A character device: something to read as a stream, not a file of a known size. */
function isStream(path: string): boolean {
  try {
    return statSync(path).isCharacterDevice();
  } catch {
    return false;
  }
}

async function readInput(input: Input, io: Io, maxBytes: number): Promise<string> {
  let bytes: Buffer;
  // The size the file system gives, for the message; 0 when unknown (stdin, a file of /proc).
  let size = 0;
  if (input.path === undefined) bytes = await readBounded(io.stdin, maxBytes);
  else {
    const path = resolve(io.cwd, input.path);
    const missing = (): BounceError => usageError(`cannot read ${input.label} (ENOENT)`, 'check that it exists and is readable');
    // A character device (/dev/null, a terminal) is read as a stream, bounded by max_bytes; the
    // read is asynchronous, so a signal still ends it. A FIFO is refused: with no writer its open blocks.
    if (isStream(path)) bytes = await readBounded(createReadStream(path), maxBytes);
    else ({ bytes, statSize: size } = readUserFile(path, input.label, maxBytes, 'usage', { missing }));
  }
  if (bytes.length > maxBytes) {
    const what = size > maxBytes ? `${size} bytes, over the ${maxBytes}-byte limit` : `more than ${maxBytes} bytes`;
    throw usageError(`${input.label} is ${what}`, 'raise max_bytes in bounce.config.yaml, or scan it in parts');
  }
  return decodeText(bytes, input.label);
}
