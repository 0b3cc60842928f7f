import { EXIT, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { plural, type FileFindings, type Report } from '../formats/finding.js';
import { emitReport, outputFormat, scanInputs, type InputOptions, type OutputOptions } from '../request/scan-inputs.js';
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
  const files = await scanInputs(opts, io);
  const findings: FileFindings[] = files.map((f) => ({ path: f.path, findings: lintFindings(f, rules) }));
  const problems = findings.reduce((sum, f) => sum + f.findings.length, 0);
  const exitCode = problems === 0 ? EXIT.ok : EXIT.problems;
  const report: Report = { command: 'lint', files: findings, rules: lintRuleInfo(rules), level: opts.level ?? 'warning', exitCode };
  await emitReport(report, format, opts, io);
  if (format !== 'json') {
    const notes = plural(
      files.reduce((sum, f) => sum + f.notes.length, 0),
      'note',
    );
    const scanned = plural(files.length, 'file');
    const withProblems = findings.filter((f) => f.findings.length > 0).length;
    io.stderr.write(
      problems === 0
        ? `every note conforms (${notes} in ${scanned})\n`
        : `${plural(problems, 'problem')} in ${plural(withProblems, 'file')} (${notes} in ${scanned})\n`,
    );
  }
  return exitCode;
}
