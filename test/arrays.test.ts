import { describe, expect, it } from 'vitest';
import { firstAtLeast, maxOf, pushAll } from '../src/arrays.js';

describe('pushAll and maxOf', () => {
  // Past about 10^5 items, push(...items) and Math.max(...values) overflow the call stack.
  const many = Array.from({ length: 300_000 }, (_, i) => i);

  it('pushAll appends every item in order and returns the same array, for any number of items', () => {
    const into = [-1];
    expect(pushAll(into, many)).toBe(into);
    expect(into).toHaveLength(300_001);
    expect(into.slice(0, 3)).toEqual([-1, 0, 1]);
    expect(pushAll([], new Set(['a', 'b']))).toEqual(['a', 'b']);
  });

  it('maxOf is the largest value, or the floor when none is larger', () => {
    expect(maxOf(0, many)).toBe(299_999);
    expect(maxOf(5, [1, 2, 3])).toBe(5);
    expect(maxOf(-Infinity, [])).toBe(-Infinity);
    expect(maxOf(0, [-3, -1])).toBe(0);
  });
});

describe('firstAtLeast', () => {
  it('finds the first value at least the one asked for in an ascending array, or its length', () => {
    const sorted = [2, 4, 4, 9];
    expect([0, 2, 3, 4, 5, 9, 10].map((v) => firstAtLeast(sorted, v))).toEqual([0, 0, 1, 1, 3, 3, 4]);
    expect(firstAtLeast(Int32Array.from([]), 1)).toBe(0);
  });
});
