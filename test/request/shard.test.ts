import { describe, expect, it } from 'vitest';
import { normalisedPath, parseShard, shardOf } from '../../src/request/shard.js';

/** A seeded generator, so a failure names the case that broke. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const NAMES = ['a.md', 'B.md', 'docs/x.md', 'docs/sub/y.md', 'ä.md', 'a\u0308b.md', 'z/index.mdx', 'notes.txt', '10.md', '2.md'];

describe('shardOf', () => {
  it('for many sets and shard counts: the shards are disjoint, together hold every item, balanced, and independent of order', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = random(seed);
      const size = Math.floor(rnd() * 40);
      const items = Array.from({ length: size }, (_, i) => `${NAMES[i % NAMES.length]}-${Math.floor(rnd() * 1e6)}-${i}`);
      const n = 1 + Math.floor(rnd() * 9);
      const parts = Array.from({ length: n }, (_, k) => shardOf(items, (x) => x, { index: k + 1, count: n }));
      const all = parts.flat();
      expect(all.length, `seed ${seed}`).toBe(items.length);
      expect(new Set(all), `seed ${seed}`).toEqual(new Set(items));
      const sizes = parts.map((p) => p.length);
      expect(Math.max(...sizes) - Math.min(...sizes), `seed ${seed}`).toBeLessThanOrEqual(1);
      const shuffled = [...items].sort(() => rnd() - 0.5);
      for (let k = 0; k < n; k++)
        expect(
          shardOf(shuffled, (x) => x, { index: k + 1, count: n }),
          `seed ${seed}`,
        ).toEqual(parts[k]);
    }
  });

  it('sorts by the normalised path: ./ and backslashes and Unicode forms do not move a document', () => {
    expect(normalisedPath('./docs\\a.md')).toBe('docs/a.md');
    expect(normalisedPath('a\u0308.md')).toBe(normalisedPath('ä.md'));
    const one = shardOf(['./docs/b.md', 'docs/a.md', 'docs\\c.md'], (x) => x, { index: 1, count: 2 });
    expect(one).toEqual(['docs/a.md', 'docs\\c.md']);
  });
});

describe('parseShard', () => {
  it('reads i/n', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
  });
  it.each(['0/4', '5/4', '1/0', '1', '1/2/3', 'x/2', '-1/2', '1/1001', ''])('refuses %j', (bad) => {
    expect(() => parseShard(bad)).toThrow(/--shard must be i\/n/);
  });
});
