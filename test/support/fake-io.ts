/** An Io with string sinks for in-process command tests; `stdin` is the piped text, or a terminal when `stdinTTY`. */
import { PassThrough } from 'node:stream';
import type { Io } from '../../src/io.js';

export interface FakeIo extends Io {
  err(): string;
  out(): string;
}

export function fakeIo(cwd: string, opts: { stdin?: string | Buffer; stdinTTY?: boolean; stderrTTY?: boolean; env?: NodeJS.ProcessEnv } = {}): FakeIo {
  let out = '';
  let err = '';
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (opts.stdinTTY) stdin.isTTY = true;
  else stdin.end(opts.stdin ?? '');
  return {
    cwd,
    env: opts.env ?? {},
    stdout: { write: (s: string) => (out += s), isTTY: false },
    stderr: { write: (s: string) => (err += s), isTTY: opts.stderrTTY ?? false },
    stdin,
    signal: new AbortController().signal,
    out: () => out,
    err: () => err,
  };
}
