import { readFileSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import type { Io } from '../io.js';
import { usageError } from '../errors.js';
import { decodeText, readBounded } from '../text-input.js';
import { syntaxForPath } from '../protocol/scanner.js';
import { sha256 } from '../store/hash.js';
import type { RunPlan } from '../engine/plan.js';

/** Reads and checks the document: every problem is one line naming it and the fix (exit 2). */
export async function readInput(arg: string, io: Io, maxBytes: number): Promise<RunPlan['input']> {
  let bytes: Buffer;
  let path: string | null = null;
  let display = arg;
  if (arg === '-') {
    if (io.stdin.isTTY) throw usageError('stdin is a terminal, not a document', 'pipe one in (bounce refine - < doc.md) or name a file', 'input');
    bytes = await readBounded(io.stdin, maxBytes);
    display = 'stdin';
  } else {
    path = resolve(io.cwd, arg);
    let size: number;
    try {
      const st = statSync(path);
      if (st.isDirectory()) throw usageError(`${arg} is a directory`, 'name a document file inside it', 'input');
      size = st.size;
    } catch (err) {
      if (err instanceof Error && 'exitCode' in err) throw err;
      throw usageError(`no such file: ${arg}`, 'check the path to the document', 'input');
    }
    if (size > maxBytes) throw tooBig(arg, size, maxBytes);
    bytes = readFileSync(path);
  }
  if (bytes.length > maxBytes) throw tooBig(display, bytes.length, maxBytes);
  const text = decodeText(bytes, display);
  if (text.replace(/^\uFEFF/, '').trim() === '') throw usageError(`${display} is empty`, 'give bounce a document with some text in it', 'input');
  const ext = path ? extname(path).slice(1).toLowerCase() || 'txt' : 'md';
  return { path, display, text, bytes: bytes.length, sha256: sha256(bytes), ext, syntax: syntaxForPath(path ?? undefined) };
}

function tooBig(what: string, size: number, max: number): Error {
  return usageError(`${what} is ${size} bytes, over the ${max}-byte limit`, 'raise max_bytes in bounce.config.yaml or split the document', 'input');
}
