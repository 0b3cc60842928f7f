import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Role } from '../adapters/contract.js';
import { usageError } from '../errors.js';
import type { EditFormat } from '../vocabulary.js';
import type { BlockFailure } from './edits.js';

export const TEMPLATE_NAMES = ['protocol', 'reviewer', 'composer', 'final', 'repair', 'whole', 'edits'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];
export type Templates = Record<TemplateName, string>;

const PACKAGE_NAME = 'bounce-runner';
const SCALARS = ['role', 'pass', 'total_passes', 'markers'] as const;
const FRAME = [...SCALARS, 'lens', 'final_rule', 'document', 'reply_format'] as const;

/**
 * The placeholders each template may use. Lenses and final.md get the scalars only:
 * they are pasted into a frame, so a {{document}} inside them would have nowhere to go.
 */
export const PLACEHOLDERS: Readonly<Record<TemplateName, readonly string[]>> = {
  protocol: FRAME,
  reviewer: SCALARS,
  composer: SCALARS,
  final: SCALARS,
  repair: [...FRAME, 'reason', 'failed_blocks'],
  // What {{reply_format}} says: the reply is the whole document, or edit blocks (--edit-format).
  whole: SCALARS,
  edits: SCALARS,
};
const REQUIRED: Readonly<Partial<Record<TemplateName, readonly string[]>>> = {
  protocol: ['document'],
  repair: ['document', 'reason'],
};

/** What {{final_rule}} says on every pass but the last. */
export const NOT_FINAL_RULE = 'This is not the final pass: you may add new notes and resolve inherited ones.';

const PLACEHOLDER = /\{\{([^{}\n]*)\}\}/g;

let cachedDir: string | undefined;

/** The package's own prompts/ folder, found from this module whether it runs from src/ or dist/. */
export function defaultPromptsDir(): string {
  if (cachedDir !== undefined) return cachedDir;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (isOurPackage(join(dir, 'package.json'))) return (cachedDir = join(dir, 'prompts'));
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package root above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

function isOurPackage(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

/** Loads the templates; files in `dir` (--prompts) override the defaults one by one. */
export async function loadTemplates(dir?: string): Promise<Templates> {
  const userDir = dir === undefined ? undefined : resolve(dir);
  if (userDir !== undefined) await assertDirectory(userDir);
  const defaults = defaultPromptsDir();
  const out = {} as Templates;
  for (const name of TEMPLATE_NAMES) {
    const userFile = userDir === undefined ? undefined : join(userDir, `${name}.md`);
    const userText = userFile === undefined ? undefined : await readIfExists(userFile);
    const file = userText === undefined ? join(defaults, `${name}.md`) : (userFile as string);
    const text = normaliseTemplate(userText ?? (await readFile(file, 'utf8')));
    checkTemplate(name, text, file);
    out[name] = text;
  }
  return out;
}

async function assertDirectory(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw usageError(`prompts directory not found: ${dir}`, 'pass an existing folder to --prompts');
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function normaliseTemplate(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
}

/** Throws a usage error for an unknown placeholder or a missing required one; `file` names the culprit. */
export function checkTemplate(name: TemplateName, text: string, file = `${name}.md`): void {
  const allowed = PLACEHOLDERS[name];
  const used = new Set<string>();
  for (const m of text.matchAll(PLACEHOLDER)) {
    const key = (m[1] ?? '').trim();
    if (!allowed.includes(key)) {
      throw usageError(`${file}: unknown placeholder {{${key}}}`, `${name}.md may use ${allowed.map((a) => `{{${a}}}`).join(', ')}`);
    }
    used.add(key);
  }
  for (const key of REQUIRED[name] ?? []) {
    if (!used.has(key)) throw usageError(`${file}: missing placeholder {{${key}}}`, `${name}.md must contain {{${key}}}`);
  }
}

/** sha256 (hex) over every template's name and text, in TEMPLATE_NAMES order. */
export function templatesHash(t: Templates): string {
  const hash = createHash('sha256');
  for (const name of TEMPLATE_NAMES) hash.update(`${name}\0${t[name]}\0`);
  return hash.digest('hex');
}

export interface Delimiters {
  open: string;
  close: string;
  nonce: string;
}

const newNonce = (): string => randomBytes(6).toString('hex');

/** A fresh nonce that none of `texts` contains. */
function nonceAbsentFrom(texts: readonly string[]): string {
  for (;;) {
    const nonce = newNonce();
    if (!texts.some((t) => t.includes(nonce))) return nonce;
  }
}

/** Delimiter lines with a fresh nonce; a nonce whose lines occur in the document is drawn again. */
export function makeDelimiters(document: string, random: () => string = newNonce): Delimiters {
  for (let attempt = 0; attempt < 100; attempt++) {
    const nonce = random();
    const open = `<<<BOUNCE-DOCUMENT-${nonce}>>>`;
    const close = `<<<END-BOUNCE-DOCUMENT-${nonce}>>>`;
    if (!document.includes(open) && !document.includes(close)) return { open, close, nonce };
  }
  throw new Error('could not draw a delimiter nonce absent from the document');
}

/** The document as it appears in a prompt: BOM stripped, LF line endings. Use it as ReplyContext.sent. */
export function promptDocument(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
}

export interface PassPromptInput {
  document: string;
  pass: number;
  totalPasses: number;
  role: Role;
  final: boolean;
  markers: readonly string[];
  /** What the reply is asked to be; absent: the whole document. */
  editFormat?: EditFormat;
}

export interface BuiltPrompt {
  prompt: string;
  delimiters: Delimiters;
}

export function buildPassPrompt(t: Templates, input: PassPromptInput): BuiltPrompt {
  const { vars, delimiters } = frameVars(t, input, input.document);
  return { prompt: render(t.protocol, vars, 'protocol'), delimiters };
}

export function buildRepairPrompt(
  t: Templates,
  input: PassPromptInput & { rejected: string; reason: string; failures?: readonly BlockFailure[] },
): BuiltPrompt {
  // NUL bytes (a malformed reply) would break adapters that pass the prompt through argv.
  const rejected = input.rejected.replace(/\0/g, '');
  const failures = (input.failures ?? []).map((f) => ({ ...f, written: f.written.replace(/\0/g, '') }));
  const framed = failures.flatMap((f) => [f.written, ...f.excerpts.map((e) => e.lines.join('\n'))]);
  const { vars, delimiters } = frameVars(t, input, rejected, framed);
  vars.set('reason', input.reason.replace(/\s+/g, ' ').trim());
  vars.set('failed_blocks', failedBlocks(failures, delimiters.nonce));
  return { prompt: render(t.repair, vars, 'repair'), delimiters };
}

/**
 * The edit blocks that did not apply, for {{failed_blocks}}: each as the agent wrote it and the
 * lines of the document closest to it (or where it matches), every quote in its own frame
 * under the prompt's nonce, so neither the document nor a block can end a frame early.
 */
function failedBlocks(failures: readonly BlockFailure[], nonce: string): string {
  if (failures.length === 0) return '';
  const frame = (label: string, text: string): string => `<<<BOUNCE-${label}-${nonce}>>>\n${text}\n<<<END-BOUNCE-${label}-${nonce}>>>`;
  const parts = failures.map((f) => {
    const head =
      f.failed === 'missing'
        ? `Edit block ${f.block} did not apply: its SEARCH part matches nowhere in the document.`
        : `Edit block ${f.block} did not apply: its SEARCH part matches ${f.matches} places in the document, so add neighbouring lines until it matches one.`;
    const where = (e: BlockFailure['excerpts'][number]): string =>
      `${f.failed === 'missing' ? 'The closest lines of the document' : 'A place it matches'}, lines ${e.line} to ${e.line + e.lines.length - 1}:`;
    const excerpts = f.excerpts.length ? f.excerpts.flatMap((e) => [where(e), frame('LINES', e.lines.join('\n'))]) : ['No line of the document resembles it.'];
    return [head, 'The block as you wrote it:', frame('BLOCK', f.written), ...excerpts].join('\n');
  });
  return `${parts.join('\n\n')}\n\n`;
}

/** `[CONTESTED], [CLARIFY]`, whether the names come bracketed or bare. */
export function formatMarkers(markers: readonly string[]): string {
  return markers.map((m) => (m.startsWith('[') ? m : `[${m}]`)).join(', ');
}

function frameVars(t: Templates, input: PassPromptInput, text: string, framed: readonly string[] = []): { vars: Map<string, string>; delimiters: Delimiters } {
  const document = promptDocument(text);
  // Other framed text (quoted edit blocks) must not hold the nonce either.
  const delimiters = makeDelimiters(document, framed.length ? () => nonceAbsentFrom(framed) : undefined);
  const vars = new Map<string, string>([
    ['role', input.role],
    ['pass', String(input.pass)],
    ['total_passes', String(input.totalPasses)],
    ['markers', formatMarkers(input.markers)],
  ]);
  // Fragments are expanded first, with trusted scalars only, so the frame pass stays single-pass.
  const lens = render(t[input.role], vars, input.role).trim();
  const finalRule = input.final ? render(t.final, vars, 'final').trim() : NOT_FINAL_RULE;
  vars.set('lens', lens);
  vars.set('final_rule', finalRule);
  const format = input.editFormat ?? 'whole';
  vars.set('reply_format', render(t[format], vars, format).trim());
  vars.set('failed_blocks', '');
  vars.set('document', `${delimiters.open}\n${document}\n${delimiters.close}`);
  return { vars, delimiters };
}

/** Single-pass substitution: text that a value brings in (the document) is never expanded. */
function render(template: string, vars: ReadonlyMap<string, string>, name: TemplateName): string {
  const allowed = PLACEHOLDERS[name];
  return template.replace(PLACEHOLDER, (_match, raw: string) => {
    const key = raw.trim();
    const value = vars.get(key);
    if (value === undefined || !allowed.includes(key)) throw usageError(`${name}.md: unknown placeholder {{${key}}}`);
    return value;
  });
}
