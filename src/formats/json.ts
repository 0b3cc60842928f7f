import { totalFindings, type Finding, type Report } from './finding.js';

/** One object: every file (clean ones with an empty list), the total and the exit code. */
export function renderJson(report: Report): string {
  // Pieces joined once: adding each to one string built a tree of a million joins, which the
  // collector walked again and again (scan --lint of 150,000 notes: most of 5.6 s).
  const pieces: string[] = [];
  const json = new JsonReport(report.command, (s) => {
    pieces.push(s);
  });
  for (const f of report.files) {
    json.file(f.path);
    // A note is listed as a note; a lint problem (lint, or scan --lint) with its rule and message.
    for (const n of f.findings) json.item(report.command === 'scan' && n.ruleId === n.kind ? jsonNote(n) : jsonProblem(n));
  }
  json.end(totalFindings(report), report.exitCode);
  return pieces.join('');
}

/** A note as the JSON report lists it (scan's item, and the tail of lint's). */
export function jsonNote(n: Pick<Finding, 'kind' | 'line' | 'column' | 'text' | 'canonical' | 'refersTo'>) {
  return { kind: n.kind, line: n.line, column: n.column, text: n.text, canonical: n.canonical, refersTo: n.refersTo };
}

/** A lint problem as the JSON report lists it: its rule and message, then the note. */
export function jsonProblem(n: Pick<Finding, 'ruleId' | 'message' | 'kind' | 'line' | 'column' | 'text' | 'canonical' | 'refersTo'>) {
  return { rule: n.ruleId, message: n.message, ...jsonNote(n) };
}

/** Where an item of a file's list stands: root, "files", the file, its list. */
const ITEM_INDENT = '\n        ';

/**
 * The JSON report written in order, a piece at a time, each piece handed to `write`: the
 * bytes `JSON.stringify({ files, total, exitCode }, null, 2)` gives for the whole report,
 * without holding it (a scan streams its notes through this as it finds them).
 */
export class JsonReport {
  private files = 0;
  private items = 0;
  private open = false;
  private readonly key: string;

  constructor(
    command: Report['command'],
    private readonly write: (s: string) => void,
  ) {
    this.key = JSON.stringify(command === 'scan' ? 'notes' : 'problems');
    write('{\n  "files": [');
  }

  /** Starts the next file's entry (ending the one before). */
  file(path: string): void {
    this.endFile();
    this.write(`${this.files++ === 0 ? '' : ','}\n    {\n      "path": ${JSON.stringify(path)},\n      ${this.key}: [`);
    this.items = 0;
    this.open = true;
  }

  /** One item of the current file's list. */
  item(value: object): void {
    // A JSON string holds no raw line break, so indenting the lines of the item's own text indents the item.
    this.write(`${this.items++ === 0 ? '' : ','}${ITEM_INDENT}${JSON.stringify(value, null, 2).replaceAll('\n', ITEM_INDENT)}`);
  }

  end(total: number, exitCode: number): void {
    this.endFile();
    this.write(`${this.files === 0 ? '' : '\n  '}],\n  "total": ${total},\n  "exitCode": ${exitCode}\n}\n`);
  }

  private endFile(): void {
    if (!this.open) return;
    this.write(`${this.items === 0 ? '' : '\n      '}]\n    }`);
    this.open = false;
  }
}
