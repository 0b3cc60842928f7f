import { describe, expect, it } from 'vitest';
import { runFixes } from '../../src/formats/run-fixes.js';
import { testFinding } from '../support/report.js';

/** Applies each fix (at most one per change) from the end of the text back. */
function apply(text: string, fixes: { offset: number; length: number; inserted: string }[]): string {
  const unique = [...new Map(fixes.map((f) => [f.offset, f])).values()].sort((x, y) => y.offset - x.offset);
  return unique.reduce((t, f) => t.slice(0, f.offset) + f.inserted + t.slice(f.offset + f.length), text);
}

describe('runFixes', () => {
  const original = 'Intro.\n\nRetry 5 times.\n[CONTESTED] Too many: cap at 2.\n\nAll endpoints.\n[CLARIFY] /metrics too? (A) yes (B) no\n\nEnd.\n';
  const final = 'Intro.\n\nRetry at most 2 times.\n\nAll endpoints.\n\nEnd.\n';
  const run = { runId: 'r-1', original, final };
  const notes = [testFinding(4), testFinding(7, 'CLARIFY')];

  it("each note the run resolved gets the change the run made there; applying them gives the run's final document", () => {
    const fixes = runFixes(original, run, notes);
    expect(fixes.size).toBe(2);
    const contested = fixes.get(notes[0]!)!;
    expect(original.slice(contested.offset, contested.offset + contested.length)).toBe('Retry 5 times.\n[CONTESTED] Too many: cap at 2.\n');
    expect(contested.inserted).toBe('Retry at most 2 times.\n');
    // A dismissed note: its line removed, nothing put in.
    expect(fixes.get(notes[1]!)).toMatchObject({ runId: 'r-1', inserted: '' });
    expect(apply(original, [...fixes.values()])).toBe(final);
  });

  it('CRLF line endings and no final newline are kept as the documents have them', () => {
    const o = 'A.\r\n[CLARIFY] x? (A) a (B) b\r\nB.';
    const f = 'A, clearer.\r\nB.';
    const fixes = runFixes(o, { runId: 'r', original: o, final: f }, [testFinding(2, 'CLARIFY')]);
    expect(apply(o, [...fixes.values()])).toBe(f);
  });

  it("a document that is not the run's original gets no fix", () => {
    expect(runFixes(`${original}more\n`, run, notes).size).toBe(0);
  });
});
