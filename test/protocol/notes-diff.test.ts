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
