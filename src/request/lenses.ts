import { existsSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import type { Lens } from '../engine/plan.js';
import { usageError } from '../errors.js';
import { defaultPromptsDir, normaliseTemplate } from '../prompt-files.js';
import { didYouMean } from '../suggest.js';
import { decodeText, readUserFile } from '../text-input.js';

/** The lenses bounce ships (prompts/lenses/<name>.md); a --prompts folder may hold its own text for any of them. */
export const BUILTIN_LENSES = ['security', 'performance', 'correctness', 'clarity', 'api-docs'] as const;

/** The most a lens's text may hold: it goes into every reviewer prompt. */
export const LENS_MAX_BYTES = 16_384;

/** The most lenses a run takes in turn. */
export const MAX_LENSES = 16;

/** A lens named by a path (it has a slash or a file extension) rather than by a built-in name. */
const isPath = (name: string): boolean => name.includes('/') || name.includes('\\') || extname(name) !== '';

/**
 * The lenses `--lens` (else config `lenses`) names, in order, read once: a built-in name takes
 * `lenses/<name>.md` of the --prompts folder when it has one, else the package's; any other
 * word with a slash or an extension is the user's own prompt file, relative to `base` (the
 * working directory for the flag, the config file's folder for the config), named after it.
 * Every problem is a usage error naming the lens and the fix.
 */
export function readLenses(names: readonly string[], base: string, promptsDir: string | null, what: string): Lens[] {
  const wanted = names.map((n) => n.trim()).filter((n) => n !== '');
  if (wanted.length > MAX_LENSES) throw usageError(`${what} names ${wanted.length} lenses, over the limit of ${MAX_LENSES}`, 'name fewer lenses', 'usage');
  const lenses = wanted.map((name) => (isPath(name) ? ownLens(name, base, what) : builtinLens(name, promptsDir, what)));
  const seen = new Set<string>();
  for (const lens of lenses) {
    if (seen.has(lens.name)) throw usageError(`${what} names the lens ${lens.name} twice`, 'name each lens once: they are taken in turn', 'usage');
    seen.add(lens.name);
  }
  return lenses;
}

function builtinLens(name: string, promptsDir: string | null, what: string): Lens {
  if (!(BUILTIN_LENSES as readonly string[]).includes(name)) {
    const near = didYouMean(name, BUILTIN_LENSES);
    throw usageError(
      `${what}: no lens named ${name}`,
      `${near ? `did you mean ${near}? ` : ''}the built-in lenses are ${BUILTIN_LENSES.join(', ')}; or give the path of your own prompt file (./${name}.md)`,
      'usage',
    );
  }
  const own = promptsDir ? join(promptsDir, 'lenses', `${name}.md`) : null;
  const file = own && existsSync(own) ? own : join(defaultPromptsDir(), 'lenses', `${name}.md`);
  return { name, text: lensText(file, `lens ${name} (${file})`) };
}

function ownLens(path: string, base: string, what: string): Lens {
  const file = resolve(base, path);
  const name = basename(path).replace(/\.[^.]+$/, '');
  if (name === '') throw usageError(`${what}: ${path} names no file`, 'give the path of a prompt file, e.g. ./lenses/privacy.md', 'usage');
  return { name, text: lensText(file, `${what} ${path}`) };
}

function lensText(file: string, label: string): string {
  const { bytes } = readUserFile(file, label, LENS_MAX_BYTES, 'usage', {
    missing: () => usageError(`${label}: no such file`, 'check the path of the lens prompt file', 'usage'),
  });
  if (bytes.length > LENS_MAX_BYTES) throw usageError(`${label} is over ${LENS_MAX_BYTES} bytes`, 'a lens is a short instruction: shorten it', 'usage');
  const text = normaliseTemplate(decodeText(bytes, file)).trim();
  if (text === '') throw usageError(`${label} is empty`, 'write what a reviewer pass with this lens should look for', 'usage');
  return text;
}
