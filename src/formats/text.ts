import type { Finding, Report } from './finding.js';

/** `path:line:col KIND text`, one line per finding; lint adds its rule id before the text. */
export function renderText(report: Report): string {
  let out = '';
  for (const f of report.files) {
    for (const n of f.findings) out += textLine(report.command, f.path, n);
  }
  return out;
}

/** One finding's line: `path:line:column KIND message` (a lint problem, in lint or in `scan --lint`: `RULE KIND`). */
export function textLine(command: Report['command'], path: string, n: Pick<Finding, 'line' | 'column' | 'kind' | 'ruleId' | 'message'>): string {
  const what = command === 'scan' && n.ruleId === n.kind ? n.kind : `${n.ruleId} ${n.kind}`;
  return `${path}:${n.line}:${n.column} ${what} ${n.message}\n`;
}
