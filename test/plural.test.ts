import { describe, expect, it } from 'vitest';
import { plural } from '../src/plural.js';

describe('plural', () => {
  it('one of a thing is singular, any other count plural, with the plural given where -s is wrong', () => {
    expect([0, 1, 2].map((n) => plural(n, 'note'))).toEqual(['0 notes', '1 note', '2 notes']);
    expect(plural(1, 'dispatch', 'dispatches')).toBe('1 dispatch');
    expect(plural(3, 'retry', 'retries')).toBe('3 retries');
  });
});

describe('counts in messages that can be one', () => {
  it('a reply of one word is refused as "1 word", not "1 words"', async () => {
    const { documentMode } = await import('../src/engine/reply.js');
    const doc = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
    const verdict = documentMode.accept('Short.', {
      sent: doc,
      original: doc,
      delimiters: { open: '<<<', close: '>>>' } as never,
      maxBytes: 1_000_000,
      summaryRatio: 0.5,
      summaryMinWords: 50,
    } as never);
    expect(verdict).toMatchObject({ ok: false });
    expect(JSON.stringify(verdict)).toContain('The reply has 1 word but');
  });
});
