/**
 * The substrates that must still parse after every pass (JSON, YAML), and the parser's
 * one-line error when a text does not. Pure; the pass decides what to do (a repair with the
 * error, like a broken structure). Markdown and plain text parse whatever they hold.
 */
import type { Syntax } from '../vocabulary.js';
import { yamlLib } from '../yaml.js';
import { lineAt, lineIndex } from './scanner.js';
import { withoutBom } from '../text/lines.js';

/** The substrates held to a parser. */
export const PARSED_SYNTAXES: ReadonlySet<Syntax> = new Set(['json', 'yaml']);

/** Why `text` is not valid `syntax`, in one line naming where (line and column); null when it parses or has no parser. */
export function parseError(text: string, syntax: Syntax): string | null {
  const body = withoutBom(text);
  if (syntax === 'json') return jsonError(body);
  if (syntax === 'yaml') return yamlError(body);
  return null;
}

function jsonError(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // V8 names a position, or quotes the text instead ("...", is not valid JSON): the quote is document text and never
    // goes into a repair request, which stands outside the document's frame; the position is found by bisection then.
    const at = /JSON at position (\d+)/.exec(message);
    const offset = at ? Number(at[1]) : /end of JSON input/.test(message) ? text.length : firstBadOffset(text);
    const what = message.replace(/ at position \d+.*$/s, '').replace(/, ".*is not valid JSON$/s, '');
    return `invalid JSON${position(text, offset)}: ${oneLine(what)}`;
  }
}

/** The offset of the first character after which no continuation can make `text` valid JSON. */
function firstBadOffset(text: string): number {
  const failsWithin = (prefix: string): boolean => {
    try {
      JSON.parse(prefix);
      return false;
    } catch (err) {
      const message = err instanceof Error ? err.message : '';
      if (/end of JSON input/.test(message)) return false;
      const at = /at position (\d+)/.exec(message);
      return at ? Number(at[1]) < prefix.length : true;
    }
  };
  let lo = 0;
  let hi = text.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (failsWithin(text.slice(0, mid + 1))) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function yamlError(text: string): string | null {
  for (const doc of yamlLib().parseAllDocuments(text)) {
    const first = doc.errors[0];
    if (!first) continue;
    const pos = first.linePos?.[0];
    const where = pos ? ` at line ${pos.line}, column ${pos.col}` : '';
    // The parser's message ends with a copy of the line, and may quote a token: document text, left out.
    const what = first.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '').replace(/: ".*"$/s, '');
    return `invalid YAML${where}: ${oneLine(what)}`;
  }
  return null;
}

function position(text: string, offset: number): string {
  const lines = lineIndex(text);
  const line = lineAt(lines.starts, offset);
  return ` at line ${line + 1}, column ${offset - lines.starts[line]! + 1}`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
