/** One key a turn on a terminal: what `bounce grade` and `bounce decide` ask a person with. */
import { splitKeys } from '../grade/picker.js';
import type { Io } from '../io.js';

/** A picker as a state machine: the screen to show, what a key prints, and whether it is over. */
export interface KeySession {
  screen(): string;
  press(key: string): string;
  /** True once the session is done or the person quit. */
  readonly over: boolean;
}

/** Reads keys from a terminal (raw, so each key arrives alone) until the session ends or stdin does. */
export async function readKeys(session: KeySession, io: Io): Promise<void> {
  const stdin = io.stdin as Io['stdin'] & { setRawMode?: (raw: boolean) => unknown; setEncoding?: (e: BufferEncoding) => unknown };
  const raw = typeof stdin.setRawMode === 'function';
  io.stderr.write(session.screen());
  await new Promise<void>((done, fail) => {
    const finish = (err?: unknown): void => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      io.signal.removeEventListener('abort', onEnd);
      if (raw) stdin.setRawMode?.(false);
      stdin.pause();
      if (err) fail(err);
      else done();
    };
    const onData = (chunk: Buffer | string): void => {
      try {
        for (const key of splitKeys(chunk.toString())) {
          io.stderr.write(session.press(key));
          if (session.over) return finish();
        }
      } catch (err) {
        finish(err);
      }
    };
    const onEnd = (): void => {
      if (!session.over) io.stderr.write('\n');
      finish();
    };
    if (raw) stdin.setRawMode?.(true);
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    io.signal.addEventListener('abort', onEnd, { once: true });
    stdin.resume();
    if (io.signal.aborted) onEnd();
  });
}
