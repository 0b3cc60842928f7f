import type { Report } from './finding.js';

/** `path:line:col KIND text`, one line per finding; lint adds its rule id before the text. */
export function renderText(report: Report): string {
  let out = '';
  for (const f of report.files) {
    for (const n of f.findings) {
      const what = report.command === 'scan' ? n.kind : `${n.ruleId} ${n.kind}`;
      out += `${f.path}:${n.line}:${n.column} ${what} ${n.message}\n`;
    }
  }
  return out;
}
