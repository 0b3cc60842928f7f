import { describe, expect, it } from 'vitest';
import { MAX_DIFF_ROWS, sideBySide } from '../../src/report/html-diff.js';

const none = { before: new Set<number>(), after: new Set<number>() };
const labels = { before: 'a.md', after: 'b.md' };
const rowsOf = (html: string): number => html.split('<tr>').length - 1;

describe('sideBySide', () => {
  it('shows a change of every line up to MAX_DIFF_ROWS rows, then one row that counts the rest', () => {
    const n = MAX_DIFF_ROWS + 1234;
    const before = Array.from({ length: n }, (_, i) => `a${i}`).join('\n');
    const after = Array.from({ length: n }, (_, i) => `b${i}`).join('\n');
    const html = sideBySide(before, after, none, labels);
    // The header row, then MAX_DIFF_ROWS rows of lines.
    expect(rowsOf(html)).toBe(1 + MAX_DIFF_ROWS);
    // Each row pairs one removed and one added line, so n rows in all: n - MAX_DIFF_ROWS are left out.
    expect(html).toContain(`&#8943; ${n - MAX_DIFF_ROWS} more lines not shown here: <code>bounce diff</code> prints the whole change`);
    expect(html).not.toContain('no changes');
  });

  it('shows a diff within the limit whole', () => {
    const html = sideBySide('x\ny\n', 'x\nz\n', none, labels);
    expect(rowsOf(html)).toBe(1 + 2);
    expect(html).not.toContain('not shown');
  });
});

describe('sideBySide: changed words', () => {
  it('marks the changed words of a changed paragraph, <del> on the left and <ins> on the right', () => {
    const html = sideBySide('Intro\nThe quick brown fox jumps.\n', 'Intro\nThe quick red fox jumps.\n', none, labels);
    expect(html).toContain('<td class="tx del">The quick <del>brown</del> fox jumps.</td>');
    expect(html).toContain('<td class="tx ins">The quick <ins>red</ins> fox jumps.</td>');
    // The unchanged line carries no mark.
    expect(html).toContain('<td class="tx eq">Intro</td>');
  });

  it('escapes the text around and inside a mark', () => {
    const html = sideBySide('a <b> & c\n', 'a <i> & c\n', none, labels);
    expect(html).toContain('a <del>&lt;b&gt;</del> &amp; c');
    expect(html).toContain('a <ins>&lt;i&gt;</ins> &amp; c');
  });

  it('cuts a change that spans lines at each line end', () => {
    const html = sideBySide('one two\nthree four\n', 'one 2\n3 four\n', none, labels);
    expect(html).toContain('one <del>two</del></td>');
    expect(html).toContain('<del>three</del> four</td>');
    expect(html).toContain('one <ins>2</ins></td>');
    expect(html).toContain('<ins>3</ins> four</td>');
  });

  it('marks a changed character of CJK text, not the whole line', () => {
    const html = sideBySide('这是一个测试。\n', '这是一次测试。\n', none, labels);
    expect(html).toContain('这是一<del>个</del>测试。');
    expect(html).toContain('这是一<ins>次</ins>测试。');
  });

  it('marks nothing inside lines that share no word, nor inside lines only removed or only added', () => {
    const html = sideBySide('alpha beta\nkept\ngone line\n', 'gamma delta\nkept\n', none, labels);
    expect(html).not.toContain('<del>');
    expect(html).not.toContain('<ins>');
  });
});
