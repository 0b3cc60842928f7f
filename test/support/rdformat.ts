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
