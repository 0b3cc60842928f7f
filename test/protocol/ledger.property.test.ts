import { describe, expect, it } from 'vitest';
import { judgeResolved } from '../../src/protocol/ledger.js';
import { diffNotes, scanNotes } from '../../src/protocol/scanner.js';
import { seeded } from '../support/random.js';

/**
 * The ledger's rule for every placement of a note: random Markdown documents (headings,
 * paragraphs, lists, code blocks, blank lines) get notes at random places (on their own line
 * after a paragraph, inside a paragraph, under a heading, after a list item; with and without
 * blank lines around them; stacked; wrapped over two lines). A pass that only deletes the
 * notes dismisses every one; a pass that rewrites one block acts on exactly the notes that
 * refer to it. What a note refers to comes from how the document was built, not from the
 * ledger. LEDGER_SEED and LEDGER_N widen the search locally; CI runs the fixed seed.
 */

const WORDS = (
  'alpha bravo cedar delta ember fjord grove harbor iris juniper kelp lumen maple nectar onyx pine quartz raven sage tundra ' +
  'umber vale willow xenon yarrow zephyr amber basalt coral dune elm flint garnet heron ivory jade kestrel lichen moss ' +
  'nimbus ochre pebble quill reed slate thistle ursa vetch wren yew zinc'
).split(' ');

type Kind = 'heading' | 'paragraph' | 'item' | 'code';
interface Unit {
  kind: Kind;
  /** Lines of the document, as indexes into `Doc.lines`. */
  lines: number[];
}
interface Doc {
  lines: string[];
  /** The unit each line belongs to (-1: a blank line). */
  unitOf: number[];
  units: Unit[];
}

/** What a slot is: where the notes go (after which line of the document) and the units they refer to. */
interface Slot {
  after: number;
  refs: number[];
  shape: string;
}

function generator(r: () => number) {
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
  const words = (lo: number, hi: number): string => Array.from({ length: int(lo, hi) }, () => pick(WORDS)).join(' ');
  let noteCount = 0;

  function doc(): Doc {
    const d: Doc = { lines: [], unitOf: [], units: [] };
    const unit = (kind: Kind, lines: string[]): void => {
      const id = d.units.length;
      d.units.push({ kind, lines: lines.map((_, i) => d.lines.length + i) });
      for (const l of lines) {
        d.lines.push(l);
        d.unitOf.push(id);
      }
    };
    const blanks = (lo: number, hi: number): void => {
      for (let k = int(lo, hi); k > 0; k--) {
        d.lines.push('');
        d.unitOf.push(-1);
      }
    };
    const paragraph = (): void =>
      unit(
        'paragraph',
        Array.from({ length: int(1, 4) }, () => words(4, 9)),
      );
    for (let s = int(1, 3); s > 0; s--) {
      if (d.lines.length) blanks(1, 2);
      unit('heading', [`${'#'.repeat(int(1, 3))} ${words(2, 4)}`]);
      // A paragraph right under its heading, or after a blank line.
      blanks(0, 1);
      paragraph();
      for (let b = int(0, 3); b > 0; b--) {
        blanks(1, 2);
        const kind = pick(['paragraph', 'paragraph', 'list', 'code'] as const);
        if (kind === 'paragraph') paragraph();
        else if (kind === 'list') {
          for (let i = int(2, 4); i > 0; i--) unit('item', [`- ${words(3, 6)}`, ...(r() < 0.3 ? [`  ${words(3, 6)}`] : [])]);
        } else {
          // A marker in code is not a note; blank lines in code are code.
          const body = Array.from({ length: int(1, 4) }, () => pick([words(2, 5), '', '[CLARIFY] literal text in code']));
          unit('code', ['```', ...body, '```']);
        }
      }
    }
    return d;
  }

  /** Where notes can go in a document, with the units each placement refers to. */
  function slots(d: Doc): Slot[] {
    const out: Slot[] = [];
    d.units.forEach((u, id) => {
      const last = u.lines.at(-1)!;
      if (u.kind === 'paragraph') {
        out.push({ after: last, refs: [id], shape: 'after a paragraph' });
        for (const l of u.lines.slice(0, -1)) out.push({ after: l, refs: [id], shape: 'inside a paragraph' });
      } else if (u.kind === 'heading') {
        // Every heading is followed by a paragraph (the generator makes it so).
        const next = d.unitOf.findIndex((v, i) => i > last && v >= 0);
        out.push({ after: last, refs: [id, d.unitOf[next]!], shape: 'under a heading' });
      } else if (u.kind === 'item') out.push({ after: last, refs: [id], shape: 'after a list item' });
    });
    return out;
  }

  function note(indent: string): string[] {
    const n = ++noteCount;
    const head =
      r() < 0.5
        ? `[CONTESTED] the ${words(2, 4)} part ${n} is wrong. Write ${words(2, 3)} instead.`
        : `[CLARIFY] which ${words(1, 3)} ${n}? (A) ${pick(WORDS)} (B) ${pick(WORDS)}`;
    // Some notes wrap over a second line.
    return [head, ...(r() < 0.3 ? [words(3, 6)] : [])].map((l) => indent + l);
  }

  /** The document with notes at 1 to 3 random slots: its lines, which of them are notes, and each note's slot in order. */
  function noted(d: Doc): { lines: string[]; isNote: boolean[]; slotOfNote: Slot[] } {
    const all = slots(d);
    const chosen = new Map<number, Slot>();
    for (let k = int(1, 3); k > 0; k--) {
      const s = pick(all);
      chosen.set(s.after, s);
    }
    const lines: string[] = [];
    const isNote: boolean[] = [];
    const slotOfNote: Slot[] = [];
    d.lines.forEach((line, i) => {
      lines.push(line);
      isNote.push(false);
      const slot = chosen.get(i);
      if (!slot) return;
      const indent = slot.shape === 'after a list item' && r() < 0.5 ? '  ' : '';
      for (let k = int(1, 2); k > 0; k--) {
        if (r() < 0.3) {
          lines.push('');
          isNote.push(false);
        }
        for (const l of note(indent)) {
          lines.push(l);
          isNote.push(true);
        }
        slotOfNote.push(slot);
      }
      if (r() < 0.3) {
        lines.push('');
        isNote.push(false);
      }
    });
    return { lines, isNote, slotOfNote };
  }

  /** The document with one unit rewritten: every line of it changed, its line count too at times. */
  function rewrite(d: Doc, id: number): string[] {
    const u = d.units[id]!;
    const fresh = (): string => `revised ${words(3, 6)}`;
    const replaced =
      u.kind === 'heading'
        ? [`## revised ${words(1, 3)}`]
        : u.kind === 'item'
          ? [`- ${fresh()}`]
          : u.kind === 'code'
            ? ['```', fresh(), '```']
            : Array.from({ length: int(1, 4) }, fresh);
    const out = [...d.lines];
    out.splice(u.lines[0]!, u.lines.length, ...replaced);
    return out;
  }

  return { doc, noted, rewrite, int };
}

const text = (lines: string[]): string => `${lines.join('\n')}\n`;
const md = (t: string) => ({ text: t, notes: scanNotes(t, { syntax: 'markdown' }), markdown: true });

/** The fate of every note of `sent`, judged against `after` (every note resolved). */
function judge(sent: string, after: string): string[] {
  const s = md(sent);
  const a = md(after);
  const { resolved } = diffNotes(s.notes, a.notes);
  expect(resolved).toHaveLength(s.notes.length);
  return judgeResolved(s, resolved, a).map((j) => j.fate);
}

describe('the ledger on random documents and note placements', () => {
  const seed = Number(process.env.LEDGER_SEED ?? 20261201);
  const cases = Number(process.env.LEDGER_N ?? 400);

  it(`${cases} documents: deleting only the notes dismisses each; rewriting one block acts on exactly the notes that refer to it`, () => {
    const r = seeded(seed);
    const g = generator(r);
    const failures: string[] = [];
    const shapes = new Set<string>();
    for (let k = 0; k < cases; k++) {
      const d = g.doc();
      const { lines, isNote, slotOfNote } = g.noted(d);
      const sent = text(lines);
      // The scanner finds exactly the notes written, in order.
      expect(scanNotes(sent, { syntax: 'markdown' }).length, sent).toBe(slotOfNote.length);
      for (const s of slotOfNote) shapes.add(s.shape);
      const report = (what: string, after: string, got: string[], want: string[]): void => {
        if (JSON.stringify(got) !== JSON.stringify(want))
          failures.push(`case ${k} (seed ${seed}), ${what}: got ${got}, want ${want}\n--- sent\n${sent}--- after\n${after}`);
      };
      const dismissed = slotOfNote.map(() => 'dismissed');
      // The composer returns the original byte for byte.
      const original = text(d.lines);
      report('original returned', original, judge(sent, original), dismissed);
      // The composer deletes the note lines and nothing else (blank lines around them stay).
      const deleted = text(lines.filter((_, i) => !isNote[i]));
      report('notes deleted', deleted, judge(sent, deleted), dismissed);
      // The composer rewrites one block: a block a note refers to, or any other.
      const refs = slotOfNote[g.int(0, slotOfNote.length - 1)]!.refs;
      const target = r() < 0.7 ? refs[g.int(0, refs.length - 1)]! : g.int(0, d.units.length - 1);
      const rewritten = text(g.rewrite(d, target));
      const want = slotOfNote.map((s) => (s.refs.includes(target) ? 'acted' : 'dismissed'));
      report(`${d.units[target]!.kind} rewritten`, rewritten, judge(sent, rewritten), want);
    }
    expect(failures.slice(0, 3).join('\n\n')).toBe('');
    // Every placement was tried.
    expect([...shapes].sort()).toEqual(['after a list item', 'after a paragraph', 'inside a paragraph', 'under a heading']);
  });
});
