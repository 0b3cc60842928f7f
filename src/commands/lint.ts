import { EXIT, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { plural, type FileFindings, type Report } from '../formats/finding.js';
import { emitReport, outputFormat, readInputs, scanInputs, type InputOptions, type OutputOptions } from '../request/scan-inputs.js';
import { type StreamedCounts, streamReport } from '../request/stream-report.js';
import { lintFindings, lintRuleInfo, selectRules } from '../formats/lint-findings.js';

export interface LintCommandOptions extends InputOptions, OutputOptions {
  /** Rule ids to apply, each entry possibly comma-separated (default: all). */
  rules?: string[];
}

/** `bounce lint`: every note checked against the protocol's conformance rules; exit 0 when all conform, 1 otherwise. */
export async function runLint(opts: LintCommandOptions, io: Io): Promise<number> {
  if (opts.patterns.length === 0) throw usageError('bounce lint needs a file, folder or glob', "try 'bounce lint docs/' or 'bounce lint -' for stdin");
  const format = outputFormat(opts);
  const rules = selectRules(opts.rules);
  if ((format === 'text' || format === 'json') && opts.output === undefined) {
    const report = { command: 'lint', format, rules, exitCode: (c: StreamedCounts) => (c.problems === 0 ? EXIT.ok : EXIT.problems) } as const;
    const counts = await streamReport(await readInputs(opts, io), report, opts, io);
    if (format === 'text') io.stderr.write(lintSummary(counts));
    return report.exitCode(counts);
  }
  const files = await scanInputs(opts, io);
  const findings: FileFindings[] = files.map((f) => ({ path: f.path, findings: lintFindings(f, rules) }));
  const problems = findings.reduce((sum, f) => sum + f.findings.length, 0);
  const exitCode = problems === 0 ? EXIT.ok : EXIT.problems;
  const report: Report = { command: 'lint', files: findings, rules: lintRuleInfo(rules), level: opts.level ?? 'warning', exitCode };
  await emitReport(report, format, opts, io);
  if (format !== 'json') {
    const notes = files.reduce((sum, f) => sum + f.notes.length, 0);
    const filesWithProblems = findings.filter((f) => f.findings.length > 0).length;
    io.stderr.write(lintSummary({ files: files.length, notes, problems, filesWithProblems }));
  }
  return exitCode;
}

/** The line on stderr: every note conforms, or how many problems in how many files; then the notes and files read. */
function lintSummary(c: Pick<StreamedCounts, 'files' | 'notes' | 'problems' | 'filesWithProblems'>): string {
  const read = `${plural(c.notes, 'note')} in ${plural(c.files, 'file')}`;
  return c.problems === 0 ? `every note conforms (${read})\n` : `${plural(c.problems, 'problem')} in ${plural(c.filesWithProblems, 'file')} (${read})\n`;
}
