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
  return `${path}:${decimal(n.line)}:${decimal(n.column)} ${what} ${n.message}\n`;
}

/** The two-digit groups, "00" to "99". */
const PAIRS = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : String(i)));

/**
 * A line or column number in decimal, as String(n) gives it for a whole number 0 or more, but
 * not through V8's cache of number strings: on one long line every column is a new number,
 * each string the cache kept outlived two young collections, and a million notes moved about
 * 8 MB of them into the old generation.
 */
function decimal(n: number): string {
  if (!Number.isInteger(n) || n < 0) return String(n);
  if (n < 10) return String.fromCharCode(48 + n);
  let out = '';
  while (n >= 100) {
    const r = n % 100;
    n = (n - r) / 100;
    out = PAIRS[r]! + out;
  }
  return (n < 10 ? String.fromCharCode(48 + n) : PAIRS[n]!) + out;
}
