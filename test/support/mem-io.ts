import { Readable } from 'node:stream';
import type { Io } from '../../src/io.js';

export interface MemIoOptions {
  /** Whether stdout claims to be a terminal. */
  tty?: boolean;
  /** The whole environment the command sees (nothing is inherited). */
  env?: NodeJS.ProcessEnv;
  /** What stdin holds; it is closed after that, as a pipe from `printf` would be. */
  input?: string;
  signal?: AbortSignal;
}

/** An Io whose output is captured; `out()`/`err()` return what was written. */
export function memIo(cwd: string, opts: MemIoOptions = {}): Io & { out(): string; err(): string } {
  let out = '';
  let err = '';
  return {
    cwd,
    env: opts.env ?? {},
    stdout: { write: (s: string) => (out += s), isTTY: opts.tty ?? false },
    stderr: { write: (s: string) => (err += s), isTTY: false },
    stdin: Readable.from(opts.input === undefined ? [] : [Buffer.from(opts.input)]),
    signal: opts.signal ?? new AbortController().signal,
    out: () => out,
    err: () => err,
  };
}
