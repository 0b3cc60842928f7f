/** GitLab Code Quality: a JSON array of issues (docs.gitlab.com, "Code Quality report format"). */
import type { Level, Report } from './finding.js';

const SEVERITY: Record<Level, string> = { error: 'major', warning: 'minor', notice: 'info' };

export function renderCodeQuality(report: Report): string {
  const issues = report.files.flatMap((f) =>
    f.findings.map((n) => ({
      description: n.message,
      check_name: n.ruleId,
      fingerprint: n.fingerprint,
      severity: SEVERITY[report.level],
      location: { path: f.path, lines: { begin: n.line } },
    })),
  );
  return `${JSON.stringify(issues, null, 2)}\n`;
}
