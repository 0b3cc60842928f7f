/**
 * The text and JSON reports of `bounce scan` (with `--lint` or not) and `bounce lint`, written
 * as they are found: the common cases, to stdout. Each note or lint problem is written as it
 * comes and none is kept past its file, so a file of a million notes needs little more memory
 * than its text. The bytes are those the whole report's renderers give (renderText,
 * renderJson). Output goes out in small chunks, and when stdout is a pipe whose reader is
 * slower than the scan (`bounce scan big.md | less`), the scan waits for it: the report is
 * never piled up in memory.
 */
import type { Io } from '../io.js';
import { JsonReport, jsonNote, jsonProblem } from '../formats/json.js';
import { lintItem } from '../formats/lint-findings.js';
import { textLine } from '../formats/text.js';
import { lintNotes } from '../protocol/lint.js';
import { type Note, noteStream } from '../protocol/scanner.js';
import { type InputOptions, type ReadFile, scanOptions } from './scan-inputs.js';

/** What a streamed report listed: notes, lint problems, and the files that had any of each. */
export interface StreamedCounts {
  files: number;
  notes: number;
  filesWithNotes: number;
  problems: number;
  filesWithProblems: number;
}

export interface StreamedReport {
  command: 'scan' | 'lint';
  format: 'text' | 'json';
  /** Lint rule ids to check the notes against: `bounce lint`, `scan --lint`. */
  rules?: readonly string[];
  /** The exit code, from the counts (the JSON report ends with it). */
  exitCode: (counts: StreamedCounts) => number;
}

/**
 * Characters of report gathered before a write: small enough that the strings of a chunk
 * die young (larger ones grew the heap of an 8 MB line of notes), large enough that a
 * million notes are a few thousand writes.
 */
const STREAM_CHUNK = 4096;

/**
 * Writes the report of `files` to stdout: `scan` lists each note, then (with rules) each lint
 * problem of the file; `lint` lists the problems only. Returns the counts.
 */
export async function streamReport(files: ReadFile[], report: StreamedReport, opts: InputOptions, io: Io): Promise<StreamedCounts> {
  let out = '';
  let full = false;
  const flush = (): void => {
    if (io.stdout.write(out) === false) full = true;
    out = '';
  };
  const write = (s: string): void => {
    out += s;
    if (out.length >= STREAM_CHUNK) flush();
  };
  // Awaited only when a write found the pipe full: an await per note would make a promise per note.
  const drain = (): Promise<void> | undefined => {
    full = false;
    return io.stdout.drain?.();
  };
  const { command, rules } = report;
  const json = report.format === 'json' ? new JsonReport(command, write) : undefined;
  const counts: StreamedCounts = { files: files.length, notes: 0, filesWithNotes: 0, problems: 0, filesWithProblems: 0 };
  for (const [i, f] of files.entries()) {
    const label = f.input.label;
    json?.file(label);
    // Lint reads a file's notes together (a rule may look at the note beside one), so they are kept for the file.
    const kept: Note[] | undefined = rules ? [] : undefined;
    let notes = 0;
    for (const n of noteStream(f.source, scanOptions(opts, f.input))) {
      notes++;
      kept?.push(n);
      if (command !== 'scan') continue;
      // The fields printed, not a copy of the note: a spread copy of each of a million notes
      // raised the peak memory of one 8 MB line by about 60 MB.
      if (json) json.item(jsonNote(n));
      else write(textLine(command, label, { line: n.line, column: n.column, kind: n.kind, ruleId: n.kind, message: n.text }));
      if (full) await drain();
    }
    let problems = 0;
    if (kept && rules) {
      for (const p of lintNotes(kept, f.source, rules)) {
        const item = lintItem(p);
        if (json) json.item(jsonProblem(item));
        else write(textLine(command, label, item));
        problems++;
        if (full) await drain();
      }
    }
    counts.notes += notes;
    counts.problems += problems;
    if (notes > 0) counts.filesWithNotes++;
    if (problems > 0) counts.filesWithProblems++;
    files[i] = { input: f.input, source: '' }; // scanned: its text is no longer needed
  }
  json?.end(command === 'lint' ? counts.problems : counts.notes + counts.problems, report.exitCode(counts));
  if (out !== '') flush();
  return counts;
}
