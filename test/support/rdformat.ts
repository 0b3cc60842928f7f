/**
 * Checks of Reviewdog Diagnostic Format output against the format's own two judges: its JSON
 * schemas (reviewdog's proto/rdf/jsonschema, vendored in test/fixtures/rdformat) and its
 * validator, @umbrelladocs/rdformat-validator, strict and with no field the format lacks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RDFormatValidator } from '@umbrelladocs/rdformat-validator';
import { Ajv } from 'ajv';
import { FIXTURES } from './cli.js';

function schema(name: 'Diagnostic' | 'DiagnosticResult') {
  const s = JSON.parse(readFileSync(join(FIXTURES, 'rdformat', `${name}.json`), 'utf8'));
  // Draft-04 schemas: ajv 8 has no draft-04 meta-schema, and these use nothing draft-04 alone has.
  delete s.$schema;
  return new Ajv({ strict: false, allErrors: true }).compile(s);
}

const validator = new RDFormatValidator({ strictMode: true, allowExtraFields: false });

/** Every problem either judge finds in one value (a Diagnostic or a DiagnosticResult); none: valid. */
async function problems(value: unknown, kind: 'Diagnostic' | 'DiagnosticResult'): Promise<string[]> {
  const check = schema(kind);
  const out = check(value) ? [] : (check.errors ?? []).map((e) => `schema: ${e.instancePath} ${e.message}`);
  const r = await validator.validateObject(value);
  if (!r.valid) out.push(...r.errors.map((e) => `validator: ${e.path} ${e.message}`));
  return out;
}

/** The problems of rdjsonl text: each line a Diagnostic. */
export async function rdjsonlProblems(text: string): Promise<string[]> {
  const lines = text.split('\n');
  if (lines.pop() !== '') return ['the output does not end with a line break'];
  const out: string[] = [];
  for (const [i, line] of lines.entries()) out.push(...(await problems(JSON.parse(line), 'Diagnostic')).map((p) => `line ${i + 1}: ${p}`));
  return out;
}

/** The problems of an rdjson document: one DiagnosticResult. */
export function rdjsonProblems(text: string): Promise<string[]> {
  return problems(JSON.parse(text), 'DiagnosticResult');
}

interface Position {
  line: number;
  column?: number;
}

/**
 * Applies Reviewdog suggestions to a text as the format defines them: each range from its
 * start to its end (exclusive), lines 1-based, columns 1-based UTF-8 bytes. Ranges must not
 * overlap; they are applied from the last.
 */
export function applyRdSuggestions(text: string, suggestions: readonly { range: { start: Position; end?: Position }; text: string }[]): string {
  const bytes = Buffer.from(text, 'utf8');
  const lineStarts = [0];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) lineStarts.push(i + 1);
  const offset = (p: Position): number => {
    const start = lineStarts[p.line - 1];
    if (start === undefined) throw new Error(`line ${p.line} is past the end (${lineStarts.length} lines)`);
    const at = start + (p.column ?? 1) - 1;
    if (at > bytes.length) throw new Error(`column ${p.column} of line ${p.line} is past the end`);
    return at;
  };
  const edits = suggestions
    .map((s) => ({ from: offset(s.range.start), to: offset(s.range.end ?? s.range.start), text: s.text }))
    .sort((x, y) => y.from - x.from);
  let out = bytes;
  let limit = Number.POSITIVE_INFINITY;
  for (const e of edits) {
    if (e.to > limit || e.to < e.from) throw new Error(`overlapping or reversed range ${e.from}..${e.to}`);
    out = Buffer.concat([out.subarray(0, e.from), Buffer.from(e.text, 'utf8'), out.subarray(e.to)]);
    limit = e.from;
  }
  return out.toString('utf8');
}
