import { EXIT, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { DEFAULT_MARKERS } from '../protocol/scanner.js';
import { fingerprints, plural, type FileFindings, type Finding, type Report, type RuleInfo } from '../formats/finding.js';
import { pushAll } from '../arrays.js';
import { byteColumns } from '../formats/byte-columns.js';
import { letYoungGenerationGrow } from '../young-generation.js';

import { emitReport, type InputOptions, outputFormat, type OutputOptions, readInputs, type ScannedFile, scanInputs } from '../request/scan-inputs.js';
import { type StreamedCounts, streamReport } from '../request/stream-report.js';

export type { InputOptions, OutputOptions, ScannedFile } from '../request/scan-inputs.js';

export interface ScanCommandOptions extends InputOptions, OutputOptions {
  /** Also check every note against the lint rules (src/protocol/lint.ts). */
  lint?: boolean;
  /** Lint rule ids to apply (default: all). */
  rules?: string[];
  /** `--fixes-from`: converged runs whose changes become SARIF fixes of the notes they resolved. */
  fixesFrom?: string[];
}

/** `bounce scan`: lists notes (as `file:line:col KIND text` or a CI format); exit 0 when none, 1 when any. */
export async function runScan(opts: ScanCommandOptions, io: Io): Promise<number> {
  if (opts.patterns.length === 0) throw usageError('bounce scan needs a file, folder or glob', "try 'bounce scan docs/' or 'bounce scan -' for stdin");
  const format = outputFormat(opts);
  if (opts.rules !== undefined && !opts.lint) throw usageError('--rules chooses lint rules', 'add --lint, or use bounce lint');
  if (opts.fixesFrom !== undefined && format !== 'sarif' && opts.sarif === undefined)
    throw usageError(`--fixes-from applies to --format sarif (or --sarif), not ${format}`, 'add --format sarif, or drop --fixes-from');
  const ruleIds = opts.lint ? (await import('../formats/lint-findings.js')).selectRules(opts.rules) : undefined;
  if ((format === 'text' || format === 'json') && opts.output === undefined) {
    // With --lint a file's notes are kept together, so what is made survives (src/young-generation.ts).
    if (ruleIds) letYoungGenerationGrow();
    const report = { command: 'scan', format, rules: ruleIds, exitCode: (c: StreamedCounts) => (c.notes === 0 ? EXIT.ok : EXIT.problems) } as const;
    const counts = await streamReport(await readInputs(opts, io), report, opts, io);
    if (format === 'text') io.stderr.write(`${summary(counts.notes, counts.filesWithNotes, counts.files)}\n`);
    return report.exitCode(counts);
  }
  // The report is held whole: what is made survives (src/young-generation.ts).
  letYoungGenerationGrow();
  const files = await scanInputs(opts, io);
  const total = files.reduce((sum, f) => sum + f.notes.length, 0);
  const exitCode = total === 0 ? EXIT.ok : EXIT.problems;
  const findings: FileFindings[] = files.map((f) => ({ path: f.path, findings: noteFindings(f) }));
  if (opts.fixesFrom?.length) {
    const { addRunFixes, loadRunDocuments } = await import('../formats/run-fixes.js');
    addRunFixes(
      findings,
      files.map((f) => f.source),
      loadRunDocuments(opts.fixesFrom, io.cwd),
    );
  }
  const rules = markerRules(opts.markers ?? []);
  if (ruleIds) {
    const { lintFindings, lintRuleInfo } = await import('../formats/lint-findings.js');
    for (const [i, f] of findings.entries()) pushAll(f.findings, lintFindings(files[i]!, ruleIds));
    rules.push(...lintRuleInfo(ruleIds));
  }
  const report: Report = { command: 'scan', files: findings, rules, level: opts.level ?? 'warning', levelByKind: opts.level === undefined, exitCode };
  await emitReport(report, format, opts, io);
  if (format !== 'json') io.stderr.write(`${summary(total, files.filter((f) => f.notes.length > 0).length, files.length)}\n`);
  return exitCode;
}

function noteFindings(f: ScannedFile): Finding[] {
  const prints = fingerprints(
    f.path,
    f.notes.map((n) => ({ ruleId: n.kind, kind: n.kind, text: n.text })),
  );
  const bytes = byteColumns(
    f.source,
    f.notes.map((n) => n.offset),
  );
  return f.notes.map((n, i) => ({
    ruleId: n.kind,
    kind: n.kind,
    line: n.line,
    column: n.column,
    bytes: bytes[i]!,
    text: n.text,
    message: n.text,
    fingerprint: prints[i]!,
    canonical: n.canonical,
    refersTo: n.refersTo,
  }));
}

const MARKER_RULES: Record<string, Omit<RuleInfo, 'id' | 'name'>> = {
  CONTESTED: {
    short: 'An unresolved [CONTESTED] note: an agent disputes the text above it.',
    full: 'A [CONTESTED] note says what is wrong with the passage above it and what to write instead. A document with notes has not converged under the Bounce Protocol.',
    help: 'Decide the point in the text, then delete the note (bounce refine does both).',
  },
  CLARIFY: {
    short: 'An unresolved [CLARIFY] note: the text above it can be read more than one way.',
    full: 'A [CLARIFY] note names two readings of the passage above it, or asks a question with a closed set of answers. A document with notes has not converged under the Bounce Protocol.',
    help: 'Rewrite the passage so only one reading remains, then delete the note (bounce refine does both).',
  },
};

/** One rule per marker kind: the protocol's two and the extra ones configured. */
function markerRules(extra: string[]): RuleInfo[] {
  const kinds = [...new Set([...DEFAULT_MARKERS, ...extra].map((k) => k.toUpperCase()))];
  return kinds.map((id) => ({
    id,
    name: `Unresolved${id.charAt(0)}${id
      .slice(1)
      .toLowerCase()
      .replace(/[-_](.)/g, (_, c: string) => c.toUpperCase())}Note`,
    ...(MARKER_RULES[id] ?? {
      short: `An unresolved [${id}] note (a marker configured for this project).`,
      full: `[${id}] is an extra marker configured in bounce.config.yaml or with --marker; it counts like the protocol's own notes.`,
      help: 'Settle the point in the text, then delete the note.',
    }),
  }));
}

function summary(total: number, withNotes: number, files: number): string {
  const scanned = plural(files, 'file');
  if (total === 0) return `no notes (${scanned} scanned)`;
  return `${plural(total, 'note')} in ${plural(withNotes, 'file')} (${scanned} scanned)`;
}
