/** Where the package's prompt templates are, and how a template file's text is read. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package.js';

export function defaultPromptsDir(): string {
  return join(packageRoot(), 'prompts');
}

/** A template's text as written, without a BOM and with LF line ends. */
export function normaliseTemplate(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
}

/** The package's own template `name` (prompts/<name>.md), normalised. */
export function packageTemplate(name: string): string {
  return normaliseTemplate(readFileSync(join(defaultPromptsDir(), `${name}.md`), 'utf8'));
}

/**
 * A template of a side dispatch (prompts/judge.md): from `dir` (--prompts) when it has one of
 * that name, else the package's, normalised.
 */
export function sideTemplate(name: string, dir?: string | null): string {
  const own = dir ? join(dir, `${name}.md`) : null;
  if (own && existsSync(own)) return normaliseTemplate(readFileSync(own, 'utf8'));
  return packageTemplate(name);
}

const PLACEHOLDER = /\{\{([^{}\n]*)\}\}/g;

/**
 * A side template checked (prompts/judge.md, prompts/grader.md): it uses only its own
 * placeholders, and every required one. Returns the problem in words, or null.
 */
export function placeholderProblem(template: string, file: string, allowed: readonly string[], required: readonly string[]): string | null {
  const used = [...template.matchAll(PLACEHOLDER)].map((m) => (m[1] ?? '').trim());
  const unknown = used.find((u) => !allowed.includes(u));
  if (unknown !== undefined) return `unknown placeholder {{${unknown}}}; ${file} may use ${allowed.map((p) => `{{${p}}}`).join(', ')}`;
  const missing = required.find((p) => !used.includes(p));
  return missing ? `missing placeholder {{${missing}}}` : null;
}

/**
 * A side template filled in, in a single pass (text a value brings in is never expanded). A
 * line holding only a placeholder whose value is empty goes, with the blank line after it.
 */
export function fillPlaceholders(template: string, values: Readonly<Record<string, string>>): string {
  const source = template.replace(/^[ \t]*\{\{([^{}\n]*)\}\}[ \t]*\n(?:[ \t]*\n)?/gm, (line, key: string) => (values[key.trim()] === '' ? '' : line));
  return source.replace(PLACEHOLDER, (whole, key: string) => values[key.trim()] ?? whole);
}
