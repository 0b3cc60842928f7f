import { EXIT, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { fingerprints, plural, type FileFindings, type Finding, type Report, type RuleInfo } from '../formats/finding.js';
import { LINT_RULES, LINT_RULE_IDS, lintNotes, unknownRules } from '../protocol/lint.js';
import { didYouMean } from '../suggest.js';
import { emitReport, outputFormat, scanInputs, type InputOptions, type OutputOptions, type ScannedFile } from './scan.js';

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
  const exitCode = problems === 0 ? EXIT.ok : EXIT.notConverged;
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

/** `--rules a,b` (or repeated): the ids to apply, in the catalogue's order; all when none is given. */
export function selectRules(given: string[] | undefined): string[] {
  if (given === undefined) return [...LINT_RULE_IDS];
  const ids = given
    .flatMap((g) => g.split(','))
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const unknown = unknownRules(ids);
  if (unknown.length > 0) {
    const guess = didYouMean(unknown[0]!, LINT_RULE_IDS);
    throw usageError(`unknown lint rule ${unknown[0]}${guess ? ` (did you mean ${guess}?)` : ''}`, `choose from ${LINT_RULE_IDS.join(', ')}`);
  }
  if (ids.length === 0) throw usageError('--rules names no rule', `choose from ${LINT_RULE_IDS.join(', ')}`);
  return LINT_RULE_IDS.filter((id) => ids.includes(id));
}

export function lintFindings(file: ScannedFile, rules: readonly string[]): Finding[] {
  const problems = lintNotes(file.notes, file.source, rules);
  const prints = fingerprints(
    file.path,
    problems.map((p) => ({ ruleId: p.rule, kind: p.note.kind, text: p.note.text })),
  );
  return problems.map((p, i) => ({
    ruleId: p.rule,
    kind: p.note.kind,
    line: p.note.line,
    column: p.note.column,
    text: p.note.text,
    message: `${p.message}: ${p.note.text}`,
    fingerprint: prints[i]!,
    canonical: p.note.canonical,
    refersTo: p.note.refersTo,
  }));
}

export function lintRuleInfo(rules: readonly string[]): RuleInfo[] {
  return LINT_RULES.filter((r) => rules.includes(r.id)).map((r) => ({
    id: r.id,
    name: r.name,
    short: `${r.summary.charAt(0).toUpperCase()}${r.summary.slice(1)}.`,
    full: `Bounce Protocol note lint, rule ${r.id}: ${r.summary}. The heuristic and examples are in docs/lint.md.`,
    help: `${r.help.charAt(0).toUpperCase()}${r.help.slice(1)}.`,
  }));
}
