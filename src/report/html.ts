import { plural } from '../plural.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ledgerReading, noteSpans } from '../protocol/ledger.js';
import { scanNotes } from '../protocol/scanner.js';
import type { AgentRecord, DispatchRef, RunManifest } from '../store/manifest.js';
import { esc } from './escape.js';
import { checkRunsOf } from '../store/check-runs.js';
import type { CheckRunRecord } from '../store/record-schema.js';
import { fmtCost, fmtDuration, fmtRunCost, fmtTime, fmtTokenCount, fmtTokens, forkPoint, replayOrigin, summarize, totalTokens } from './format.js';
import { type NoteLines, sideBySide } from './html-diff.js';
import { netChange, type PassChange, passChanges } from './pass-docs.js';
import { type RunNote, runLedger, runReading } from '../audit/run-notes.js';
import { lineChart } from './svg-chart.js';
import { currentVerdict, gradableRun } from '../grade/gradable.js';
import { judgeLines, mockEvidence } from '../ui/run-summary.js';

/**
 * The run as one self-contained HTML page: inline CSS, inline SVG, no script and a
 * Content-Security-Policy that forbids every fetch, so the page never leaves file://.
 */
const CSS = `
:root{--fg:#1d2125;--muted:#68707a;--line:#d8dde3;--del:#ffecec;--ins:#e8f8ea;--note:#fff3c4;--mock:#8a4b00}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);margin:0 auto;max-width:1400px;padding:20px 28px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:20px 0 6px}
.muted{color:var(--muted)}.banner{background:#fff1dc;border:1px solid #f0c27b;color:var(--mock);padding:8px 12px;border-radius:6px;font-weight:600;margin:10px 0}
dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:3px 16px;margin:10px 0}dl.summary dt{color:var(--muted)}dl.summary dd{margin:0}
.status-converged{color:#1a7f37;font-weight:600}.status-not-converged,.status-failed{color:#b42318;font-weight:600}.status-interrupted,.status-running{color:#8a6d00;font-weight:600}
.charts{display:flex;flex-wrap:wrap;gap:24px}.charts svg{border:1px solid var(--line);border-radius:6px;background:#fff}
svg .axis{stroke:#9aa4ae}svg .tick{font-size:10px;fill:var(--muted)}svg .val{font-size:10px;fill:var(--fg)}svg .ctitle{font-size:12px;font-weight:600;fill:var(--fg)}
table{border-collapse:collapse}table.data td,table.data th{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}table.data th{background:#f4f6f8}
table.diff{width:100%;table-layout:fixed;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;border:1px solid var(--line)}
table.diff col.lnc{width:3.5em}table.diff th{background:#f4f6f8;text-align:left;padding:4px 8px;font-family:system-ui,sans-serif}
table.diff td{padding:0 6px;vertical-align:top}td.ln{color:var(--muted);text-align:right;user-select:none;border-right:1px solid var(--line)}
td.tx{white-space:pre-wrap;word-break:break-word}td.del{background:var(--del)}td.ins{background:var(--ins)}td.del del{background:#ffc7c7;text-decoration:none}td.ins ins{background:#aceebb;text-decoration:none}td.empty{background:#f6f7f9}
td.note{background:var(--note);box-shadow:inset 3px 0 0 #e0a800}tr.skip td{color:var(--muted);background:#f6f7f9;text-align:center;font-family:system-ui,sans-serif}
.legend span{display:inline-block;padding:0 6px;margin-right:8px;border-radius:3px}.stats{color:var(--muted);margin:2px 0 8px}
.fate-acted{color:#1a7f37;font-weight:600}.fate-dismissed{color:#b42318;font-weight:600}.fate-open{color:#8a6d00;font-weight:600}
table.notes td.text{max-width:60em}pre.document{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;word-break:break-word;border:1px solid var(--line);border-radius:6px;padding:8px 12px;background:#fbfcfd}
.check-passed{color:#1a7f37;font-weight:600}.check-failed,.check-not-started,.check-timed-out{color:#b42318;font-weight:600}table.checks{margin:2px 0 8px 1.5em}
.files a{margin-right:6px}.verdict-accepted{color:#1a7f37;font-weight:600}.verdict-rejected{color:#b42318;font-weight:600}.verdict-skipped,.verdict-none{color:#68707a}
`;

function agentText(a: AgentRecord): string {
  const evidence = a.evidence === 'mock' ? 'mock evidence, not a live result' : a.evidence;
  return `${a.spec} — adapter ${a.adapter}, model ${a.model ?? '-'}, version ${a.version ?? '-'} (${evidence})`;
}

function summary(m: RunManifest): string {
  const s = summarize(m);
  const mock = mockEvidence(m);
  const evidence = mock ? `${m.evidence}: ${mock}, not a live result` : m.evidence;
  const rows: [string, string][] = [
    ['run id', esc(m.run_id)],
    [
      'document',
      `${esc(m.input.display)} <span class="muted">(${plural(m.input.words, 'word')}, ${plural(m.input.notes, 'note')}, sha256 ${esc(m.input.sha256.slice(0, 12))})</span>`,
    ],
    [
      'status',
      `<span class="status-${esc(m.status)}">${esc(m.status)}</span> <span class="muted">exit code ${m.exit_code ?? '-'}</span>${m.notes_left !== null ? `, ${plural(m.notes_left, 'note')} left` : ''}`,
    ],
    ['reviewer', esc(agentText(m.agents.reviewer))],
    ['composer', esc(agentText(m.agents.composer))],
    ['passes', `${m.passes.run} of ${m.passes.requested}${m.passes.all_passes ? ' (all passes)' : ''}`],
    [
      'notes',
      `+${s.notes.added} added, -${s.notes.resolved} resolved${s.notes.acted === null ? '' : ` (${s.notes.acted} acted on, ${s.notes.dismissed} dismissed)`}`,
    ],
    ['tokens', `${fmtTokens(s.tokens.total)} <span class="muted">(in ${fmtTokens(s.tokens.input)}, out ${fmtTokens(s.tokens.output)})</span>`],
    ['cost', esc(fmtRunCost(m.totals))],
    ['duration', `${fmtDuration(s.duration_ms)} <span class="muted">started ${esc(fmtTime(m.created_at))} UTC</span>`],
    ['evidence', esc(evidence)],
    ['output', m.output.written ? esc(m.output.path ?? m.output.target) : 'not written'],
  ];
  const fork = forkPoint(m);
  if (fork) rows.splice(1, 0, ['fork', `<span id="fork-point">${esc(fork)}</span> <span class="muted">cost, tokens and duration are the fork's own</span>`]);
  const replay = replayOrigin(m);
  if (replay) rows.splice(1, 0, ['replay', `<span id="replay-of">${esc(replay)}</span>`]);
  if (m.error) rows.push(['error', esc(`${m.error.type}: ${m.error.message}`)]);
  // The judge's verdict (refine --judge), as bounce show words it; its warning on a line of its own.
  if (m.judge)
    rows.push([
      'judge',
      `<span id="judge">${judgeLines(m.judge)
        .trimEnd()
        .split('\n')
        .map((line) => esc(line.replace(/^judge /, '')))
        .join('<br>')}</span>`,
    ]);
  return `<dl class="summary">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

function charts(m: RunManifest): string {
  // A resumed run can hold an unfinished record and a finished one for the same pass.
  const labels = ['original', ...m.pass_records.map((p) => `pass ${p.pass}${p.status === 'completed' ? '' : ` (${p.status})`}`)];
  // Only a completed pass kept a document: another's counts are of a reply the run did not keep.
  const kept = (v: number | null, p: RunManifest['pass_records'][number]): number | null => (p.status === 'completed' ? v : null);
  const notes = [m.input.notes, ...m.pass_records.map((p) => kept(p.notes_after, p))];
  const words = [m.input.words, ...m.pass_records.map((p) => kept(p.words_after, p))];
  return `<div class="charts">${lineChart('Notes per pass', labels, { label: 'notes', one: 'note', values: notes, color: '#d97706' })}${lineChart('Words per pass', labels, { label: 'words', one: 'word', values: words, color: '#2563eb' })}</div>`;
}

/** The id of each pass record's section: `pass-<n>`, and `pass-<n>-<k>` for the k-th record of a pass run again after a resume. */
function passAnchors(m: RunManifest): string[] {
  const seen = new Map<number, number>();
  return m.pass_records.map((p) => {
    const nth = (seen.get(p.pass) ?? 0) + 1;
    seen.set(p.pass, nth);
    return nth === 1 ? `pass-${p.pass}` : `pass-${p.pass}-${nth}`;
  });
}

/** The lines every note of `text` spans (1-based), as the run scanned it. */
function noteLinesOf(m: RunManifest, text: string): Set<number> {
  const notes = scanNotes(text, runReading(m));
  const lines = new Set<number>();
  for (const [from, to] of noteSpans({ text, notes, ...ledgerReading(m.input.syntax) })) for (let l = from; l <= to; l++) lines.add(l);
  return lines;
}

function diffOf(m: RunManifest, before: string, after: string, labels: { before: string; after: string }, anchor: string): string {
  const notes: NoteLines = { before: noteLinesOf(m, before), after: noteLinesOf(m, after) };
  return sideBySide(before, after, notes, labels, { anchor });
}

function passes(dir: string, m: RunManifest): string {
  const anchors = passAnchors(m);
  const checks = checkRunsOf(dir, m);
  return passChanges(dir, m)
    .map((ch, i) => {
      const p = ch.record;
      const anchor = anchors[i]!;
      const fates = p.acted !== null && p.resolved ? `: ${p.acted} acted on, ${p.dismissed} dismissed` : '';
      // A pass that kept no document: its counts after are its last reply's, which the run did not keep.
      const of = ch.unkept ? ` in its ${ch.unkept.refused ? 'refused' : 'last'} reply` : '';
      const stats = `${esc(p.status)} · notes ${p.notes_before} → ${p.notes_after ?? '?'} (+${p.added ?? '?'}/-${p.resolved ?? '?'}${fates})${of} · words ${p.words_before} → ${p.words_after ?? '?'} · ${fmtTokenCount(totalTokens(p.usage))} · cost ${fmtCost(p.usage.cost_usd)} · ${fmtDuration(p.duration_ms)} · ${plural(p.retries, 'retry', 'retries')} · ${plural(p.repairs, 'repair', 'repairs')}`;
      const errors = [...p.errors.map((e) => `error: ${e}`), ...p.warnings.map((w) => `warning: ${w}`)].map((e) => `<p class="muted">${esc(e)}</p>`).join('');
      const body =
        ch.after === null
          ? `<p class="muted">${noDocument(ch)}</p>`
          : diffOf(m, ch.before, ch.after, { before: ch.beforeFile, after: ch.afterFile ?? '' }, anchor);
      // A fork's copied pass keeps its prompts, replies and records in the run it came from.
      const files = p.copied_from
        ? `<p class="files muted">copied from run ${esc(p.copied_from.run)}: its prompts, replies and records are in that run's folder</p>`
        : p.dispatches
            .map(
              (d) =>
                `<p class="files muted">${esc(d.kind)}${d.kind === 'pass' ? '' : ` ${d.index}`}: ${artifactLinks(dir, m, d)}</p>${checkRuns(checks.get(d.id))}`,
            )
            .join('');
      const copied = p.copied_from ? ` <span class="muted">(copied from ${esc(p.copied_from.run)})</span>` : '';
      return `<section class="pass" id="${anchor}"><h3>Pass ${p.pass}${p.final ? ' (final)' : ''}: ${esc(p.role)} ${esc(p.agent)}${copied}</h3><p class="stats">${stats}</p>${errors}${files}${body}</section>`;
    })
    .join('\n');
}

/** Why a pass has no diff: its kept document is gone, or it kept none; its last reply's document, if any, is named as refused (or not judged), never as the pass's. */
function noDocument(ch: PassChange): string {
  if (ch.afterFile) return `${esc(ch.afterFile)} is missing from the run folder`;
  if (!ch.unkept) return 'this pass produced no document';
  const file = SAFE_STEM.test(ch.unkept.file) ? `<a href="${esc(ch.unkept.file)}">${esc(ch.unkept.file)}</a>` : esc(ch.unkept.file);
  return `this pass kept no document (${esc(ch.record.status)}); its last reply, ${file}, was ${ch.unkept.refused ? 'refused' : 'not judged'}`;
}

/** The check commands run on a dispatch's document (docs/checks.md): status, command, exit, time, and a link to the output kept. */
function checkRuns(runs: readonly CheckRunRecord[] | undefined): string {
  if (!runs?.length) return '';
  const rows = runs.map((c) => {
    const how = c.status === 'timed-out' ? `killed at ${c.timeout_s}s` : c.exit_code === null ? '-' : String(c.exit_code);
    const output = SAFE_STEM.test(c.output.path) ? `<a href="${esc(c.output.path)}" class="artifact">output</a>` : esc(c.output.path);
    return `<tr><td class="check-${esc(c.status)}">${esc(c.status)}</td><td><code>${esc(c.command)}</code></td><td>${how}</td><td>${fmtDuration(c.duration_ms)}</td><td>${output}</td></tr>`;
  });
  return `<table class="data checks"><thead><tr><th>check</th><th>command</th><th>exit</th><th>duration</th><th>output</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const SAFE_STEM = /^[\w.-]+$/;
const RECORD_PATH = /^audit\/dispatches\/[\w.-]+\/[\w.-]+\.yaml$/;

/** Links to every file a dispatch left in the run folder that is there: prompt, raw reply, stderr, document, record. */
function artifactLinks(dir: string, m: RunManifest, d: DispatchRef): string {
  const files: [string, string | null][] = SAFE_STEM.test(d.stem)
    ? [
        ['prompt', `${d.stem}.prompt.md`],
        ['reply', `${d.stem}.reply.txt`],
        ['stderr', `${d.stem}.stderr.log`],
        // A rejected reply's document is no document of the run's: labelled as refused.
        [d.status === 'rejected' ? 'refused document' : 'document', SAFE_STEM.test(m.input.ext) ? `${d.stem}.${m.input.ext}` : null],
      ]
    : [];
  files.push(['record', d.record && RECORD_PATH.test(d.record) ? d.record : null]);
  const links = files.filter(([, f]) => f !== null && existsSync(join(dir, f))).map(([what, f]) => `<a href="${esc(f)}" class="artifact">${what}</a>`);
  return links.length ? links.join(' ') : '-';
}

/** Every dispatch: the passes', then the side dispatches (a judge's, a grader's), which belong to no pass. */
function dispatches(dir: string, m: RunManifest): string {
  const row = (d: DispatchRef, pass: string, agent: string): string =>
    `<tr><td><code>${esc(d.id)}</code></td><td>${pass}</td><td>${esc(d.kind)}${d.kind === 'pass' ? '' : ` ${d.index}`}</td><td>${esc(agent)}</td><td>${esc(d.status)}${d.reason ? ` <span class="muted">${esc(d.reason)}</span>` : ''}</td><td>${fmtDuration(d.duration_ms)}</td><td>${fmtTokens(totalTokens(d.usage))}</td><td class="files">${artifactLinks(dir, m, d)}</td></tr>`;
  const rows = [
    ...m.pass_records.flatMap((p) => p.dispatches.map((d) => row(d, String(p.pass), `${p.role}/${p.agent}`))),
    ...(m.side_dispatches ?? []).map((d) => row(d, '-', `${d.role}/${d.agent}`)),
  ];
  const head = '<tr><th>id</th><th>pass</th><th>kind</th><th>agent</th><th>status</th><th>duration</th><th>tokens</th><th>files</th></tr>';
  return rows.length ? `<table class="data dispatches"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>` : '<p class="muted">no dispatches</p>';
}

/** Every note of the run: its fate, who raised and who resolved it, with links to the lines in each pass's diff. */
function notesTable(dir: string, m: RunManifest): string {
  const ledger = runLedger(dir, m);
  const anchors = passAnchors(m);
  const firstDiff = anchors[0];
  const who = (o: RunNote['raisedBy']): string => (o.pass === null ? 'input' : `pass ${o.pass} ${o.agent}`);
  const link = (text: string, href: string | null): string => (href ? `<a href="#${esc(href)}">${esc(text)}</a>` : esc(text));
  const rows = ledger.notes.map((n) => {
    const raisedAt = n.raisedIn !== null ? `${anchors[n.raisedIn]}-b${n.raisedLine}` : firstDiff ? `${firstDiff}-a${n.raisedLine}` : null;
    const resolvedAt = n.resolvedIn !== null && n.resolvedLine !== null ? `${anchors[n.resolvedIn]}-a${n.resolvedLine}` : null;
    const fate = n.fate ?? 'resolved';
    return `<tr><td class="fate-${esc(fate)}">${esc(fate)}</td><td>${esc(n.kind)}</td><td class="text">${esc(n.text)}</td><td>${link(who(n.raisedBy), raisedAt)}</td><td>${n.resolvedBy ? link(who(n.resolvedBy), resolvedAt) : '-'}</td></tr>`;
  });
  const c = ledger.counts;
  const head = '<tr><th>fate</th><th>kind</th><th>note</th><th>raised by</th><th>resolved by</th></tr>';
  const counts = `<p class="muted" id="notes-counts">${c.raised} raised: ${c.acted} acted on, ${c.dismissed} dismissed, ${c.open} open${c.unjudged ? `, ${c.unjudged} resolved in a run made before bounce judged notes` : ''}. Acted on: the pass changed the text the note refers to; dismissed: it deleted the note and left that text as it was.</p>`;
  return rows.length ? `${counts}<table class="data notes"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>` : '<p class="muted">no notes</p>';
}

/** The run's grades (bounce grade, docs/grading.md): each graded finding's verdict and grader, and the counts. */
function gradesTable(dir: string, m: RunManifest): string {
  const run = gradableRun(dir, m);
  if (run.findings.length === 0) return '<p class="muted" id="grades-none">the run kept no findings to grade</p>';
  const rows = run.findings.map((f) => {
    const rec = run.records.get(f.record);
    const verdict = currentVerdict(rec, f.id);
    const grader = verdict ? (rec?.outcome.grade?.grader ?? '-') : '-';
    const when = verdict ? fmtTime(rec?.outcome.graded_at) : '-';
    // An agent's reason for its verdict (bounce grade --judge), under the verdict.
    const reason = rec?.outcome.grade?.verdicts.find((v) => v.finding === f.id)?.reason;
    const why = reason ? `<br><span class="muted reason">${esc(reason)}</span>` : '';
    return `<tr><td class="verdict-${esc(verdict ?? 'none')}">${esc(verdict ?? 'not graded')}${why}</td><td>${esc(f.kind)}</td><td class="text">${esc(f.message)}</td><td>pass ${f.pass} ${esc(f.agent)}</td><td class="fate-${esc(f.fate ?? 'resolved')}">${esc(f.fate ?? 'resolved')}</td><td>${esc(grader)}</td><td>${esc(when)}</td><td><code>${esc(f.id)}</code></td></tr>`;
  });
  const verdicts = run.findings.map((f) => currentVerdict(run.records.get(f.record), f.id));
  const n = (v: string | null): number => verdicts.filter((x) => x === v).length;
  const accepted = n('accepted');
  const rejected = n('rejected');
  const precision = accepted + rejected ? `, precision ${Math.round((accepted / (accepted + rejected)) * 100)}%` : '';
  const counts = `<p class="muted" id="grades-counts">${plural(run.findings.length, 'finding')}: ${accepted} accepted, ${rejected} rejected, ${n('skipped')} skipped, ${n(null)} not graded${precision} (precision: accepted / (accepted + rejected)).</p>`;
  const head = '<tr><th>verdict</th><th>kind</th><th>note</th><th>raised by</th><th>fate</th><th>grader</th><th>graded</th><th>finding</th></tr>';
  return `${counts}<table class="data grades"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The original against the final document (the last one when the run did not converge), then the final document itself. */
function netSections(dir: string, m: RunManifest): string {
  const net = netChange(dir, m);
  if (net.after === null) return `<h2 id="net">Net change</h2><p class="muted">${esc(net.afterFile)} is missing from the run folder</p>`;
  const title = net.converged ? 'Final document' : `Last document <span class="muted">(the run is ${esc(m.status)}; not a converged result)</span>`;
  return (
    `<h2 id="net">Net change: original → ${net.converged ? 'final' : 'last document'}</h2>${diffOf(m, net.before, net.after, { before: net.beforeFile, after: net.afterFile }, 'net')}` +
    `<h2 id="final">${title}</h2><p class="muted"><a href="${esc(net.afterFile)}">${esc(net.afterFile)}</a></p><pre class="document">${esc(net.after)}</pre>`
  );
}

/** The whole page for the run in `dir`. */
export function renderReport(dir: string, m: RunManifest): string {
  const mock = mockEvidence(m);
  const banner = mock
    ? `<p class="banner" id="evidence-banner">Mock evidence, not a live result: ${m.evidence === 'mock' ? 'scripted agents produced this run' : 'a scripted agent took part in this run'}.</p>`
    : '';
  const legend =
    '<p class="legend"><span style="background:var(--del)">removed</span><span style="background:var(--ins)">added</span><span style="background:var(--note)">note line</span></p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bounce report: ${esc(m.run_id)}</title><style>${CSS}</style></head>
<body>
<h1>bounce report: ${esc(m.run_id)}</h1>
${banner}
<h2>Summary</h2>
${summary(m)}
<h2>Notes and words per pass</h2>
${charts(m)}
<h2 id="notes">Notes</h2>
${notesTable(dir, m)}
<h2 id="grades">Grades</h2>
${gradesTable(dir, m)}
${legend}
${netSections(dir, m)}
<h2>Passes</h2>
${passes(dir, m)}
<h2>Dispatches</h2>
${dispatches(dir, m)}
<p class="muted">Generated by bounce ${esc(m.tool.version)}. Dispatch records are YAML files under audit/dispatches/; check them with <code>bounce audit ${esc(m.run_id)}</code>.</p>
</body></html>
`;
}
