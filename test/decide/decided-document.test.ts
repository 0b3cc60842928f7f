import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/decide/answers.js';
import { decidedDocument, decisionNote, withoutMarkers } from '../../src/decide/decided-document.js';
import { finding } from './finding.js';

const MARKERS = ['CONTESTED', 'CLARIFY'];
const reading = { syntax: 'markdown' as const, markers: MARKERS };
const decided = (decision: Decision, over = {}) => ({
  note: finding(over),
  decision,
  alternative: 'Use five retries with backoff.',
  counter: 'Three is enough.',
});
const DOC = '# Retry\n\nThe service retries three times.\n[CONTESTED] Three retries is too few. Use five with backoff.\n\nIt logs failures.\n';

describe('the decided document', () => {
  it('replaces an open note with the decision, or deletes it for the composer', () => {
    expect(decidedDocument(DOC, [decided({ side: 'reviewer' })], 'human:ana', reading)).toBe(
      '# Retry\n\nThe service retries three times.\n[CONTESTED] human:ana decided for the reviewer (on the note "Three retries is too few. Use five with backoff."); make this change: Use five retries with backoff.\n\nIt logs failures.\n',
    );
    expect(decidedDocument(DOC, [decided({ side: 'composer' })], 'human:ana', reading)).toBe(
      '# Retry\n\nThe service retries three times.\n\nIt logs failures.\n',
    );
  });

  it("puts a dismissed note's decision below the paragraph it stood under, else at the end", () => {
    const now = '# Retry\n\nThe service retries three times.\nEach waits two seconds.\n\nIt logs failures.\n';
    const own = decided({ side: 'own', text: 'Say why three.' }, { fate: 'dismissed' });
    expect(decidedDocument(now, [own], 'human:ana', reading)).toBe(
      '# Retry\n\nThe service retries three times.\nEach waits two seconds.\n[CONTESTED] human:ana decided (on the note "Three retries is too few. Use five with backoff."): Say why three.\n\nIt logs failures.\n',
    );
    const gone = '# Retry\n\nAll new text.\n';
    expect(decidedDocument(gone, [own], 'human:ana', reading)).toBe(
      '# Retry\n\nAll new text.\n\n[CONTESTED] human:ana decided (on the note "Three retries is too few. Use five with backoff."): Say why three.\n',
    );
    expect(decidedDocument(now, [decided({ side: 'composer' }, { fate: 'dismissed' })], 'human:ana', reading)).toBe(now);
  });

  it('writes no marker inside a note, and one line whatever the text', () => {
    expect(withoutMarkers('keep [CONTESTED] and\n[clarify] out, but [x] stays', MARKERS)).toBe('keep CONTESTED and clarify out, but [x] stays');
    expect(decisionNote('human:ana', decided({ side: 'own', text: 'a [CLARIFY] b' }), MARKERS)).toMatch(/: a CLARIFY b$/);
    expect(decisionNote('human:ana', decided({ side: 'composer' }), MARKERS)).toBeNull();
  });
});
