import { describe, expect, it } from 'vitest';
import { assertContextValues, commaList, repeatable } from '../src/option-values.js';
import { usageErrorOf } from './support/errors.js';

describe('repeatable and commaList', () => {
  it('repeatable adds one value a use', () => {
    expect(repeatable('b.md', repeatable('a.md', undefined))).toEqual(['a.md', 'b.md']);
    expect(repeatable('a,b', undefined)).toEqual(['a,b']);
  });

  it('commaList also splits a use at commas, trimming each name', () => {
    expect(commaList('TODO', commaList('RISK, NOTE', undefined))).toEqual(['RISK', 'NOTE', 'TODO']);
  });
});

describe('assertContextValues', () => {
  it('refuses a document right after a --context value, naming both readings', () => {
    const err = usageErrorOf(() => assertContextValues(['a.md', '--context', 'c.md', 'b.md'], ['a.md', 'b.md']));
    expect(err.message).toContain('b.md after --context c.md is read as another document to refine, not as context');
    expect(err.hint).toContain('--context c.md --context b.md');
    usageErrorOf(() => assertContextValues(['a.md', '--context=c.md', 'b.md'], ['a.md', 'b.md']));
  });

  it('accepts the first document after --context, an option after it, and --context at the end', () => {
    expect(() => assertContextValues(['--context', 'c.md', 'a.md'], ['a.md'])).not.toThrow();
    expect(() => assertContextValues(['a.md', '--context', 'c.md', '--passes', '2'], ['a.md'])).not.toThrow();
    expect(() => assertContextValues(['a.md', '--context', 'c.md'], ['a.md'])).not.toThrow();
  });
});
