/** `bounce bench --html FILE`: the leaderboard as one self-contained page (no script, no file or request besides itself). */
import { esc } from '../report/escape.js';
import { DEFECT_KINDS } from './key.js';
import { type BenchJson, leaderboard, type PairRow, rowCells, TABLE_HEADER } from './leaderboard.js';
import { plural } from '../plural.js';

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}table{border-collapse:collapse;margin:.5rem 0}
th,td{border:1px solid #ccd;padding:.25rem .55rem;text-align:left}th{background:#eef}td.n{text-align:right}
.not-live{color:#666}.note{color:#555;font-size:.9em}.bar{display:inline-block;height:.7em;background:#58c;vertical-align:middle}`;

function rowsTable(rows: readonly PairRow[], ranked: boolean): string {
  const head = `<tr>${TABLE_HEADER.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
  const body = rows
    .map((r, i) => {
      const cells = rowCells(r, ranked ? String(i + 1) : '-');
      return `<tr${ranked ? '' : ' class="not-live"'}>${cells.map((c, j) => `<td${j >= 3 ? ' class="n"' : ''}>${esc(c)}</td>`).join('')}</tr>`;
    })
    .join('\n');
  return `<table>${head}\n${body}</table>`;
}

function kindsTable(rows: readonly PairRow[]): string {
  const run = rows.filter((r) => r.by_kind);
  if (run.length === 0) return '';
  const head = `<tr><th>kind</th>${run.map((r) => `<th>${esc(r.pair)} found</th><th>fixed</th>`).join('')}</tr>`;
  const body = DEFECT_KINDS.map((k) => {
    const cells = run
      .map((r) => {
        const c = r.by_kind![k];
        const found = c.defects ? c.found / c.defects : null;
        return `<td class="n">${c.found}/${c.defects} <span class="bar" style="width:${Math.round((found ?? 0) * 40)}px"></span></td><td class="n">${c.fixed}/${c.defects}</td>`;
      })
      .join('');
    return `<tr><td>${esc(k)}</td>${cells}</tr>`;
  }).join('\n');
  return `<h2>By kind of defect</h2><table>${head}\n${body}</table>`;
}

export function benchHtml(json: BenchJson, generatedAt: string): string {
  const ranked = leaderboard(json.pairs);
  const others = json.pairs.filter((r) => !ranked.includes(r));
  const reasons = others
    .filter((r) => r.reason)
    .map((r) => `<li>${esc(r.pair)}: ${r.status === 'not-run' ? 'not run: ' : ''}${esc(r.reason)}</li>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bounce bench: ${esc(json.corpus)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style></head><body>
<h1>bounce bench: ${esc(json.corpus)}</h1>
<p>${plural(json.documents, 'document')}, ${plural(json.defects, 'planted defect')}; made ${esc(generatedAt)}. Recall: defects some reviewer note came within 2 lines of; fix rate: defects whose <code>fixed_when</code> holds in the final document; precision: notes near a defect over all notes.</p>
<h2>Live leaderboard</h2>
${ranked.length ? rowsTable(ranked, true) : '<p>No live rows: no pair ran with a concrete model, a positive output-token limit and provider-reported usage.</p>'}
${others.length ? `<h2>Not live, never ranked</h2>${rowsTable(others, false)}<ul class="note">${reasons}</ul>` : ''}
${kindsTable(json.pairs)}
<p class="note">A dash is a number with nothing to count: no note raised, none resolved, no cost reported, no defect found. ${json.rescore ? `Score again: <code>${esc(json.rescore)}</code>` : ''}</p>
</body></html>
`;
}
