/**
 * GitHub Actions workflow commands, one annotation per finding, and the job summary table.
 * Escaping follows @actions/core (command.ts): data escapes `%`, CR and LF; property values
 * also escape `:` and `,`.
 */
import { plural, totalFindings, type Report } from './finding.js';

export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function renderGithub(report: Report): string {
  let out = '';
  for (const f of report.files) {
    for (const n of f.findings) {
      const title = report.command === 'scan' ? n.kind : `${n.ruleId} (${n.kind})`;
      const props = `file=${escapeProperty(f.path)},line=${n.line},col=${n.column},title=${escapeProperty(title)}`;
      out += `::${report.level} ${props}::${escapeData(n.message)}\n`;
    }
  }
  return out;
}

/** A table cell: no line breaks, no column separators, no HTML (the summary renders HTML). */
function cell(s: string): string {
  return s
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/`/g, '\\`');
}

/** Markdown for `$GITHUB_STEP_SUMMARY`: every finding, since annotations are capped at 10 per type per step. */
export function stepSummary(report: Report): string {
  const total = totalFindings(report);
  const head = `### bounce ${report.command}: ${total === 0 ? 'nothing found' : plural(total, report.command === 'scan' ? 'note' : 'problem')} (${plural(report.files.length, 'file')} scanned)\n\n`;
  if (total === 0) return head;
  const lint = report.command === 'lint';
  let out = `${head}| file | line | kind |${lint ? ' rule |' : ''} text |\n|---|---|---|${lint ? '---|' : ''}---|\n`;
  for (const f of report.files) {
    for (const n of f.findings) out += `| ${cell(f.path)} | ${n.line} | ${n.kind} |${lint ? ` ${n.ruleId} |` : ''} ${cell(n.message)} |\n`;
  }
  return `${out}\n`;
}
