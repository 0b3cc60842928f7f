import { esc } from './escape.js';

export interface Series {
  label: string;
  /** One value per x position; null leaves a gap. */
  values: (number | null)[];
  color: string;
}

const W = 360;
const H = 180;
const PAD = { left: 44, right: 28, top: 40, bottom: 30 };

/** A small inline line chart: one series, x labels under the points, values on them. */
export function lineChart(title: string, xLabels: string[], s: Series): string {
  const max = Math.max(1, ...s.values.map((v) => v ?? 0));
  const n = Math.max(1, xLabels.length - 1);
  const x = (i: number): number => PAD.left + ((W - PAD.left - PAD.right) * i) / n;
  const y = (v: number): number => H - PAD.bottom - ((H - PAD.top - PAD.bottom) * v) / max;
  const pts = s.values.map((v, i) => (v === null ? null : { i, v, cx: x(i), cy: y(v) }));
  const segments: string[] = [];
  let run: string[] = [];
  for (const p of pts) {
    if (p) {
      run.push(`${p.cx.toFixed(1)},${p.cy.toFixed(1)}`);
    } else if (run.length) {
      segments.push(run.join(' '));
      run = [];
    }
  }
  if (run.length) segments.push(run.join(' '));
  const axis =
    `<line x1="${PAD.left}" y1="${H - PAD.bottom}" x2="${W - PAD.right}" y2="${H - PAD.bottom}" class="axis"/>` +
    `<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${H - PAD.bottom}" class="axis"/>` +
    `<text x="${PAD.left - 6}" y="${PAD.top + 4}" text-anchor="end" class="tick">${max}</text>` +
    `<text x="${PAD.left - 6}" y="${H - PAD.bottom + 4}" text-anchor="end" class="tick">0</text>`;
  const labels = xLabels.map((l, i) => `<text x="${x(i).toFixed(1)}" y="${H - PAD.bottom + 16}" text-anchor="middle" class="tick">${esc(l)}</text>`).join('');
  const lines = segments.map((seg) => `<polyline points="${seg}" fill="none" stroke="${s.color}" stroke-width="2"/>`).join('');
  const dots = pts
    .filter((p): p is NonNullable<typeof p> => p !== null)
    .map(
      (p) =>
        `<circle cx="${p.cx.toFixed(1)}" cy="${p.cy.toFixed(1)}" r="3.5" fill="${s.color}"><title>${esc(`${xLabels[p.i]}: ${p.v} ${s.label}`)}</title></circle>` +
        `<text x="${p.cx.toFixed(1)}" y="${(p.cy - 8).toFixed(1)}" text-anchor="middle" class="val">${p.v}</text>`,
    )
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">` +
    `<title>${esc(title)}</title><text x="${PAD.left}" y="16" class="ctitle">${esc(title)}</text>${axis}${labels}${lines}${dots}</svg>`
  );
}
