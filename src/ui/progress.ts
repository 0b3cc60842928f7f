import { createColors } from 'picocolors';
import type { EventSink } from '../engine/deps.js';
import type { Io } from '../io.js';

/**
 * Progress on stderr: on a terminal one live line per pass (role, agent, elapsed,
 * notes) redrawn every second; otherwise plain lines. `--quiet` silences all of it.
 */
export interface Progress {
  passStarted(pass: number, total: number, role: string, agent: string, notesIn: number): void;
  passFinished(pass: number, notesAfter: number | null, outcome: string): void;
  note(message: string): void;
  close(): void;
}

export function createProgress(io: Io, quiet: boolean): Progress {
  if (quiet) return { passStarted() {}, passFinished() {}, note() {}, close() {} };
  const tty = Boolean(io.stderr.isTTY);
  const c = createColors(tty && !io.env.NO_COLOR);
  let timer: NodeJS.Timeout | null = null;
  let label = '';
  let started = 0;
  const elapsed = (): string => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  const draw = (): void => {
    io.stderr.write(`\r\u001b[2K${label} ${c.dim(elapsed())}`);
  };
  const stop = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  return {
    passStarted(pass, total, role, agent, notesIn) {
      label = `${c.bold(`pass ${pass}/${total}`)} ${role} ${c.cyan(agent)} ${c.dim(`${notesIn} note${notesIn === 1 ? '' : 's'} in`)}`;
      started = Date.now();
      if (tty) {
        draw();
        timer = setInterval(draw, 1000);
        timer.unref();
      } else io.stderr.write(`pass ${pass}/${total} ${role} ${agent}: started with ${notesIn} note${notesIn === 1 ? '' : 's'}\n`);
    },
    passFinished(pass, notesAfter, outcome) {
      stop();
      const notes = notesAfter === null ? '' : `, ${notesAfter} note${notesAfter === 1 ? '' : 's'} left`;
      const colour = outcome === 'done' ? c.green : c.red;
      if (tty) io.stderr.write(`\r\u001b[2K${label} ${c.dim(elapsed())} ${colour(outcome)}${notes}\n`);
      else io.stderr.write(`pass ${pass}: ${outcome} in ${elapsed()}${notes}\n`);
    },
    note(message) {
      if (tty && timer) io.stderr.write(`\r\u001b[2K${c.yellow(message)}\n`);
      else io.stderr.write(`${message}\n`);
      if (tty && timer) draw();
    },
    close: stop,
  };
}

/** Renders the engine's events as progress lines. */
export function progressEvents(progress: Progress, io: Io, quiet: boolean): EventSink {
  return (e) => {
    switch (e.type) {
      case 'run-started':
        if (e.resumedAfter !== null && !quiet) io.stderr.write(`resuming ${e.runId} after pass ${e.resumedAfter} of ${e.totalPasses}\n`);
        return;
      case 'pass-started':
        return progress.passStarted(e.pass, e.totalPasses, e.role, e.agent, e.notesIn);
      case 'pass-finished':
        return progress.passFinished(e.pass, e.notesAfter, e.outcome);
      case 'retry-scheduled':
        if (e.why === 'transient') return progress.note(`pass ${e.pass}: ${e.message}; retrying in ${(e.waitMs / 1000).toFixed(1)}s`);
        if (e.why === 'empty') return progress.note(`pass ${e.pass}: ${e.message}; resending`);
        return progress.note(`pass ${e.pass}: ${e.message}; sending a repair request to ${e.agent}`);
      case 'run-finished':
        return progress.close();
      default:
        return;
    }
  };
}
