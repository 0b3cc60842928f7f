import { describe, expect, it } from 'vitest';
import { plural } from '../src/plural.js';

describe('plural', () => {
  it('one of a thing is singular, any other count plural, with the plural given where -s is wrong', () => {
    expect([0, 1, 2].map((n) => plural(n, 'note'))).toEqual(['0 notes', '1 note', '2 notes']);
    expect(plural(1, 'dispatch', 'dispatches')).toBe('1 dispatch');
    expect(plural(3, 'retry', 'retries')).toBe('3 retries');
  });
});
