import { totalFindings, type Finding, type Report } from './finding.js';

/** One object: every file (clean ones with an empty list), the total and the exit code. */
export function renderJson(report: Report): string {
  const key = report.command === 'scan' ? 'notes' : 'problems';
  const files = report.files.map((f) => ({ path: f.path, [key]: f.findings.map((n) => (report.command === 'scan' ? note(n) : problem(n))) }));
  return `${JSON.stringify({ files, total: totalFindings(report), exitCode: report.exitCode }, null, 2)}\n`;
}

function note(n: Finding) {
  return { kind: n.kind, line: n.line, column: n.column, text: n.text, canonical: n.canonical, refersTo: n.refersTo };
}

function problem(n: Finding) {
  return { rule: n.ruleId, message: n.message, ...note(n) };
}
