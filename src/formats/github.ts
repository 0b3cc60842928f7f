/**
 * GitHub Actions workflow commands, one annotation per finding, and the job summary table.
 * Escaping follows @actions/core (command.ts): data escapes `%`, CR and LF; property values
 * also escape `:` and `,`.
 */
import { plural, totalFindings, type Finding, type Level, type Report } from './finding.js';

export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** GitHub shows at most this many annotations of one level per step (docs.github.com, workflow commands). */
export const GITHUB_ANNOTATIONS_PER_LEVEL = 10;

/** A scan note's level in annotations when `--level` is not given; other kinds and lint findings take the report's level. */
export const NOTE_LEVELS: Readonly<Record<string, Level>> = { CONTESTED: 'warning', CLARIFY: 'notice' };

export interface GithubOptions {
  /** Whether a line of a file (its display path) is one the change made: those notes come first. */
  changed?: (path: string, line: number) => boolean;
  /** Annotations per level (default GITHUB_ANNOTATIONS_PER_LEVEL); the rest are counted in one notice. */
  max?: number;
  /** Where every finding is listed, for that notice (e.g. `the job summary`). */
  fullList?: string[];
}

interface Annotation {
  path: string;
  finding: Finding;
  level: Level;
}

/** The level of one finding: a scan note by its kind, unless `--level` was given; anything else at the report's level. */
function annotationLevel(report: Report, n: Finding): Level {
  if (report.command === 'scan' && report.levelByKind && n.ruleId === n.kind) return NOTE_LEVELS[n.kind] ?? report.level;
  return report.level;
}

/**
 * One workflow command per finding, those on changed lines first, at most `max` of each
 * level; when some are held back, one notice (within the notices' own cap) says how many.
 */
export function renderGithub(report: Report, opts: GithubOptions = {}): string {
  const max = opts.max ?? GITHUB_ANNOTATIONS_PER_LEVEL;
  const all: Annotation[] = report.files.flatMap((f) => f.findings.map((finding) => ({ path: f.path, finding, level: annotationLevel(report, finding) })));
  const changed = opts.changed;
  const ordered = changed ? [...all.filter((a) => changed(a.path, a.finding.line)), ...all.filter((a) => !changed(a.path, a.finding.line))] : all;
  const count = (level: Level): number => all.filter((a) => a.level === level).length;
  const over = (['error', 'warning', 'notice'] as const).some((l) => count(l) > max);
  // The overflow notice is a notice too: it takes the last notice slot.
  const caps: Record<Level, number> = { error: max, warning: max, notice: over ? max - 1 : max };
  const shown: Record<Level, number> = { error: 0, warning: 0, notice: 0 };
  const held: Record<Level, number> = { error: 0, warning: 0, notice: 0 };
  let out = '';
  for (const { path, finding: n, level } of ordered) {
    if (shown[level] >= caps[level]) {
      held[level]++;
      continue;
    }
    shown[level]++;
    const title = report.command === 'scan' ? n.kind : `${n.ruleId} (${n.kind})`;
    const props = `file=${escapeProperty(path)},line=${n.line},col=${n.column},title=${escapeProperty(title)}`;
    out += `::${level} ${props}::${escapeData(n.message)}\n`;
  }
  const rest = held.error + held.warning + held.notice;
  if (rest > 0) {
    const noun = report.command === 'scan' ? 'note' : 'problem';
    const by = (['error', 'warning', 'notice'] as const)
      .filter((l) => held[l] > 0)
      .map((l) => `${held[l]} ${l}`)
      .join(', ');
    const where = opts.fullList?.length
      ? `every ${noun} is listed in ${opts.fullList.join(' and in ')}`
      : `bounce ${report.command} --format text lists every ${noun}`;
    const msg = `${plural(rest, `more ${noun}`)} not shown as annotations (${by}; GitHub shows ${max} per level per step): ${where}`;
    out += `::notice title=${escapeProperty(`bounce ${report.command}`)}::${escapeData(msg)}\n`;
  }
  return out;
}

/** A table cell: no line breaks, no column separators, no HTML (the summary renders HTML). */
function cell(s: string): string {
  return s
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/`/g, '\\`');
}

/** GitHub drops a step's whole job summary over 1 MiB (docs.github.com, "Adding a job summary"). */
export const STEP_SUMMARY_LIMIT_BYTES = 1024 * 1024;
/** Room left under the limit for the lines after the table and for later writers in the same step. */
export const STEP_SUMMARY_MARGIN_BYTES = 64 * 1024;

/**
 * Markdown for `$GITHUB_STEP_SUMMARY`: every finding, since annotations are capped, unless
 * that would pass `maxBytes` (UTF-8): then rows stop short of it and a line says how many
 * were left out. `omitted` is that count.
 */
export function stepSummary(
  report: Report,
  maxBytes = STEP_SUMMARY_LIMIT_BYTES - STEP_SUMMARY_MARGIN_BYTES,
  fullList = `bounce ${report.command} --format text`,
): { text: string; omitted: number } {
  const total = totalFindings(report);
  const noun = report.command === 'scan' ? 'note' : 'problem';
  const head = `### bounce ${report.command}: ${total === 0 ? 'nothing found' : plural(total, noun)} (${plural(report.files.length, 'file')} scanned)\n\n`;
  if (total === 0) return { text: head, omitted: 0 };
  const lint = report.command === 'lint';
  let out = `${head}| file | line | kind |${lint ? ' rule |' : ''} text |\n|---|---|---|${lint ? '---|' : ''}---|\n`;
  // The longest line that may end the table: the count of rows left out.
  const tail = (n: number): string => `\n${plural(n, `more ${noun}`)} left out: GitHub drops a job summary over 1 MiB. ${fullList} lists them all.\n\n`;
  let bytes = Buffer.byteLength(out) + Buffer.byteLength(tail(total));
  let listed = 0;
  outer: for (const f of report.files) {
    for (const n of f.findings) {
      const row = `| ${cell(f.path)} | ${n.line} | ${n.kind} |${lint ? ` ${n.ruleId} |` : ''} ${cell(n.message)} |\n`;
      const size = Buffer.byteLength(row);
      if (bytes + size > maxBytes) break outer;
      bytes += size;
      out += row;
      listed++;
    }
  }
  const omitted = total - listed;
  return { text: omitted === 0 ? `${out}\n` : `${out}${tail(omitted)}`, omitted };
}
