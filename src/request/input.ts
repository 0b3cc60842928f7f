import { extname, resolve } from 'node:path';
import type { Io } from '../io.js';
import { usageError } from '../errors.js';
import { decodeText, readBounded, readUserFile } from '../text-input.js';
import { type Syntax, syntaxForPath } from '../protocol/scanner.js';
import { sha256 } from '../store/hash.js';
import { parseError } from '../protocol/substrate.js';
import type { RunPlan } from '../engine/plan.js';
import { configInUse } from '../config/in-use.js';

/** Reads and checks the document: every problem is one line naming it and the fix (exit 2). */
export async function readInput(arg: string, io: Io, maxBytes: number): Promise<RunPlan['input']> {
  let bytes: Buffer;
  let path: string | null = null;
  let display = arg;
  if (arg === '-') {
    if (io.stdin.isTTY) throw usageError('stdin is a terminal, not a document', 'pipe one in (bounce refine - < doc.md) or name a file', 'input');
    bytes = await readBounded(io.stdin, maxBytes, io.signal);
    display = 'stdin';
  } else {
    path = resolve(io.cwd, arg);
    const read = readUserFile(path, arg, maxBytes, 'input', {
      missing: () => usageError(`no such file: ${arg}`, 'check the path to the document', 'input'),
      directory: () => usageError(`${arg} is a directory`, 'name a document file inside it', 'input'),
    });
    if (read.bytes.length > maxBytes) throw tooBig(arg, read.statSize > maxBytes ? read.statSize : null, maxBytes);
    bytes = read.bytes;
  }
  if (bytes.length > maxBytes) throw tooBig(display, bytes.length, maxBytes);
  const text = decodeText(bytes, display);
  if (text.replace(/^\uFEFF/, '').trim() === '') throw usageError(`${display} is empty`, 'give bounce a document with some text in it', 'input');
  const ext = path ? extname(path).slice(1).toLowerCase() || 'txt' : 'md';
  return { path, display, text, bytes: bytes.length, sha256: sha256(bytes), ext, syntax: syntaxForPath(path ?? undefined) };
}

/** The extension a document read from stdin gets in its run folder (`final.<ext>`), by syntax. */
const STDIN_EXT: Record<Syntax, string> = { markdown: 'md', plain: 'txt', json: 'json', yaml: 'yaml' };

/** The input read as `syntax` (--syntax) instead of by its extension; from stdin its run files take that syntax's extension. */
export function withSyntax(input: RunPlan['input'], syntax: Syntax): RunPlan['input'] {
  return { ...input, syntax, ...(input.path === null ? { ext: STDIN_EXT[syntax] } : {}) };
}

/** A JSON or YAML document must parse before the run, as after every pass: else a usage error with the parser's line. */
export function assertParses(input: RunPlan['input']): void {
  const problem = parseError(input.text, input.syntax);
  if (problem) throw usageError(`${input.display}: ${problem}`, `fix it first (every pass must leave it parsing), or pass --syntax plain`, 'input');
}

/** `size` null: more than `max` bytes, how many more unknown (a file of /proc is read only that far). */
function tooBig(what: string, size: number | null, max: number): Error {
  return usageError(
    `${what} is ${size === null ? `more than ${max}` : size} bytes, over the ${max}-byte limit`,
    `raise max_bytes in ${configInUse()} or split the document`,
    'input',
  );
}
