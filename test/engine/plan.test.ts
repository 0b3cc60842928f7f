import { describe, expect, it } from 'vitest';
import { lensForPass, roleForPass } from '../../src/engine/plan.js';

describe('roleForPass', () => {
  it('reviewer on odd passes, composer on even ones', () => {
    expect([1, 2, 3, 4, 5, 10].map(roleForPass)).toEqual(['reviewer', 'composer', 'reviewer', 'composer', 'reviewer', 'composer']);
  });
});

describe('lensForPass', () => {
  const a = { name: 'security', text: 'A' };
  const b = { name: 'clarity', text: 'B' };
  it('gives the reviewer passes the lenses in turn, round again, and the composer passes none', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((p) => lensForPass([a, b], p)?.name ?? null)).toEqual(['security', null, 'clarity', null, 'security', null, 'clarity']);
    expect(lensForPass([a, b], 1)?.varies).toBe(true);
    expect(lensForPass([a], 3)).toEqual({ ...a, varies: false });
    expect(lensForPass([], 1)).toBeNull();
  });
});
