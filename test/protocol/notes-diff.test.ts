import { describe, expect, it } from 'vitest';
import { diffNotes, noteKey, scanNotes, type Note } from '../../src/protocol/scanner.js';

const note = (kind: string, text: string, line = 1): Note => ({
  kind,
  text,
  line,
  column: 1,
  offset: 0,
  refersTo: null,
  canonical: true,
});
const texts = (notes: Note[]): string[] => notes.map((n) => `${n.kind}:${n.text}`);

describe('noteKey', () => {
  it('is the kind and the whitespace-normalised text', () => {
    expect(noteKey(note('CLARIFY', '  [CLARIFY]  a\n b '))).toBe('CLARIFY\u0000[CLARIFY] a b');
  });
  it('ignores position', () => {
    expect(noteKey(note('CLARIFY', 'x', 3))).toBe(noteKey(note('CLARIFY', 'x', 30)));
  });
});

describe('diffNotes', () => {
  it('finds nothing when the notes are unchanged, even if moved', () => {
    const before = [note('CLARIFY', 'a', 1), note('CONTESTED', 'b', 2)];
    const after = [note('CONTESTED', 'b', 9), note('CLARIFY', 'a', 12)];
    expect(diffNotes(before, after)).toEqual({ added: [], resolved: [] });
  });
  it('reports new and deleted notes', () => {
    const { added, resolved } = diffNotes([note('CLARIFY', 'a'), note('CLARIFY', 'b')], [note('CLARIFY', 'b'), note('CONTESTED', 'c')]);
    expect(texts(added)).toEqual(['CONTESTED:c']);
    expect(texts(resolved)).toEqual(['CLARIFY:a']);
  });
  it('treats notes as a multiset: one of two duplicates resolved', () => {
    const { added, resolved } = diffNotes([note('CLARIFY', 'same'), note('CLARIFY', 'same')], [note('CLARIFY', 'same')]);
    expect(added).toEqual([]);
    expect(texts(resolved)).toEqual(['CLARIFY:same']);
  });
  it('of two notes with one text, the one resolved is the one whose place is gone, not the first', () => {
    const unit = '[CLARIFY] Which unit? (A) ms (B) s';
    const sent = scanNotes(`Timeout 5.\n${unit}\n\nDelay 6.\n${unit}\n`);
    // The first deleted (its paragraph rewritten), the second kept under its paragraph.
    expect(diffNotes(sent, scanNotes(`Timeout 5 ms.\n\nDelay 6.\n${unit}\n`)).resolved.map((n) => n.line)).toEqual([2]);
    // The second deleted: the first is kept where it was.
    expect(diffNotes(sent, scanNotes(`Timeout 5.\n${unit}\n\nDelay 6 s.\n`)).resolved.map((n) => n.line)).toEqual([5]);
    // The first deleted, the paragraph of the one kept rewritten: the nearer place tells them apart.
    expect(diffNotes(sent, scanNotes(`Timeout 5.\n\nDelay 6 s.\n${unit}\n`)).resolved.map((n) => n.line)).toEqual([2]);
    // The kept note's paragraph rewritten and lines deleted above both: the text it refers to still tells.
    const above = scanNotes(`C1\nC2\nC3\nC4\n\nA para.\n${unit}\n\nB para.\n${unit}\n`);
    expect(diffNotes(above, scanNotes(`A para.\n\nB para two.\n${unit}\n`)).resolved.map((n) => n.line)).toEqual([7]);
    // A note added beside an identical one: the new one is the one at a new place.
    expect(diffNotes(scanNotes(`Delay 6.\n${unit}\n`), scanNotes(`Timeout 5.\n${unit}\n\nDelay 6.\n${unit}\n`)).added.map((n) => n.line)).toEqual([2]);
  });
  it('notes known only by kind and text (read back from records) pair in order, as before', () => {
    const bare = (text: string) => ({ kind: 'CLARIFY', text });
    expect(diffNotes([bare('x'), bare('x'), bare('y')], [bare('x')]).resolved).toEqual([bare('x'), bare('y')]);
  });
  it('treats notes as a multiset: a duplicate added', () => {
    const { added, resolved } = diffNotes([note('CLARIFY', 'same')], [note('CLARIFY', 'same'), note('CLARIFY', 'same')]);
    expect(texts(added)).toEqual(['CLARIFY:same']);
    expect(resolved).toEqual([]);
  });
  it('counts an edited note as one resolved plus one added', () => {
    const { added, resolved } = diffNotes([note('CONTESTED', 'cap at 2')], [note('CONTESTED', 'cap at 3')]);
    expect(texts(added)).toEqual(['CONTESTED:cap at 3']);
    expect(texts(resolved)).toEqual(['CONTESTED:cap at 2']);
  });
  it('counts a changed kind as an edit', () => {
    const { added, resolved } = diffNotes([note('CLARIFY', 'x')], [note('CONTESTED', 'x')]);
    expect([added.length, resolved.length]).toEqual([1, 1]);
  });
  it('does not count re-wrapped text as an edit', () => {
    expect(diffNotes([note('CLARIFY', 'a  b')], [note('CLARIFY', 'a\nb')])).toEqual({ added: [], resolved: [] });
  });
  it('works on scanned documents between passes', () => {
    const before = scanNotes('Retry 5 times.\n[CONTESTED] Too many.\n\nRate-limit all.\n[CLARIFY] Which endpoints?\n');
    const after = scanNotes('Retry 2 times.\n\nRate-limit all.\n[CLARIFY] Which\nendpoints?\n\nLog it.\n[CLARIFY] Where?\n');
    const { added, resolved } = diffNotes(before, after);
    expect(texts(resolved)).toEqual(['CONTESTED:[CONTESTED] Too many.']);
    expect(texts(added)).toEqual(['CLARIFY:[CLARIFY] Where?']);
  });
  it('handles empty sides', () => {
    expect(diffNotes([], [])).toEqual({ added: [], resolved: [] });
    expect(texts(diffNotes([], [note('CLARIFY', 'x')]).added)).toEqual(['CLARIFY:x']);
    expect(texts(diffNotes([note('CLARIFY', 'x')], []).resolved)).toEqual(['CLARIFY:x']);
  });
});
