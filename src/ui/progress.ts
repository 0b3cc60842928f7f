import { plural } from '../plural.js';
import { createColors } from 'picocolors';
import type { EventSink } from '../engine/deps.js';
import { lintLines } from '../engine/lint-notes.js';
import { displayWidth, fitColumns } from '../text/display-width.js';
import type { Io } from '../io.js';

/**
 * Progress on stderr: on a terminal one live line per pass redrawn every second, cut to the
 * terminal's width in columns (src/text/display-width.ts) (the agent's name gives way first) so it never wraps into copies of
 * itself; otherwise one plain line per event. `--quiet` silences all of it.
 */
export interface Progress {
  passStarted(pass: number, total: number, role: string, agent: string, notesIn: number): void;
  passFinished(pass: number, notesAfter: number | null, outcome: string): void;
  note(message: string): void;
  close(): void;
}

const CLEAR_LINE = '\r\u001b[2K';
const noteCount = (n: number): string => plural(n, 'note');
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Width of a terminal stream, or null when it does not say (a fake stream, a pipe). */
function widthOf(stream: Io['stderr']): number | null {
  const columns = 'columns' in stream ? Number(stream.columns) : Number.NaN;
  return Number.isInteger(columns) && columns > 0 ? columns : null;
}

interface PassLabel {
  pass: number;
  total: number;
  role: string;
  agent: string;
  notesIn: number;
}

/**
 * `people`: the agents that are a person at this terminal (the human agent): their passes get
 * the plain line, since a redrawn line would write over the editor the person works in.
 */
export function createProgress(io: Io, quiet: boolean, people: ReadonlySet<string> = new Set()): Progress {
  if (quiet) return { passStarted() {}, passFinished() {}, note() {}, close() {} };
  const terminal = Boolean(io.stderr.isTTY);
  let tty = terminal;
  const c = createColors(tty && !io.env.NO_COLOR);
  let timer: NodeJS.Timeout | null = null;
  let current: PassLabel | null = null;
  let started = 0;
  /**
   * `pass 1/2 reviewer claude: 13.0 s, 0 -> 2 notes` (`tail` is the notes part), fitted to the
   * terminal: the agent's name is cut first, then the role (the pass number implies it) goes,
   * and only then is the line itself cut.
   */
  const line = (p: PassLabel, tail: string, outcome = ''): string => {
    const len = displayWidth;
    // One column is left free: a line that fills the last column wraps on some terminals.
    const width = (widthOf(io.stderr) ?? 80) - 1;
    const time = seconds(Date.now() - started);
    const after = `: ${outcome ? `${outcome}, ` : ''}${time}, ${tail}`;
    const pass = `pass ${p.pass}/${p.total}`;
    for (const role of [p.role, '']) {
      const room = width - len(`${pass} ${role ? `${role} ` : ''}`) - len(after);
      if (room < Math.min(len(p.agent), 6)) continue;
      const agent = fitColumns(p.agent, room);
      return `${c.bold(pass)}${role ? ` ${role}` : ''} ${c.cyan(agent)}: ${outcome ? `${c.red(outcome)}, ` : ''}${c.dim(time)}, ${tail}`;
    }
    return fitColumns(`${pass} ${fitColumns(p.agent, 4)}${after}`, width);
  };
  const draw = (): void => {
    if (current) io.stderr.write(`${CLEAR_LINE}${line(current, `${noteCount(current.notesIn)} in`)}`);
  };
  const stop = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  return {
    passStarted(pass, total, role, agent, notesIn) {
      current = { pass, total, role, agent, notesIn };
      started = Date.now();
      tty = terminal && !people.has(agent);
      if (tty) {
        draw();
        timer = setInterval(draw, 1000);
        timer.unref();
      } else io.stderr.write(`pass ${pass}/${total} ${role} ${agent}: started with ${noteCount(notesIn)}\n`);
    },
    passFinished(pass, notesAfter, outcome) {
      stop();
      const p = current ?? { pass, total: pass, role: '', agent: '', notesIn: 0 };
      const notes = notesAfter === null ? `${noteCount(p.notesIn)} in` : `${p.notesIn} -> ${noteCount(notesAfter)}`;
      if (tty) {
        // A pass that is done needs no word for it; any other end is named first, in red.
        io.stderr.write(`${CLEAR_LINE}${line(p, notes, outcome === 'done' ? '' : outcome)}\n`);
      } else io.stderr.write(`pass ${p.pass}/${p.total} ${p.role} ${p.agent}: ${outcome} in ${seconds(Date.now() - started)}, ${notes}\n`);
      current = null;
    },
    note(message) {
      if (tty && timer) io.stderr.write(`${CLEAR_LINE}${c.yellow(message)}\n`);
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
        if (e.why === 'shared') return progress.note(`pass ${e.pass}: ${e.message}; waiting ${(e.waitMs / 1000).toFixed(1)}s`);
        // The reason sent to the agent is long and addressed to it: progress shows why in a few words.
        return progress.note(`pass ${e.pass}: ${e.summary ?? 'reply rejected'}; sending a repair request to ${e.agent}`);
      case 'lint-warning': {
        const n = new Set(e.problems.map((p) => p.line)).size;
        return progress.note(
          `pass ${e.pass}: warning: ${noteCount(n)} added by ${e.agent} break${n === 1 ? 's' : ''} lint rules (${lintLines(e.problems)}); see docs/lint.md`,
        );
      }
      case 'warning':
        return quiet ? undefined : progress.note(`pass ${e.pass}: warning: ${e.message}`);
      case 'run-finished':
        return progress.close();
      default:
        return;
    }
  };
}
