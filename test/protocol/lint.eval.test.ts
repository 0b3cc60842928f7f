import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lintNotes } from '../../src/protocol/lint.js';
import { scanNotes } from '../../src/protocol/scanner.js';

interface Labelled {
  kind: string;
  expected: string;
  words: string;
}

/** The labelled notes of one half (test/fixtures/lint/*.tsv). */
function labelled(file: string): Labelled[] {
  const text = readFileSync(new URL(`../fixtures/lint/${file}`, import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const [kind, expected, words] = l.split('\t');
      return { kind: kind!, expected: expected!, words: words! };
    });
}

/**
 * The content rules' verdict on a note placed canonically below a line of text: `ok` or the
 * rule it breaks. A note with no words ("??") breaks `empty-note` instead, which is as much a
 * miss of its kind's rule: it is counted as that rule.
 */
function verdict(n: Labelled): string {
  const doc = `The passage the note is about.\n[${n.kind}] ${n.words}\n`;
  const rule = lintNotes(scanNotes(doc), doc, ['empty-note', 'dissent-only', 'open-ended'])[0]?.rule ?? 'ok';
  if (rule !== 'empty-note') return rule;
  return n.kind === 'CONTESTED' ? 'dissent-only' : 'open-ended';
}

function misses(notes: Labelled[]): string[] {
  return notes.filter((n) => verdict(n) !== n.expected).map((n) => `${n.kind} expected ${n.expected}, got ${verdict(n)}: ${n.words}`);
}

describe('the content rules on labelled notes', () => {
  const tuning = labelled('tuning.tsv');
  const heldOut = labelled('held-out.tsv');
  // Written by seven authors who had only the protocol's definitions of the notes, never the rules.
  const blindTuning = labelled('blind-tuning.tsv');
  const blindHeldOut = labelled('blind-held-out.tsv');

  it('each half holds 50 or more notes, of both kinds and every verdict', () => {
    for (const half of [tuning, heldOut, blindTuning, blindHeldOut]) {
      expect(half.length).toBeGreaterThanOrEqual(50);
      expect(new Set(half.map((n) => `${n.kind} ${n.expected}`))).toEqual(
        new Set(['CONTESTED ok', 'CONTESTED dissent-only', 'CLARIFY ok', 'CLARIFY open-ended']),
      );
    }
  });

  it('the tuning half: every note right', () => {
    expect(misses(tuning)).toEqual([]);
  });

  it('the held-out half: at least 96% right', () => {
    const wrong = misses(heldOut);
    const accuracy = 1 - wrong.length / heldOut.length;
    expect(accuracy, wrong.join('\n')).toBeGreaterThanOrEqual(0.96);
  });

  it('the blind tuning half: at least 98% right', () => {
    const wrong = misses(blindTuning);
    const accuracy = 1 - wrong.length / blindTuning.length;
    expect(accuracy, wrong.join('\n')).toBeGreaterThanOrEqual(0.98);
  });

  // The goal for notes no one here wrote (the rules reached 234 of 240, 97.5%, when this corpus
  // was first measured). Only the count is reported, so the corpus stays held out.
  it('the blind held-out corpus: at least 96% right', () => {
    const wrong = misses(blindHeldOut).length;
    const accuracy = 1 - wrong / blindHeldOut.length;
    expect(accuracy, `${blindHeldOut.length - wrong} of ${blindHeldOut.length} right`).toBeGreaterThanOrEqual(0.96);
  });
});
