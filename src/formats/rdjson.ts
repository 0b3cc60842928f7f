/**
 * The Reviewdog Diagnostic Format (reviewdog/reviewdog, proto/rdf/reviewdog.proto): `rdjsonl`
 * is one Diagnostic per line, `rdjson` one DiagnosticResult. Positions are 1-based lines and
 * UTF-8 byte columns; a range's end is exclusive.
 */
import { PACKAGE_URL, ruleUrl } from './docs-url.js';
import type { Finding, Level, Report } from './finding.js';

export type RdSeverity = 'ERROR' | 'WARNING' | 'INFO';

export const RD_SEVERITY: Record<Level, RdSeverity> = { error: 'ERROR', warning: 'WARNING', notice: 'INFO' };

/** What the two protocol markers are by themselves: a dispute a warning, a question a notice. */
const KIND_LEVEL: Record<string, Level> = { CONTESTED: 'warning', CLARIFY: 'notice' };

/** A finding's level: a protocol note's by its kind; a lint problem's or an extra marker's the report's (`--level`). */
export function findingLevel(report: Pick<Report, 'level'>, n: Pick<Finding, 'ruleId' | 'kind'>): Level {
  return (n.ruleId === n.kind ? KIND_LEVEL[n.kind] : undefined) ?? report.level;
}

/** The tool, as each diagnostic (and an rdjson result) names it. */
export const RD_SOURCE = { name: 'bounce', url: PACKAGE_URL };

export interface RdPosition {
  line: number;
  column?: number;
}

export interface RdRange {
  start: RdPosition;
  end?: RdPosition;
}

export interface RdSuggestion {
  range: RdRange;
  text: string;
}

export interface RdDiagnostic {
  message: string;
  location: { path: string; range: RdRange };
  severity: RdSeverity;
  source: typeof RD_SOURCE;
  code: { value: string; url: string };
  suggestions?: RdSuggestion[];
}

function diagnostics(report: Report): RdDiagnostic[] {
  return report.files.flatMap((f) =>
    f.findings.map((n) => ({
      message: n.message,
      location: { path: f.path, range: { start: { line: n.line, column: n.bytes.column }, end: { line: n.line, column: n.bytes.endColumn } } },
      severity: RD_SEVERITY[findingLevel(report, n)],
      source: RD_SOURCE,
      code: { value: n.ruleId, url: ruleUrl(n.ruleId) },
    })),
  );
}

/** JSON Lines: one diagnostic a line (nothing at all when there are none). */
export function rdjsonLines(list: readonly RdDiagnostic[]): string {
  return list.map((d) => `${JSON.stringify(d)}\n`).join('');
}

/** One DiagnosticResult object. */
export function rdjsonResult(list: readonly RdDiagnostic[]): string {
  return `${JSON.stringify({ source: RD_SOURCE, diagnostics: list }, null, 2)}\n`;
}

export const renderRdjsonl = (report: Report): string => rdjsonLines(diagnostics(report));
export const renderRdjson = (report: Report): string => rdjsonResult(diagnostics(report));
