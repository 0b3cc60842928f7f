/** lineChart: no two labels overlap, at the origin least of all. */
import { describe, expect, it } from 'vitest';
import { lineChart } from '../../src/report/svg-chart.js';

const CHAR_PX = 6.2;

/** Horizontal extents of the chart's texts, each as [left, right, y]. */
function texts(svg: string): { text: string; left: number; right: number; y: number; cls: string }[] {
  return [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)" text-anchor="(\w+)" class="([\w ]+)">(.*?)<\/text>/g)].map((m) => {
    const x = Number(m[1]);
    const inner = m[5]!.replace(/<tspan[^>]*>/g, '').split('</tspan>')[0]!;
    const w = inner.length * CHAR_PX;
    const left = m[3] === 'end' ? x - w : m[3] === 'middle' ? x - w / 2 : x;
    return { text: inner, left, right: left + w, y: Number(m[2]), cls: m[4]! };
  });
}

describe('lineChart', () => {
  it("keeps the first point's label and value clear of the y axis and its 0 and max ticks", () => {
    for (const labels of [
      ['original', 'pass 1', 'pass 2'],
      ['in', '1', '2'],
      ['pass 1 (interrupted)', 'pass 2'],
    ]) {
      const svg = lineChart('Notes', labels, { label: 'notes', values: labels.map((_, i) => (i === 0 ? 0 : i)), color: '#000' });
      const axisX = Number(/<line x1="([\d.]+)" y1="\d+" x2="[\d.]+" y2="\d+" class="axis"\/><line/.exec(svg)![1]);
      const all = texts(svg);
      const ticks = all.filter((t) => t.cls === 'tick' && (t.text === '0' || /^\d+$/.test(t.text)) && t.right <= axisX);
      expect(ticks.length, labels.join()).toBe(2);
      const first = all.filter((t) => t.cls.includes('xlabel') || t.cls === 'val').filter((t) => t.left < axisX + 40);
      for (const t of first) expect(t.left, `${t.text} of ${labels.join()}`).toBeGreaterThan(axisX);
    }
  });
});

describe("lineChart's point titles", () => {
  it('count one value in the singular, others in the plural; with no singular the label serves for all', () => {
    const svg = lineChart('Notes per pass', ['original', 'pass 1', 'pass 2 (failed)'], { label: 'notes', one: 'note', values: [0, 1, null], color: '#000' });
    expect(svg).toContain('<title>original: 0 notes</title>');
    expect(svg).toContain('<title>pass 1: 1 note</title>');
    expect(svg).toContain('<title>pass 2 (failed): no document</title>');
    expect(lineChart('Precision', ['2026-01'], { label: '% accepted', values: [1], color: '#000' })).toContain('<title>2026-01: 1 % accepted</title>');
  });
});
