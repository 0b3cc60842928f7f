/** A scan or lint report built in memory, for the format renderers' unit tests. */
import type { FileFindings, Finding, Report } from '../../src/formats/finding.js';
import type { Level } from '../../src/formats/names.js';

/** A finding of a note of `kind` on `line`, with every other field made up from those. */
export function testFinding(line: number, kind = 'CONTESTED', over: Partial<Finding> = {}): Finding {
  const text = `[${kind}] note on line ${line}`;
  return {
    ruleId: kind,
    kind,
    line,
    column: 1,
    bytes: { column: 1, endColumn: Buffer.byteLength(text) + 1 },
    text,
    message: text,
    fingerprint: `fp-${line}`,
    canonical: true,
    refersTo: null,
    ...over,
  };
}

export function testReport(files: FileFindings[], over: Partial<Report> = {}): Report {
  const ids = [...new Set(files.flatMap((f) => f.findings.map((n) => n.ruleId)))];
  const rules = ids.map((id) => ({
    id,
    name: `${id[0]}${id.slice(1).toLowerCase()}Note`,
    short: `a ${id} note`,
    full: `A ${id} note.`,
    help: `resolve the ${id} note`,
  }));
  return { command: 'scan', files, rules, level: 'warning' as Level, exitCode: files.some((f) => f.findings.length) ? 1 : 0, ...over };
}
