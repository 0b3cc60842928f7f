import { esc } from './escape.js';
import { maxOf } from '../arrays.js';
import { plural } from '../plural.js';

export interface Series {
  /** What the values count, as a plural noun (`notes`); `one` is its singular (`note`), else the label serves for every value. */
  label: string;
  one?: string;
  /** One value per x position; null: no value there (an attempt that produced no document). */
  values: (number | null)[];
  color: string;
}

const H = 180;
const PAD = { left: 44, top: 40, bottom: 44 };
/** Width of a character of the 10px tick font, generously: a label is never cut at the edge. */
const CHAR_PX = 6.2;
const MIN_STEP = 56;
const MIN_W = 360;

/** An x label as one or two lines: `pass 2 (interrupted)` puts its parenthesis under it. */
function labelLines(label: string): string[] {
  const at = label.indexOf(' (');
  return at < 0 ? [label] : [label.slice(0, at), label.slice(at + 1)];
}

/**
 * A small inline line chart: one series, x labels under the points, values on them. The chart
 * is as wide as its labels need, so none is cut off or overlaps its neighbour or the axis'
 * tick labels; a position with
 * no value gets a hollow mark on the axis, and the line runs on from the value before it to
 * the one after it (an interrupted attempt does not break it).
 */
export function lineChart(title: string, xLabels: string[], s: Series): string {
  const max = maxOf(
    1,
    s.values.map((v) => v ?? 0),
  );
  const widest = maxOf(
    0,
    xLabels.flatMap(labelLines).map((l) => l.length * CHAR_PX),
  );
  const step = Math.max(MIN_STEP, widest + 10);
  const left = Math.max(PAD.left, widest / 2 + 4);
  const right = Math.max(28, widest / 2 + 4);
  // The first point stands off the y axis by half its label and a margin, so neither its label
  // nor its value meets the axis' tick labels at the origin.
  const inset = Math.max(16, widest / 2 + 6);
  const n = Math.max(1, xLabels.length - 1);
  const W = Math.max(MIN_W, Math.ceil(left + inset + right + step * n));
  const x = (i: number): number => left + inset + ((W - left - inset - right) * i) / n;
  const y = (v: number): number => H - PAD.bottom - ((H - PAD.top - PAD.bottom) * v) / max;
  const pts = s.values.map((v, i) => (v === null ? null : { i, v, cx: x(i), cy: y(v) }));
  const known = pts.filter((p): p is NonNullable<typeof p> => p !== null);
  const base = H - PAD.bottom;
  const axis =
    `<line x1="${left.toFixed(1)}" y1="${base}" x2="${(W - right).toFixed(1)}" y2="${base}" class="axis"/>` +
    `<line x1="${left.toFixed(1)}" y1="${PAD.top}" x2="${left.toFixed(1)}" y2="${base}" class="axis"/>` +
    `<text x="${(left - 6).toFixed(1)}" y="${PAD.top + 4}" text-anchor="end" class="tick">${max}</text>` +
    `<text x="${(left - 6).toFixed(1)}" y="${base + 4}" text-anchor="end" class="tick">0</text>`;
  const labels = xLabels
    .map((l, i) => {
      const lines = labelLines(l).map((t, k) => `<tspan x="${x(i).toFixed(1)}" dy="${k === 0 ? 0 : 12}">${esc(t)}</tspan>`);
      return `<text x="${x(i).toFixed(1)}" y="${base + 16}" text-anchor="middle" class="tick xlabel">${lines.join('')}</text>`;
    })
    .join('');
  const line =
    known.length > 1
      ? `<polyline points="${known.map((p) => `${p.cx.toFixed(1)},${p.cy.toFixed(1)}`).join(' ')}" fill="none" stroke="${s.color}" stroke-width="2"/>`
      : '';
  const dots = known
    .map(
      (p) =>
        `<circle cx="${p.cx.toFixed(1)}" cy="${p.cy.toFixed(1)}" r="3.5" fill="${s.color}"><title>${esc(`${xLabels[p.i]}: ${plural(p.v, s.one ?? s.label, s.label)}`)}</title></circle>` +
        `<text x="${p.cx.toFixed(1)}" y="${(p.cy - 8).toFixed(1)}" text-anchor="middle" class="val">${p.v}</text>`,
    )
    .join('');
  const gaps = s.values
    .map((v, i) =>
      v === null
        ? `<circle cx="${x(i).toFixed(1)}" cy="${base}" r="3.5" fill="#fff" stroke="${s.color}" class="nodoc"><title>${esc(`${xLabels[i]}: no document`)}</title></circle>`
        : '',
    )
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">` +
    `<title>${esc(title)}</title><text x="${PAD.left}" y="16" class="ctitle">${esc(title)}</text>${axis}${labels}${line}${dots}${gaps}</svg>`
  );
}

export interface Bar {
  label: string;
  value: number;
  color: string;
}

const BAR_W = 34;
const BAR_GAP = 18;

/**
 * A small inline bar chart: one bar per label, its value on top; as wide as its labels need,
 * so none is cut off or overlaps its neighbour.
 */
export function barChart(title: string, bars: readonly Bar[]): string {
  const max = maxOf(
    1,
    bars.map((b) => b.value),
  );
  const widest = maxOf(
    0,
    bars.map((b) => b.label.length * CHAR_PX),
  );
  const step = Math.max(BAR_W + BAR_GAP, widest + 10);
  const left = PAD.left;
  const W = Math.max(MIN_W, Math.ceil(left + step * bars.length + 16));
  const base = H - PAD.bottom;
  const y = (v: number): number => base - ((base - PAD.top) * v) / max;
  const body = bars
    .map((b, i) => {
      const cx = left + step * i + step / 2;
      const top = y(b.value);
      return (
        `<rect x="${(cx - BAR_W / 2).toFixed(1)}" y="${top.toFixed(1)}" width="${BAR_W}" height="${(base - top).toFixed(1)}" fill="${b.color}"><title>${esc(`${b.label}: ${b.value}`)}</title></rect>` +
        `<text x="${cx.toFixed(1)}" y="${(top - 4).toFixed(1)}" text-anchor="middle" class="val">${b.value}</text>` +
        `<text x="${cx.toFixed(1)}" y="${base + 16}" text-anchor="middle" class="tick xlabel">${esc(b.label)}</text>`
      );
    })
    .join('');
  const axis = `<line x1="${left}" y1="${base}" x2="${W - 8}" y2="${base}" class="axis"/>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">` +
    `<title>${esc(title)}</title><text x="${PAD.left}" y="16" class="ctitle">${esc(title)}</text>${axis}${body}</svg>`
  );
}
