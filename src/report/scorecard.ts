import type { AgentStats, StatsResult } from '../grade/stats.js';
import { plural } from '../plural.js';
import { esc } from './escape.js';
import { fmtCost, fmtDuration, fmtTokens } from './format.js';
import { barChart, lineChart } from './svg-chart.js';

/**
 * `bounce stats --html FILE`: the scorecard, one self-contained page (inline CSS and SVG, no
 * script, a Content-Security-Policy that forbids every fetch): a table of every agent and
 * role, then per agent a chart of its notes' fates and its verdicts, and its precision per
 * period when it has graded findings.
 */
const CSS = `
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2125;margin:0 auto;max-width:1400px;padding:20px 28px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d8dde3;padding-bottom:4px}.muted{color:#68707a}
table.data{border-collapse:collapse}table.data td,table.data th{border:1px solid #d8dde3;padding:3px 8px;text-align:left}table.data th{background:#f4f6f8}
.agent{margin:18px 0}.charts{display:flex;flex-wrap:wrap;gap:24px}.charts svg{border:1px solid #d8dde3;border-radius:6px;background:#fff}
svg .axis{stroke:#9aa4ae}svg .tick{font-size:10px;fill:#68707a}svg .val{font-size:10px;fill:#1d2125}svg .ctitle{font-size:12px;font-weight:600;fill:#1d2125}
.mock{color:#8a4b00;font-weight:600}
`;

const pct = (x: number | null): string => (x === null ? '-' : `${Math.round(x * 100)}%`);
const id = (a: AgentStats): string => `agent-${a.agent.replace(/[^A-Za-z0-9_-]+/g, '-')}`;

function row(a: AgentStats): string {
  const cells = [
    `<a href="#${esc(id(a))}">${esc(a.agent)}</a>${a.evidence === 'mock' ? ' <span class="mock">(mock)</span>' : ''}`,
    a.runs,
    a.dispatches,
    a.notes.raised,
    a.notes.acted,
    a.notes.dismissed,
    a.notes.open,
    a.graded.accepted + a.graded.rejected,
    pct(a.precision),
    a.repairs_per_pass.toFixed(2),
    a.failures_per_pass.toFixed(2),
    a.tokens_per_converged === null ? '-' : fmtTokens(Math.round(a.tokens_per_converged)),
    fmtCost(a.cost_usd_per_converged),
    fmtDuration(a.median_pass_ms),
    a.trend ?? '-',
  ];
  return `<tr>${cells.map((c) => `<td>${typeof c === 'string' ? c : esc(c)}</td>`).join('')}</tr>`;
}

function agentSection(a: AgentStats): string {
  const notes = barChart(`${a.agent}: notes raised and their fate`, [
    { label: 'raised', value: a.notes.raised, color: '#4c6ef5' },
    { label: 'acted on', value: a.notes.acted, color: '#1a7f37' },
    { label: 'dismissed', value: a.notes.dismissed, color: '#b42318' },
    { label: 'open', value: a.notes.open, color: '#8a6d00' },
  ]);
  const verdicts = barChart(`${a.agent}: verdicts`, [
    { label: 'accepted', value: a.graded.accepted, color: '#1a7f37' },
    { label: 'rejected', value: a.graded.rejected, color: '#b42318' },
    { label: 'skipped', value: a.graded.skipped, color: '#9aa4ae' },
  ]);
  const graded = a.periods.filter((p) => p.precision !== null);
  const trend = graded.length
    ? lineChart(
        `${a.agent}: precision (%) per month`,
        graded.map((p) => p.period),
        { label: '% accepted', values: graded.map((p) => Math.round(p.precision! * 100)), color: '#4c6ef5' },
      )
    : '';
  const facts = `${plural(a.runs, 'run')}, ${plural(a.passes, 'pass', 'passes')}, precision ${pct(a.precision)}${a.last_graded ? `, last graded ${a.last_graded}` : ', not graded'}${a.trend ? `, ${a.trend}` : ''}`;
  return `<section class="agent" id="${esc(id(a))}"><h2>${esc(a.agent)}</h2><p class="muted">${esc(facts)}</p><div class="charts">${notes}${verdicts}${trend}</div></section>`;
}

export function renderScorecard(r: StatsResult, where: { runsDir: string; since: string | null }): string {
  const head = [
    'agent',
    'runs',
    'dispatches',
    'raised',
    'acted on',
    'dismissed',
    'open',
    'graded',
    'precision',
    'repairs/pass',
    'failures/pass',
    'tokens/doc',
    'cost/doc',
    'median pass',
    'trend',
  ];
  const tableHtml = r.agents.length
    ? `<table class="data" id="agents"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${r.agents.map(row).join('')}</tbody></table>`
    : '<p class="muted">no agent took a pass in these runs</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bounce scorecard</title><style>${CSS}</style></head>
<body>
<h1>bounce scorecard</h1>
<p class="muted">${esc(`${plural(r.runs, 'run')} in ${where.runsDir}${where.since ? ` since ${where.since}` : ''}`)}. Precision is accepted / (accepted + rejected) of the graded notes an agent raised (bounce grade); tokens and cost are per converged document.</p>
${tableHtml}
${r.agents.map(agentSection).join('\n')}
</body></html>
`;
}
