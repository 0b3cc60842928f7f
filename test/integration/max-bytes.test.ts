import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import { editBlocksFor } from '../../src/text/edit-blocks.js';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

/**
 * Every stage at the default `max_bytes`, with the shapes that break code written for short
 * documents: the most short lines that fit, the first and last or every line changed. A spread of
 * an array with one item per line (`push(...ops)`) overflows the call stack on such input.
 */
const MAX = DEFAULT_CONFIG.max_bytes;
const NOTE = '[CLARIFY] Which readers is this written for?';
/** Each test does megabytes of work on a machine that may be busy: no limit on how long it takes, only a generous stop. */
const SLOW_MS = 300_000;
/** Room for the note the review adds, so every document of the run stays under MAX. */
const ROOM = NOTE.length + 64;
const END = 'The end.';

/**
 * `actual` is `expected`, compared by length and hash first: a failed toBe on megabyte strings
 * spends minutes computing a diff no one can read.
 */
function expectSameText(actual: string, expected: string, what: string): void {
  const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
  let where = 0;
  while (where < actual.length && actual[where] === expected[where]) where++;
  expect({ what, length: actual.length, sha256: sha(actual), around: actual.slice(Math.max(0, where - 40), where + 40) }).toEqual({
    what,
    length: expected.length,
    sha256: sha(expected),
    around: expected.slice(Math.max(0, where - 40), where + 40),
  });
}

/** Distinct short lines (base-36 numbers after `prefix`), as many as fit in `bytes`. */
function shortLines(prefix: string, bytes: number): string[] {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; ; i++) {
    const line = `${prefix}${i.toString(36)}`;
    if (size + line.length + 1 > bytes) return lines;
    lines.push(line);
    size += line.length + 1;
  }
}

/** One line of `piece(0) piece(1) …`, at most `bytes` long (newline included). */
function longLine(piece: (i: number) => string, bytes: number): string {
  let line = '';
  for (let i = 0; ; i++) {
    const next = piece(i);
    if (line.length + next.length + 1 > bytes) return line.trimEnd();
    line += next;
  }
}

interface Shape {
  name: string;
  original: string;
  /** What the reviewer returns: the document changed, with NOTE as a paragraph after its first line. */
  reviewed: string;
  /** The edit formats a refine of this shape is tested with. */
  formats: readonly ('whole' | 'edits')[];
}

const withNote = (lines: readonly string[]): string => `${[lines[0], '', NOTE, '', ...lines.slice(1)].join('\n')}\n`;

function shapes(): Shape[] {
  const many = shortLines('a', MAX - ROOM);
  const edges = [`b${many[0]}`, ...many.slice(1, -1), `b${many.at(-1)}`];
  // One line as long as max_bytes allows: words (a paragraph of one line), and one run of a single character.
  // A short last line after it, so the note sits between two paragraphs as in the other shapes.
  const words = longLine((i) => `w${i.toString(36)} `, MAX - ROOM - END.length);
  const solid = 'x'.repeat(MAX - ROOM - END.length - 2);
  return [
    { name: 'many short lines, the first and the last changed', original: `${many.join('\n')}\n`, reviewed: withNote(edges), formats: ['whole', 'edits'] },
    {
      name: 'many short lines, every one changed',
      original: `${many.join('\n')}\n`,
      reviewed: withNote(many.map((l) => l.replace(/^a/, 'b'))),
      formats: ['whole', 'edits'],
    },
    { name: 'one long line of words, changed', original: `${words}\n${END}\n`, reviewed: withNote([`X${words.slice(1)}`, END]), formats: ['whole', 'edits'] },
    {
      name: 'one long line without a space, changed',
      original: `${solid}\n${END}\n`,
      reviewed: withNote([`y${solid.slice(1)}`, END]),
      formats: ['whole', 'edits'],
    },
  ];
}

/** The document after the mock composer deleted the note (the note's line and the blank line after it). */
const resolved = (shape: Shape): string => shape.reviewed.replace(`${NOTE}\n\n`, '');

let dir: string;
beforeAll(() => {
  dir = tempDir();
});

const runDirs = (cwd: string): string[] => readdirSync(join(cwd, 'runs')).filter((n) => !n.startsWith('.'));

describe.each(shapes().map((s, i) => [s.name, s, i] as const))('at max_bytes: %s', (_name, shape, i) => {
  for (const format of shape.formats) {
    it(`refine (--edit-format ${format}) converges${format === 'whole' ? ', and diff, report and show read the run' : ''}`, { timeout: SLOW_MS }, async () => {
      const cwd = join(dir, `${i}-${format}`);
      mkdirSync(cwd);
      expect(Buffer.byteLength(shape.original)).toBeLessThanOrEqual(MAX);
      expect(Buffer.byteLength(shape.reviewed)).toBeLessThanOrEqual(MAX);
      writeFileSync(join(cwd, 'doc.md'), shape.original);
      // In edit mode the scripted review is the edit blocks of the change, the composer's come from the mock itself.
      const reply = format === 'edits' ? editBlocksFor(shape.original, shape.reviewed) : shape.reviewed;
      writeFileSync(join(cwd, 'review.json'), JSON.stringify({ steps: { '1': reply } }));
      const r = await runMain(
        ['refine', 'doc.md', '--passes', '2', '--edit-format', format, '--reviewer', 'mock:review.json', '--composer', 'mock', '--json'],
        {
          cwd,
        },
      );
      expect(r.stderr).not.toContain('internal error');
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'converged', exit_code: 0 });
      expect(r.code).toBe(0);
      const [run] = runDirs(cwd);
      const runDir = join(cwd, 'runs', run!);
      expect(JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')).status).toBe('converged');
      expectSameText(readFileSync(join(runDir, 'final.md'), 'utf8'), resolved(shape), 'final.md');
      // The readers take no edit format: one run of each shape is enough for them.
      if (format === 'edits') return;

      const diff = await runMain(['diff', runDir, '1'], { cwd });
      expect(diff.stderr).toBe('');
      expect(diff.code).toBe(0);
      const removed = shape.original.split('\n')[0]!;
      expect(diff.stdout.split('\n')).toContain(`-${removed}`);
      expect(diff.stdout.split('\n')).toContain(`+${NOTE}`);

      const report = await runMain(['report', runDir], { cwd });
      expect(report.stderr).toBe('');
      expect(report.code).toBe(0);
      expect(existsSync(join(runDir, 'report.html'))).toBe(true);
      const html = readFileSync(join(runDir, 'report.html'), 'utf8');
      expect(html).toContain('Which readers is this written for?');
      // Every line changed: the page shows the first rows of each table and says how many more there are.
      if (shape.name.includes('every one')) expect(html).toMatch(/&#8943; \d+ more lines not shown here: <code>bounce diff<\/code> prints the whole change/);
      expect(html.length).toBeLessThan(20 * MAX);

      const show = await runMain(['show', runDir], { cwd });
      expect(show.code).toBe(0);
      expect(show.stdout).toContain('converged');
    });
  }

  it('scan finds the one note', { timeout: SLOW_MS }, async () => {
    const cwd = join(dir, `${i}-scan`);
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'doc.md'), shape.reviewed);
    const r = await runMain(['scan', 'doc.md', '--lint'], { cwd });
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('doc.md:3:1 CLARIFY');
  });
});

describe('at max_bytes: 150,000 notes', () => {
  it('scan and scan --lint report every one', { timeout: SLOW_MS }, async () => {
    const cwd = join(dir, 'notes');
    mkdirSync(cwd);
    // 150,000 notes, each a paragraph of its own with no text (so each breaks a lint rule too).
    const doc = '[CLARIFY]\n\n'.repeat(150_000);
    expect(Buffer.byteLength(doc)).toBeLessThanOrEqual(MAX);
    writeFileSync(join(cwd, 'notes.md'), doc);
    const scan = await runMain(['scan', 'notes.md', '--format', 'json'], { cwd });
    expect(scan.code).toBe(1);
    expect((JSON.parse(scan.stdout) as { files: { notes: unknown[] }[] }).files[0]?.notes).toHaveLength(150_000);
    const lint = await runMain(['scan', 'notes.md', '--lint', '--format', 'json'], { cwd });
    expect(lint.stderr).not.toContain('internal error');
    expect(lint.code).toBe(1);
    // The notes, then at least one lint finding for each.
    expect((JSON.parse(lint.stdout) as { files: { notes: unknown[] }[] }).files[0]?.notes.length).toBeGreaterThanOrEqual(300_000);
  });
});
