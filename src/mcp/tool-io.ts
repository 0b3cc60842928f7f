/**
 * The Io a `bounce mcp` tool call runs a command with. stdout is the protocol's channel, so
 * what a command would print there is kept for the tool's result instead; stderr is the
 * server's log (plain lines, no live redraw); stdin is the call's text, if any, never the
 * channel; the signal is aborted when the client cancels the call or the server stops.
 */
import { Readable } from 'node:stream';
import type { Io } from '../io.js';

export interface ToolIo {
  io: Io;
  /** What the command wrote to stdout. */
  stdout(): string;
}

export function toolIo(server: Io, signal: AbortSignal, stdinText?: string): ToolIo {
  const out: string[] = [];
  const log = server.stderr;
  return {
    io: {
      cwd: server.cwd,
      env: server.env,
      stdout: { write: (chunk: string) => out.push(chunk) > 0, isTTY: false },
      stderr: { write: (chunk: string) => log.write(chunk), isTTY: false },
      stdin: Readable.from(stdinText === undefined ? [] : [Buffer.from(stdinText, 'utf8')]),
      signal: AbortSignal.any([server.signal, signal]),
      ...(server.launcher ? { launcher: server.launcher } : {}),
    },
    stdout: () => out.join(''),
  };
}
