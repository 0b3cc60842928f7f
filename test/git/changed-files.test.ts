import { describe, expect, it } from 'vitest';
import { unquote } from '../../src/git/changed-files.js';

describe('unquote', () => {
  it('reads the C-quoted paths of a diff header: escapes, octal UTF-8 bytes, and plain names as they are', () => {
    expect(unquote('b/docs/a.md')).toBe('b/docs/a.md');
    expect(unquote('"b/a\\tb\\"c\\\\d.md"')).toBe('b/a\tb"c\\d.md');
    expect(unquote('"b/caf\\303\\251 \\360\\237\\230\\200.md"')).toBe('b/café 😀.md');
    expect(unquote('"b/raw é.md"')).toBe('b/raw é.md');
  });
});
