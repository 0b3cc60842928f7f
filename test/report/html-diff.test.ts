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
