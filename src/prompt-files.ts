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
