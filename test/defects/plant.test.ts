import { describe, expect, it } from 'vitest';
import { fixedIn, parseAnswerKey } from '../../src/defects/key.js';
import { plantDefects } from '../../src/defects/plant.js';
import { splitLines } from '../../src/text/line-diff.js';

const DOC = `# Runbook: rotating the signing keys

The Key Management Service (KMS) holds the keys. Rotate them every 90 days.

## Steps

1. Create the new key version in KMS.
2. Publish the new public key to every verifier.
3. Wait for the verifiers' caches to expire, at most 15 minutes.
4. Switch the signers to the new version.
5. Disable the old version once no token signed with it is valid.

## Notes

The old version stays enabled for 90 days so that tokens signed before step 4 still
verify. Ask the security team before skipping any step; see section 2 of the policy.

Keys older than 400 days are destroyed by KMS itself.
`;

describe('planting defects', () => {
  it('gives the same copy and key for the same document and seed', () => {
    const a = plantDefects(DOC, { seed: 7 });
    const b = plantDefects(DOC, { seed: 7 });
    expect(b).toEqual(a);
    const seeds = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((seed) => JSON.stringify(plantDefects(DOC, { seed }))));
    expect(seeds.size).toBeGreaterThan(1);
  });

  it('writes a key the corpus reader accepts, whose every fixed_when tells the copy from the original', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const p = plantDefects(DOC, { seed, count: 4 });
      expect(p.defects.length).toBeGreaterThan(0);
      expect(parseAnswerKey(JSON.stringify(p.defects), 'k', p.text)).toEqual(p.defects);
      for (const d of p.defects) {
        expect(fixedIn(d.fixed_when, p.text), d.id).toBe(false);
        expect(fixedIn(d.fixed_when, DOC), d.id).toBe(true);
      }
      // Defects are spread out: no note can find two.
      const lines = p.defects.map((d) => d.line).sort((x, y) => x - y);
      for (let i = 1; i < lines.length; i++) expect(lines[i]! - lines[i - 1]!).toBeGreaterThan(4);
    }
  });

  it('applies each transformation where its key says', () => {
    const byKind = (transforms: Parameters<typeof plantDefects>[1]['transforms']) => {
      const p = plantDefects(DOC, { seed: 3, count: 1, transforms });
      return { p, d: p.defects[0]!, line: splitLines(p.text)[p.defects[0]!.line - 1]! };
    };
    const swap = byKind(['swap-number']);
    expect(swap.d.kind).toBe('contradiction');
    expect(swap.line).toContain('180');
    const def = byKind(['drop-definition']);
    expect(def.d).toMatchObject({ kind: 'undefined-term', fixed_when: { present: 'Key Management Service' } });
    expect(def.line).toBe('The KMS holds the keys. Rotate them every 90 days.');
    const step = byKind(['drop-step']);
    expect(step.d.kind).toBe('missing-step');
    expect(splitLines(step.p.text).filter((l) => /^\d\. /.test(l))).toHaveLength(4);
    expect(
      splitLines(step.p.text)
        .filter((l) => /^\d\. /.test(l))
        .map((l) => l[0]),
    ).toEqual(['1', '2', '3', '4']);
    const ref = byKind(['change-reference']);
    expect(ref.d).toMatchObject({ kind: 'stale-reference' });
    expect(ref.line).toMatch(/step 7|section 5/);
  });

  it('plants nothing where no transformation applies, and says which found no place', () => {
    const p = plantDefects('# Title\n\nA paragraph with no numbers at all.\n', { seed: 1 });
    expect(p.defects).toEqual([]);
    expect(p.unused.sort()).toEqual(['change-reference', 'drop-definition', 'drop-step', 'swap-number']);
  });
});
