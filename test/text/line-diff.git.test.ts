import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/text/line-diff.js';

const dir = mkdtempSync(join(tmpdir(), 'bounce-word-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A hunk header with its counts written out (git leaves out a count of 1). */
const counted = (text: string): string =>
  text.replace(/^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@/gm, (_, a, an, b, bn) => `@@ -${a}${an ?? ',1'} +${b}${bn ?? ',1'} @@`);

/** `git diff --no-index --word-diff=plain` from its first hunk on (the header names git's own paths). */
function gitWordDiff(a: string, b: string): string {
  writeFileSync(join(dir, 'a'), a);
  writeFileSync(join(dir, 'b'), b);
  const r = spawnSync('git', ['-c', 'core.quotepath=off', 'diff', '--no-index', '--no-color', '--word-diff=plain', 'a', 'b'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: dir },
  });
  expect(r.status, r.stderr).toBe(1);
  return counted(r.stdout.slice(r.stdout.indexOf('@@')));
}

const ours = (a: string, b: string): string => {
  const text = unifiedDiff(a, b, { aName: 'a', bName: 'b', words: true });
  return counted(text.slice(text.indexOf('@@')));
};

describe('--word-diff against git diff --word-diff=plain', () => {
  it.each([
    ['one word of a paragraph', 'one\nThe quick brown fox jumps.\nthree\n', 'one\nThe quick red fox jumps.\nthree\n'],
    ['a word removed, one added', 'a x b\nc\n', 'a b\nc y\n'],
    ['lines added and removed', 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n', 'one\ntwo\nthree\nnew line here\nfour\nfive\nsix\n'],
    ['a change across a line end', 'head\none two\nthree four\ntail\n', 'head\none 2\n3 four\ntail\n'],
    ['spacing and tabs', 'keep\na  b\tc\nend\n', 'keep\na b c d\nend\n'],
    ['punctuation sticks to its word', 'He said: "no."\n', 'He said: "yes, maybe."\n'],
    ['accented words', 'café crème brûlée\n', 'café noir brûlée\n'],
  ])('%s', (_, a, b) => {
    expect(ours(a, b)).toBe(gitWordDiff(a, b));
  });

  it('matches git on random edits of prose whose words are all different', () => {
    let seed = 3;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let fresh = 0;
    const word = (): string => `w${fresh++}${['', ',', '.', ';'][rnd(4)]}`;
    for (let t = 0; t < 40; t++) {
      const lines = Array.from({ length: 3 + rnd(8) }, () => Array.from({ length: 1 + rnd(12) }, word));
      const edited = lines.map((ws) => {
        if (rnd(3) > 0) return [...ws];
        const out = [...ws];
        for (let e = 0; e < 1 + rnd(3); e++) {
          const at = rnd(out.length + 1);
          const kind = rnd(3);
          if (kind === 0) out.splice(at, 0, word());
          else if (kind === 1 && out.length > 1) out.splice(at, 1);
          else out.splice(at, 1, word(), word());
        }
        return out;
      });
      if (rnd(2)) edited.splice(rnd(edited.length + 1), 0, [word(), word()]);
      if (rnd(2) && edited.length > 1) edited.splice(rnd(edited.length), 1);
      const a = `${lines.map((ws) => ws.join(' ')).join('\n')}\n`;
      const b = `${edited.map((ws) => ws.join(rnd(4) ? ' ' : '  ')).join('\n')}\n`;
      if (a === b) continue;
      expect(ours(a, b), `${a}\n---\n${b}`).toBe(gitWordDiff(a, b));
    }
  });
});
