import { describe, expect, it } from 'vitest';
import { esc } from '../../src/report/escape.js';

describe('esc', () => {
  it('escapes the five characters that can end text or an attribute in HTML', () => {
    expect(esc(`<script>alert("x" & 'y')</script>`)).toBe('&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;');
  });

  it('prints numbers as they are, and nothing for null or undefined', () => {
    expect(esc(42)).toBe('42');
    expect(esc(null)).toBe('');
    expect(esc(undefined)).toBe('');
    expect(esc('&amp;')).toBe('&amp;amp;');
  });
});
