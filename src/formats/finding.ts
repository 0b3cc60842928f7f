/**
 * The one shape every output format renders: what a command found, per file. `scan` makes
 * a finding of each note; `lint` makes one of each note that breaks a conformance rule.
 */
import { createHash } from 'node:crypto';

import type { ByteColumns } from './byte-columns.js';
import type { Level } from './names.js';

export type { Format, Level } from './names.js';

export interface Finding {
  /** The rule it breaks: the marker kind for scan (`CONTESTED`), a lint rule id for lint. */
  ruleId: string;
  /** Upper-case marker kind of the note. */
  kind: string;
  /** 1-based line and column (UTF-16 code units) of the marker. */
  line: number;
  column: number;
  /** The marker's column and its line's end, in UTF-8 bytes (rdjson counts those). */
  bytes: ByteColumns;
  /** The note's text, whitespace-normalised, starting with its marker. */
  text: string;
  /** What to show: the note's text for scan, the rule's complaint and the note for lint. */
  message: string;
  /** Stable across edits that move the note: see fingerprints(). */
  fingerprint: string;
  /** The marker starts its line's text (after list, quote and emphasis prefixes). */
  canonical: boolean;
  /** The nearest non-blank line above the note. */
  refersTo: { line: number; text: string } | null;
  /** A note a run resolved (`scan --fixes-from`): the change it made there, a SARIF fix. */
  fix?: RunFix;
}

/** What a run resolved a note with (src/formats/run-fixes.ts): replace `length` UTF-16 units at `offset` of the document with `inserted`. */
export interface RunFix {
  runId: string;
  offset: number;
  length: number;
  inserted: string;
}

export interface FileFindings {
  /** Relative to the working directory, with forward slashes (or `<stdin>`). */
  path: string;
  findings: Finding[];
}

/** What a rule (a marker kind or a lint rule) means, for formats that describe their rules. */
export interface RuleInfo {
  id: string;
  /** A readable PascalCase name, different from the id (SARIF wants them apart). */
  name: string;
  /** One line. */
  short: string;
  /** A paragraph. */
  full: string;
  /** What to do about it. */
  help: string;
}

export interface Report {
  /** `scan` or `lint`: the tool name in SARIF, the suite name in JUnit. */
  command: 'scan' | 'lint';
  files: FileFindings[];
  rules: RuleInfo[];
  level: Level;
  /** `--level` was not given: github annotations take a scan note's level from its kind (github.ts NOTE_LEVELS). */
  levelByKind?: boolean;
  exitCode: number;
}

/**
 * Fingerprints that survive edits elsewhere in the file: the hash of path, rule, kind and
 * text, plus the count of earlier findings with the same four (so two identical notes differ).
 */
export function fingerprints(path: string, items: { ruleId: string; kind: string; text: string }[]): string[] {
  const seen = new Map<string, number>();
  return items.map((f) => {
    const key = [path, f.ruleId, f.kind, f.text].join('\u0000');
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return createHash('sha256').update(`${key}\u0000${n}`).digest('hex').slice(0, 32);
  });
}

export function totalFindings(report: Report): number {
  return report.files.reduce((sum, f) => sum + f.findings.length, 0);
}

export { plural } from '../plural.js';
