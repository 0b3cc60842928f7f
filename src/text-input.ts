import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, type Stats, statSync } from 'node:fs';
import { BounceError, EXIT, isBounceError, usageError } from './errors.js';
import type { ErrorCode } from './vocabulary.js';

/**
 * Reads a stream but stops one chunk past the limit, so an endless pipe cannot exhaust memory.
 * When `signal` aborts (Ctrl-C, SIGTERM) the read stops at once, the stream is destroyed and
 * an `interrupted` error (exit 130) is thrown: a pipe that never ends does not hold bounce.
 */
export async function readBounded(stream: NodeJS.ReadableStream, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await eachChunk(stream, maxBytes, signal, (chunk) => chunks.push(chunk));
  return Buffer.concat(chunks);
}

/**
 * readBounded and decodeText in one, for a document piped to `bounce scan -`: each chunk is
 * decoded as it comes, so the bytes are not held whole beside the text (8 MB less on an 8 MB
 * document). `over` when the stream holds more than `maxBytes`; bad UTF-8 and NUL bytes are
 * the usage errors decodeText gives, naming `label`.
 */
export async function readBoundedText(
  stream: NodeJS.ReadableStream,
  maxBytes: number,
  label: string,
  signal?: AbortSignal,
): Promise<{ text: string } | { over: true }> {
  const streaming = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const pieces: string[] = [];
  // The stream is read to its end (or the limit) whatever it holds, and the problems are told
  // in decodeText's order: over the limit, then NUL bytes anywhere, then bad UTF-8.
  let nul = false;
  let invalid = false;
  const size = await eachChunk(stream, maxBytes, signal, (chunk) => {
    if (chunk.includes(0)) nul = true;
    if (nul || invalid) return;
    try {
      pieces.push(streaming.decode(chunk, { stream: true }));
    } catch {
      invalid = true;
    }
  });
  if (size > maxBytes) return { over: true };
  if (nul) throw binaryText(label);
  try {
    if (!invalid) pieces.push(streaming.decode());
  } catch {
    invalid = true;
  }
  if (invalid) throw notUtf8(label);
  return { text: pieces.join('') };
}

/** Hands each chunk of `stream` to `take` until its end, or until more than `maxBytes` came (the total, returned); see readBounded for `signal`. */
async function eachChunk(stream: NodeJS.ReadableStream, maxBytes: number, signal: AbortSignal | undefined, take: (chunk: Buffer) => void): Promise<number> {
  const interrupted = (): BounceError =>
    new BounceError('interrupted while reading the document from stdin', { exitCode: EXIT.interrupted, code: 'interrupted' });
  if (signal?.aborted) throw interrupted();
  const stop = (): void => void (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  signal?.addEventListener('abort', stop, { once: true });
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      take(buf);
      size += buf.length;
      if (size > maxBytes) break;
    }
  } catch (err) {
    if (signal?.aborted) throw interrupted();
    throw err;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  if (signal?.aborted) throw interrupted();
  return size;
}

/** The most bounce reads of a user's file that is neither a document nor context: the config, a --prompts template. */
export const SMALL_FILE_MAX_BYTES = 1_048_576;

/** A file a user named, as read: at most `maxBytes` + 1 bytes, so `bytes.length > maxBytes` means it is over. */
export interface UserFile {
  bytes: Buffer;
  /** The size the file system gives: 0 for files of /proc, whose size only a read finds. */
  statSize: number;
  /** A character device, not read (only with `devices: 'left'`): the caller reads it as a stream. */
  device?: true;
}

/** What the caller says instead of the plain "no such file" and "is a directory" (a folder may have a meaning of its own there). */
export interface UserFileProblems {
  missing?: () => BounceError;
  directory?: () => BounceError;
  /** `left`: a character device (/dev/null, a terminal) is not refused but returned unread, as `device`. */
  devices?: 'left';
}

/** Opening never waits for a FIFO's writer; reads of a regular file are unaffected. Not defined on Windows. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Reads a file a user named (the document, --context, --goal-file, the config, a --prompts
 * template): only a regular file, and never more than `maxBytes` + 1 bytes of it (a device or
 * a file of /proc has no size to check first). The type is checked with fstat on the open
 * file, so what is read is what was checked. Every problem is a usage error naming `label`
 * (`code`: its --json error type).
 */
export function readUserFile(path: string, label: string, maxBytes: number, code: ErrorCode, problems: UserFileProblems = {}): UserFile {
  return withUserFile(path, label, code, problems, (fd, st) => ({ bytes: readAtMost(fd, st.size, maxBytes + 1, null), statSize: st.size }));
}

/** A file a user named, as text: `over` when it holds more than the limit, `device` for a character device left to the caller. */
export type UserText = { text: string; statSize: number } | { over: true; statSize: number } | { device: true };

/**
 * readUserFile and decodeText in one, for a document that may be large (scan reads every
 * document this way): a regular file whose size is known and within `maxBytes` is decoded by
 * Node as it is read, so no copy of its bytes is left for the garbage collector (on an 8 MB
 * document that copy was 8 MB of the process's peak). The checks are decodeText's: text
 * with NUL, or with U+FFFD where Node replaced invalid UTF-8, is read again as bytes and
 * decodeText says what is wrong (a U+FFFD written in the file is kept).
 */
export function readUserText(path: string, label: string, maxBytes: number, code: ErrorCode, problems: UserFileProblems = {}): UserText {
  return withUserFile(path, label, code, problems, (fd, st): UserText => {
    if (st.size > 0 && st.size <= maxBytes) {
      const text = readFileSync(fd, 'utf8');
      if (!text.includes('\0') && !text.includes('\uFFFD')) {
        // A file that grew since fstat: its UTF-8 length is at least its length in UTF-16 units.
        if (text.length > maxBytes || Buffer.byteLength(text) > maxBytes) return { over: true, statSize: st.size };
        return { text, statSize: st.size };
      }
    }
    const bytes = readAtMost(fd, st.size, maxBytes + 1, 0);
    return bytes.length > maxBytes ? { over: true, statSize: st.size } : { text: decodeText(bytes, label), statSize: st.size };
  });
}

/** Opens `path` for reading, refuses what is not a regular file (a character device is left unread with `devices: 'left'`), and hands the open file to `read`. */
function withUserFile<T>(
  path: string,
  label: string,
  code: ErrorCode,
  problems: UserFileProblems,
  read: (fd: number, st: Stats) => T,
): T | { bytes: Buffer; statSize: 0; device: true } {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code;
    if (errno === 'ENOENT' || errno === 'ENOTDIR') throw problems.missing?.() ?? usageError(`no such file: ${label}`, 'check the path', code);
    if (errno === 'EISDIR') throw directory(label, code, problems);
    // A socket cannot be opened (ENXIO): say what it is, as for a FIFO or a device.
    if (errno === 'ENXIO' && isSocket(path)) throw notRegular(label, 'a socket', code);
    throw unreadable(label, errno, code);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw directory(label, code, problems);
    if (problems.devices === 'left' && st.isCharacterDevice()) return { bytes: Buffer.alloc(0), statSize: 0, device: true };
    if (!st.isFile()) throw notRegular(label, kindOf(st), code);
    return read(fd, st);
  } catch (err) {
    if (isBounceError(err)) throw err;
    throw unreadable(label, (err as NodeJS.ErrnoException).code, code);
  } finally {
    closeSync(fd);
  }
}

/** Up to `limit` bytes of `fd`, from `position` (null: where the file stands); `size` (the file system's) only sizes the first buffer. */
function readAtMost(fd: number, size: number, limit: number, position: number | null): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  let want = Math.min(limit, size > 0 ? size + 1 : 65_536);
  while (total < limit) {
    const buf = Buffer.allocUnsafe(want);
    let filled = 0;
    while (filled < want) {
      const n = readSync(fd, buf, filled, want - filled, position === null ? null : position + total + filled);
      if (n === 0) break;
      filled += n;
    }
    chunks.push(filled === want ? buf : buf.subarray(0, filled));
    total += filled;
    if (filled < want) break;
    want = Math.min(limit - total, 1_048_576);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/** A small file (SMALL_FILE_MAX_BYTES) as UTF-8 text; a longer one is a usage error naming `label`. */
export function readSmallFile(path: string, label: string, code: ErrorCode, problems: UserFileProblems = {}): string {
  const { bytes } = readUserFile(path, label, SMALL_FILE_MAX_BYTES, code, problems);
  if (bytes.length > SMALL_FILE_MAX_BYTES)
    throw usageError(`${label} is more than ${SMALL_FILE_MAX_BYTES} bytes`, 'check that it is the file meant: bounce reads at most 1 MiB of it', code);
  return bytes.toString('utf8');
}

function notRegular(label: string, kind: string, code: ErrorCode): BounceError {
  return usageError(`${label} is ${kind}, not a regular file`, 'give bounce a regular file (copy what the pipe or device gives into one)', code);
}

function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'a special file';
}

function directory(label: string, code: ErrorCode, problems: UserFileProblems): BounceError {
  return problems.directory?.() ?? usageError(`${label} is a directory, not a regular file`, 'name a file', code);
}

function unreadable(label: string, errno: string | undefined, code: ErrorCode): BounceError {
  return usageError(`cannot read ${label} (${errno ?? 'error'})`, 'check that it exists and is readable', code);
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A document's bytes as text, for refine and scan alike: NUL bytes and invalid UTF-8 are
 * usage errors naming `label`. A BOM is kept (the scanner reads past it; refine restores it).
 */
export function decodeText(bytes: Uint8Array, label: string): string {
  if (bytes.includes(0)) throw binaryText(label);
  try {
    return decoder.decode(bytes);
  } catch {
    throw notUtf8(label);
  }
}

function binaryText(label: string): BounceError {
  return usageError(`${label} looks binary (it contains NUL bytes)`, 'give bounce a text file', 'input');
}

function notUtf8(label: string): BounceError {
  return usageError(`${label} is not valid UTF-8`, 'convert it to UTF-8 (e.g. iconv -t UTF-8) and try again', 'input');
}
