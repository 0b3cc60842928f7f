import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProgress } from '../../src/ui/progress.js';
import { displayWidth } from '../../src/text/display-width.js';
import { type FakeIo, fakeIo } from '../support/fake-io.js';

let root: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bounce-units-')));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('createProgress', () => {
  const SGR = /\u001b\[[0-9;]*m/;

  it('not a terminal: plain lines', () => {
    const io = fakeIo(root);
    const p = createProgress(io, false);
    p.passStarted(1, 2, 'reviewer', 'mock', 0);
    p.note('retrying after a rate limit');
    p.passFinished(1, 3, 'done');
    p.passStarted(2, 2, 'composer', 'mock', 1);
    p.passFinished(2, 1, 'not converged');
    p.passStarted(3, 3, 'reviewer', 'mock', 0);
    p.passFinished(3, null, 'failed');
    p.close();
    const lines = io.err().split('\n');
    expect(lines[0]).toBe('pass 1/2 reviewer mock: started with 0 notes');
    expect(lines[1]).toBe('retrying after a rate limit');
    expect(lines[2]).toMatch(/^pass 1\/2 reviewer mock: done in \d+\.\d s, 0 -> 3 notes$/);
    expect(lines[3]).toBe('pass 2/2 composer mock: started with 1 note');
    expect(lines[4]).toMatch(/^pass 2\/2 composer mock: not converged in \d+\.\d s, 1 -> 1 note$/);
    expect(lines[5]).toBe('pass 3/3 reviewer mock: started with 0 notes');
    expect(lines[6]).toMatch(/^pass 3\/3 reviewer mock: failed in \d+\.\d s, 0 notes in$/);
    expect(lines[7]).toBe('');
    expect(lines).toHaveLength(8);
    expect(io.err()).not.toContain('\r');
    expect(io.err()).not.toMatch(SGR);
    expect(io.out()).toBe('');
  });

  it('not a terminal: a long agent name is never cut (logs keep it whole)', () => {
    const io = fakeIo(root);
    const p = createProgress(io, false);
    const name = `cmd:./${'x'.repeat(80)}.mjs`;
    p.passStarted(1, 1, 'reviewer', name, 0);
    p.passFinished(1, 0, 'done');
    expect(io.err()).toContain(`pass 1/1 reviewer ${name}: started with 0 notes\n`);
    expect(io.err()).not.toContain('\u2026');
  });

  /** A terminal `columns` wide: \r, clear-line, newline and auto-wrap, colours dropped; returns its rows. */
  function screen(text: string, columns: number): string[] {
    const rows: string[][] = [[]];
    let row = 0;
    let col = 0;
    for (const token of text.replace(/\u001b\[[0-9;]*m/g, '').match(/\u001b\[2K|[\s\S]/gu) ?? []) {
      if (token === '\u001b[2K') rows[row] = [];
      else if (token === '\r') col = 0;
      else if (token === '\n') {
        row += 1;
        col = 0;
        rows[row] ??= [];
      } else {
        if (col === columns) {
          row += 1;
          col = 0;
          rows[row] ??= [];
        }
        rows[row]![col] = token;
        col += 1;
      }
    }
    return rows.map((r) => r.join(''));
  }

  const terminal = (columns: number | undefined, env: NodeJS.ProcessEnv = {}): FakeIo => {
    const io = fakeIo(root, { stderrTTY: true, env });
    if (columns !== undefined) Object.assign(io.stderr, { columns });
    return io;
  };

  it('a terminal: one line redrawn in place, that reads pass, role, agent, time and notes', () => {
    vi.useFakeTimers();
    try {
      const io = terminal(100);
      const p = createProgress(io, false);
      p.passStarted(1, 2, 'reviewer', 'claude', 0);
      vi.advanceTimersByTime(5000);
      expect(screen(io.err(), 100)).toEqual(['pass 1/2 reviewer claude: 5.0 s, 0 notes in']);
      vi.advanceTimersByTime(8000);
      p.passFinished(1, 2, 'done');
      p.passStarted(2, 2, 'composer', 'codex', 2);
      vi.advanceTimersByTime(1000);
      p.passFinished(2, 1, 'not converged');
      p.close();
      expect(screen(io.err(), 100)).toEqual([
        'pass 1/2 reviewer claude: 13.0 s, 0 -> 2 notes',
        'pass 2/2 composer codex: not converged, 1.0 s, 2 -> 1 note',
        '',
      ]);
      expect(io.err()).toMatch(SGR);
      expect(io.err().startsWith('\r\u001b[2K')).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a terminal 40 columns wide: a long agent name is cut with an ellipsis, and no redraw leaves a wrapped copy', () => {
    vi.useFakeTimers();
    try {
      const io = terminal(40);
      const p = createProgress(io, false);
      p.passStarted(1, 2, 'reviewer', 'cmd:./agents/our-very-long-reviewer-agent.mjs', 12);
      vi.advanceTimersByTime(12_000);
      p.note('pass 1: HTTP 500 from api.example.com; retrying in 1.0s');
      vi.advanceTimersByTime(1000);
      const live = screen(io.err(), 40);
      // No room for the role and 6 letters of the agent: the role goes, the agent is cut.
      expect(live.at(-1)).toBe('pass 1/2 cmd:./ag\u2026: 13.0 s, 12 notes in');
      p.passFinished(1, 3, 'failed');
      p.close();
      const rows = screen(io.err(), 40);
      // The note wraps, as any long message does; the live line never does.
      expect(rows).toEqual(['pass 1: HTTP 500 from api.example.com; r', 'etrying in 1.0s', 'pass 1/2 cmd\u2026: failed, 13.0 s, 12 -> 3\u2026', '']);
      expect(rows.slice(2).every((r) => [...r].length < 40)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    ['CJK', 'cmd:./代理/审稿人-非常长的名字.mjs'],
    ['emoji', 'cmd:./🤖🤖-reviewer-👩‍💻-🇫🇷-agent.mjs'],
  ])('a terminal 40 columns wide and a %s agent name: the live line fits in columns, not code points', (_, agent) => {
    vi.useFakeTimers();
    try {
      const io = terminal(40);
      const p = createProgress(io, false);
      p.passStarted(1, 2, 'reviewer', agent, 3);
      vi.advanceTimersByTime(2000);
      p.passFinished(1, 1, 'done');
      p.close();
      const drawn = io
        .err()
        .split(/\r\u001b\[2K|\n/)
        .filter(Boolean);
      expect(drawn.length).toBeGreaterThan(1);
      for (const line of drawn) expect(displayWidth(line)).toBeLessThanOrEqual(39);
      // The name is cut, not dropped: it starts as it did.
      expect(drawn.at(-1)!.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(/^pass 1\/2 (reviewer )?cmd:\.\/.+\u2026: 2\.0 s, 3 -> 1 note$/u);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a terminal too narrow for the words: the line itself is cut, never wrapped', () => {
    const io = terminal(20, { NO_COLOR: '1' });
    const p = createProgress(io, false);
    p.passStarted(10, 10, 'composer', 'anthropic:claude-sonnet', 100);
    p.passFinished(10, 0, 'done');
    const rows = screen(io.err(), 20);
    expect(rows).toEqual([expect.stringMatching(/^pass 10\/10 ant\u2026: 0\u2026$/), '']);
    expect([...rows[0]!]).toHaveLength(19);
  });

  it('a terminal that does not say its width is taken as 80 columns', () => {
    const io = terminal(undefined, { NO_COLOR: '1' });
    const p = createProgress(io, false);
    p.passStarted(1, 1, 'reviewer', 'x'.repeat(200), 0);
    p.passFinished(1, 0, 'done');
    expect(screen(io.err(), 80)).toEqual([expect.stringMatching(/^pass 1\/1 reviewer x+\u2026: \d+\.\d s, 0 -> 0 notes$/), '']);
    expect([...screen(io.err(), 80)[0]!]).toHaveLength(79);
    expect(io.err()).not.toMatch(SGR);
  });

  it('quiet: prints nothing at all', () => {
    for (const tty of [false, true]) {
      const io = fakeIo(root, { stderrTTY: tty });
      const p = createProgress(io, true);
      p.passStarted(1, 2, 'reviewer', 'mock', 0);
      p.note('hello');
      p.passFinished(1, 0, 'done');
      p.close();
      expect(io.err()).toBe('');
      expect(io.out()).toBe('');
    }
  });
});
