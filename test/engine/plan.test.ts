import { describe, expect, it } from 'vitest';
import { roleForPass } from '../../src/engine/plan.js';

describe('roleForPass', () => {
  it('reviewer on odd passes, composer on even ones', () => {
    expect([1, 2, 3, 4, 5, 10].map(roleForPass)).toEqual(['reviewer', 'composer', 'reviewer', 'composer', 'reviewer', 'composer']);
  });
});
