import { readFileSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import type { Io } from '../io.js';
import { usageError } from '../errors.js';
import { syntaxForPath } from '../protocol/scanner.js';
import { sha256 } from '../store/hash.js';
import type { RunPlan } from '../engine/plan.js';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

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
  if (bytes.includes(0)) throw usageError(`${display} looks binary (it contains NUL bytes)`, 'give bounce a text document', 'input');
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw usageError(`${display} is not valid UTF-8`, 'convert it to UTF-8 (e.g. iconv -t UTF-8) and try again', 'input');
  }
  if (text.replace(/^\uFEFF/, '').trim() === '') throw usageError(`${display} is empty`, 'give bounce a document with some text in it', 'input');
  const ext = path ? extname(path).slice(1).toLowerCase() || 'txt' : 'md';
  return { path, display, text, bytes: bytes.length, sha256: sha256(bytes), ext, syntax: syntaxForPath(path ?? undefined) };
}

function tooBig(what: string, size: number, max: number): Error {
  return usageError(`${what} is ${size} bytes, over the ${max}-byte limit`, 'raise max_bytes in bounce.config.yaml or split the document', 'input');
}

/** Reads stdin but stops one byte past the limit, so an endless pipe cannot exhaust memory. */
async function readBounded(stream: NodeJS.ReadableStream, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(buf);
    size += buf.length;
    if (size > maxBytes) break;
  }
  return Buffer.concat(chunks);
}
