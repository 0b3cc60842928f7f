/**
 * What a command may touch of the outside world. The CLI passes the real process;
 * tests pass buffers, so every command runs in-process with its own cwd.
 */
export interface Io {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `wholeDocument()`: what is written from now on is a document its reader must get whole (`refine --out -`): a reader that goes away before its end is told of on stderr. */
  stdout: { write(chunk: string): unknown; isTTY?: boolean; drain?: () => Promise<void>; wholeDocument?: () => void };
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Aborted on SIGINT / SIGTERM. */
  signal: AbortSignal;
  /**
   * The --json object to print if the command is ended by force, after a second signal, before
   * it could print its own; a batch sets it (src/commands/batch.ts). Absent: the run error object.
   */
  forcedStopJson?: () => unknown;
  /** The script Node ran (process.argv[1]), for the command a hint prints (src/invoked-as.ts); absent in-process: `bounce`. */
  launcher?: string;
}

export function processIo(signal: AbortSignal): Io {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    signal,
    launcher: process.argv[1],
  };
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}
