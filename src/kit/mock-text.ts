/**
 * What the built-in mock agent writes, as pure functions of the document: the reviewer adds one
 * note where the protocol and `bounce lint` want it (a line of its own right below the text it
 * refers to, or the substrate's form of that), the composer deletes every note and leaves
 * everything else as it was. The substrate comes from the prompt (the JSON and YAML rules it
 * carries), so the mock reads a document as the runner does.
 */
import { type CodeBlock, markdownRegions } from '../protocol/code-ranges.js';
import { ledgerReading, noteSpans } from '../protocol/ledger.js';
import { lintNotes } from '../protocol/lint.js';
import { lineAt, lineIndex, type Note, scanNotes } from '../protocol/scanner.js';
import { parseError } from '../protocol/substrate.js';
import type { Syntax } from '../vocabulary.js';
import { withoutBom } from '../text/lines.js';
import { yamlLib } from '../yaml.js';

/** The note the mock reviewer writes: a conforming [CONTESTED] note (it says what to write instead). */
export const MOCK_NOTE = '[CONTESTED] The opening is vague about scope. State what is in scope and what is not.';

/**
 * The substrate of the document a prompt carries: JSON or YAML when the frame holds that
 * substrate's rules (`rules`, the package's prompts/json.md and yaml.md), else Markdown. Plain
 * text is read as Markdown too: the prompt does not tell them apart.
 */
export function mockSyntax(frame: string, rules: { json: string; yaml: string }): Syntax {
  if (rules.yaml && frame.includes(rules.yaml.trim())) return 'yaml';
  if (rules.json && frame.includes(rules.json.trim())) return 'json';
  return 'markdown';
}

const BOM = '\uFEFF';
const splitBom = (doc: string): [string, string] => (doc.startsWith(BOM) ? [BOM, doc.slice(1)] : ['', doc]);

const MAX_TRIES = 20;

/**
 * Adds the mock's note: below the first paragraph that is not a heading (else the first line
 * of text), in the substrate's form. Each place is tried in turn and kept only when the note is
 * found there, passes every lint rule, and the document still parses (JSON, YAML); with no
 * such place the document comes back as it was.
 */
export function addNote(doc: string, syntax: Syntax = 'markdown'): string {
  const [bom, body] = splitBom(doc);
  const lines = body.split('\n');
  // Each try scans (and parses) the whole document: a few places are enough.
  for (const at of places(body, lines, syntax).slice(0, MAX_TRIES)) {
    const out = bom + insertNote(lines, at, syntax).join('\n');
    if (conforms(doc, out, syntax)) return out;
  }
  return doc;
}

/** Whether `out` holds exactly one note more than `doc`, the mock's, breaking no lint rule, and parses as `syntax`. */
function conforms(doc: string, out: string, syntax: Syntax): boolean {
  if (parseError(out, syntax) !== null) return false;
  // A YAML comment changes no value: a `#` line inside a block scalar would.
  if (syntax === 'yaml' && yamlValues(out) !== yamlValues(doc)) return false;
  const before = scanNotes(doc, { syntax }).length;
  const notes = scanNotes(out, { syntax });
  const added = notes.filter((n) => n.kind === 'CONTESTED' && n.text.endsWith(MOCK_NOTE.slice('[CONTESTED]'.length).trim()));
  return notes.length === before + 1 && added.length > 0 && lintNotes(added, out).length === 0;
}

const yamlValues = (text: string): string =>
  JSON.stringify(
    yamlLib()
      .parseAllDocuments(withoutBom(text))
      .map((d) => d.toJS()),
  );

/** Lines (0-based) the note may go right below, best first. */
function places(body: string, lines: string[], syntax: Syntax): number[] {
  const text = (i: number): boolean => (lines[i] ?? '').trim() !== '';
  const candidates: number[] = [];
  if (syntax === 'json') {
    // A member on a line of its own: `"key": value` (the note becomes the member after it).
    lines.forEach((l, i) => {
      if (/^\s*"(?:[^"\\]|\\.)*"\s*:\s*(?:"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)\s*,?\s*$/.test(l)) candidates.push(i);
    });
    return candidates;
  }
  if (syntax === 'yaml') {
    lines.forEach((l, i) => {
      if (text(i) && !/^\s*(?:#|---|\.\.\.|%)/.test(l)) candidates.push(i);
    });
    return candidates;
  }
  // Markdown: the last line of each paragraph; paragraphs that are not headings first.
  const code = codeLines(body);
  const ends: number[] = [];
  for (let i = 0; i < lines.length; i++) if (text(i) && !text(i + 1) && !code.has(i)) ends.push(i);
  // A heading, a table row, a quote or HTML only when no paragraph of plain text will do.
  const other = (i: number): boolean => /^\s{0,3}(?:#{1,6}(?:\s|$)|[|<>])/.test(lines[i]!);
  // Last, below the document's last line (after a code block that ends it).
  let last = lines.length - 1;
  while (last >= 0 && !text(last)) last--;
  return [...ends.filter((i) => !other(i)), ...ends.filter(other), ...(last >= 0 && !ends.includes(last) ? [last] : [])];
}

/** The lines with the note added right below line `at`, indented like it. */
function insertNote(lines: readonly string[], at: number, syntax: Syntax): string[] {
  // CRLF documents: the note's line ends as the line above it does.
  const eol = lines[at]!.endsWith('\r') ? '\r' : '';
  const line = eol ? lines[at]!.slice(0, -1) : lines[at]!;
  const indent = /^\s*/.exec(line)![0];
  const out = [...lines];
  if (syntax === 'json') {
    const key = /^\s*"((?:[^"\\]|\\.)*)"/.exec(line)![1]!;
    const comma = /,\s*$/.test(line);
    // The last member gets a comma; the note then ends the object without one.
    if (!comma) out[at] = `${line.replace(/\s*$/, '')},${eol}`;
    out.splice(at + 1, 0, `${indent}${JSON.stringify(`${key}.note`)}: ${JSON.stringify(MOCK_NOTE)}${comma ? ',' : ''}${eol}`);
    return out;
  }
  // A list item's text starts after its marker: a note under it is indented to there.
  const itemIndent = syntax === 'markdown' ? /^\s*(?:[-*+]|\d{1,9}[.)])\s+/.exec(line)?.[0].replace(/\S/g, ' ') : undefined;
  out.splice(at + 1, 0, `${itemIndent ?? indent}${syntax === 'yaml' ? '# ' : ''}${MOCK_NOTE}${eol}`);
  return out;
}

/** Line numbers (0-based) that lie in Markdown code blocks, fences included: the mock never touches them. */
function codeLines(doc: string): Set<number> {
  const blocks: CodeBlock[] = [];
  markdownRegions(doc, [], { code: blocks });
  const { starts } = lineIndex(doc);
  const out = new Set<number>();
  for (const b of blocks) {
    const last = b.lines.length ? (b.lines[b.lines.length - 1] as number) : b.start;
    // A fenced block's closing fence is the line after its last content line.
    const end = lineAt(starts, last) + (b.fenced && b.closed ? 1 : 0);
    for (let l = lineAt(starts, b.start); l <= end; l++) out.add(l);
  }
  return out;
}

/**
 * Resolves every note the scanner finds by deleting it: the lines it spans (a YAML comment
 * note with the comment lines it runs on; a JSON note's member or element, with the comma
 * that went with it), or, for a note in mid-line, the line from its marker on (and the `#`
 * that opened a YAML comment). Code and everything else stays as it was.
 */
export function resolveNotes(doc: string, syntax: Syntax = 'markdown'): string {
  const [bom, body] = splitBom(doc);
  const notes = scanNotes(body, { syntax });
  if (notes.length === 0) return doc;
  const lines = body.split('\n');
  const drop = new Set<number>();
  const spans = noteSpans({ text: body, notes, ...ledgerReading(syntax) });
  notes.forEach((note, i) => {
    const [first, last] = spans[i]!;
    if (!note.canonical || (syntax === 'json' && !wholeLineMember(lines[first - 1]!, note))) {
      cutFromMarker(lines, note, syntax);
      return;
    }
    for (let l = first; l <= last; l++) drop.add(l - 1);
    // A note that was a paragraph of its own leaves one blank line, not two.
    if (syntax !== 'json' && lines[first - 2]?.trim() === '' && lines[last]?.trim() === '') drop.add(last);
  });
  const kept = lines.filter((_, i) => !drop.has(i));
  if (syntax !== 'json') return bom + kept.join('\n');
  const out = bom + fixCommas(kept).join('\n');
  // Notes inside a line of other JSON: taken out of the parsed value instead.
  return parseError(out, 'json') === null && scanNotes(out, { syntax }).length === 0 ? out : bom + withoutJsonNotes(body);
}

/** A JSON document without its notes, written again with its indentation: members and elements that are notes go, a note in mid-string is cut off. */
function withoutJsonNotes(body: string): string {
  const isNote = (v: unknown): boolean => typeof v === 'string' && scanNotes(JSON.stringify(v), { syntax: 'json' }).some((n) => n.canonical);
  const clean = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.filter((e) => !isNote(e)).map(clean);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).flatMap(([k, e]) => (isNote(e) ? [] : [[k, clean(e)]])));
    if (typeof v !== 'string') return v;
    const note = scanNotes(v, { syntax: 'plain' })[0];
    return note ? v.slice(0, note.offset).trimEnd() : v;
  };
  const indent = /\n([ \t]+)\S/.exec(body)?.[1] ?? '';
  return `${JSON.stringify(clean(JSON.parse(body)), null, indent)}${body.endsWith('\n') ? '\n' : ''}`;
}

/** A JSON note that is a whole line: a member (`"k": "[CLARIFY] ..."`) or an element, with or without its comma. */
function wholeLineMember(line: string, note: Note): boolean {
  return /^\s*(?:"(?:[^"\\]|\\.)*"\s*:\s*)?"(?:[^"\\]|\\.)*"\s*,?\s*$/.test(line) && line.includes(`[${note.kind}]`);
}

/** A note in mid-line: the line up to its marker, without a YAML comment's `#` left alone at the end. */
function cutFromMarker(lines: string[], note: Note, syntax: Syntax): void {
  const i = note.line - 1;
  let kept = (lines[i] ?? '').slice(0, note.column - 1).trimEnd();
  if (syntax === 'yaml') kept = kept.replace(/(^|\s)#+$/, '').trimEnd();
  lines[i] = kept;
}

/** After JSON members were deleted: no comma before a closing bracket. */
function fixCommas(lines: string[]): string[] {
  const out = [...lines];
  let closes = false;
  // From the end: whether the next line that is not blank closes an object or array.
  for (let i = out.length - 1; i >= 0; i--) {
    if (closes) out[i] = out[i]!.replace(/,(\s*)$/, '$1');
    if (out[i]!.trim() !== '') closes = /^\s*[}\]]/.test(out[i]!);
  }
  return out;
}
