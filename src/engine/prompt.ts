import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Role } from '../contract/contract.js';
import { usageError } from '../errors.js';
import { readSmallFile } from '../text-input.js';
import type { EditFormat, Syntax } from '../vocabulary.js';
import { type ContextFrames, renderContext } from './context-frames.js';
import type { BlockFailure } from '../text/edit-blocks.js';
import type { FailedCheck } from './checks.js';

import { defaultPromptsDir, normaliseTemplate } from '../prompt-files.js';

export { defaultPromptsDir };

export const TEMPLATE_NAMES = ['protocol', 'reviewer', 'composer', 'final', 'repair', 'json', 'yaml', 'whole', 'edits'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];
export type Templates = Record<TemplateName, string>;

const SCALARS = ['role', 'pass', 'total_passes', 'markers'] as const;
/** Frame placeholders that may be empty (no goal, no context, a substrate without rules): a line holding only one of them then goes, with the blank line after it. */
const OPTIONAL = ['goal', 'context', 'substrate'] as const;
const FRAME = [...SCALARS, ...OPTIONAL, 'lens', 'final_rule', 'document', 'reply_format'] as const;

/**
 * The placeholders each template may use. Lenses, final.md and the substrate rules get the
 * scalars only: they are pasted into a frame, so a {{document}} inside them would have nowhere to go.
 */
export const PLACEHOLDERS: Readonly<Record<TemplateName, readonly string[]>> = {
  protocol: FRAME,
  reviewer: SCALARS,
  composer: SCALARS,
  final: SCALARS,
  repair: [...FRAME, 'reason', 'failed_blocks'],
  json: SCALARS,
  yaml: SCALARS,
  // What {{reply_format}} says: the reply is the whole document, or edit blocks (--edit-format).
  whole: SCALARS,
  edits: SCALARS,
};

/** The substrates with rules of their own for where notes go (a template each). */
const SUBSTRATE_TEMPLATES: Partial<Record<Syntax, TemplateName>> = { json: 'json', yaml: 'yaml' };

/**
 * What a provider's prompt cache can reuse: placeholders whose value is the same in every
 * dispatch of a run, and those the same in every dispatch of one role. Any other placeholder
 * (pass, final_rule, document, reason, and any added later) is taken to change every pass.
 */
const RUN_STABLE: ReadonlySet<string> = new Set(['markers', 'total_passes', 'reply_format', ...OPTIONAL]);
const ROLE_STABLE: ReadonlySet<string> = new Set(['role', 'lens']);
const REQUIRED: Readonly<Partial<Record<TemplateName, readonly string[]>>> = {
  protocol: ['document'],
  repair: ['document', 'reason'],
};

/** What {{final_rule}} says on every pass but the last. */
export const NOT_FINAL_RULE = 'This is not the final pass: you may add new notes and resolve inherited ones.';

const PLACEHOLDER = /\{\{([^{}\n]*)\}\}/g;

/** The package's own prompts/ folder. */

/** Loads the templates; files in `dir` (--prompts) override the defaults one by one. */
export async function loadTemplates(dir?: string): Promise<Templates> {
  const userDir = dir === undefined ? undefined : resolve(dir);
  if (userDir !== undefined) assertDirectory(userDir);
  const defaults = defaultPromptsDir();
  const out = {} as Templates;
  for (const name of TEMPLATE_NAMES) {
    const userFile = userDir === undefined ? undefined : join(userDir, `${name}.md`);
    // Read synchronously: nine small files, each a round trip through the thread pool otherwise.
    const userText = userFile === undefined ? undefined : readIfExists(userFile);
    const file = userText === undefined ? join(defaults, `${name}.md`) : (userFile as string);
    const text = normaliseTemplate(userText ?? readFileSync(file, 'utf8'));
    checkTemplate(name, text, file);
    out[name] = text;
  }
  return out;
}

function assertDirectory(dir: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    // Missing or unreadable: not a folder of prompts either way.
  }
  if (!isDirectory) throw usageError(`prompts directory not found: ${dir}`, 'pass an existing folder to --prompts');
}

/** A --prompts template, or undefined when the folder has none of that name (the default is used). */
function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readSmallFile(file, `prompt template ${file}`, 'usage') : undefined;
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

/**
 * A frame's delimiter line in a prompt and its nonce (group 1): the document's, a quoted
 * edit block's (`<<<BOUNCE-BLOCK-<nonce>>>>`) and a context file's (context-frames.ts).
 * The nonces are fresh in every prompt; what reads prompts across runs (the response
 * cache) sets them aside with this.
 */
export const FRAME_NONCE = /<<<(?:END-)?BOUNCE-[A-Z]+-([0-9a-f]{12})(?=[\s>])/g;

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

/** A fresh nonce that none of `texts` contains. */
function nonceAbsentFrom(texts: readonly string[]): string {
  for (;;) {
    const nonce = newNonce();
    if (!texts.some((t) => t.includes(nonce))) return nonce;
  }
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
  /** What the document is for and what the refinement aims at (--goal); null or absent: none. */
  goal?: string | null;
  /** Read-only reference files (--context), each in its own frame; null or absent: none. */
  context?: ContextFrames | null;
  /** The document's substrate: JSON and YAML bring their rules for where notes go. */
  syntax?: Syntax;
  /** What the reply is asked to be; absent: the whole document. */
  editFormat?: EditFormat;
  /** This reviewer pass's review lens (--lens), after the role's own instructions; null or absent: none. */
  focus?: { name: string; text: string; varies: boolean } | null;
}

/** The heading a pass's review lens is given under, after the role's instructions. */
export const LENS_HEADING = 'Review lens of this pass';

export interface BuiltPrompt {
  prompt: string;
  delimiters: Delimiters;
  /**
   * Counts of leading lines of `prompt` (each ending in a line feed) that other dispatches of
   * the run send alike: the first for every role, the second for this role; ascending, at most two.
   * An adapter whose provider caches prompt prefixes marks them (AdapterRequest.stable_prefix_lines).
   */
  stablePrefixLines: number[];
}

export function buildPassPrompt(t: Templates, input: PassPromptInput): BuiltPrompt {
  const { vars, delimiters, lensVaries } = frameVars(t, input, input.document);
  return { ...renderFrame(t.protocol, vars, 'protocol', lensVaries), delimiters };
}

export function buildRepairPrompt(
  t: Templates,
  input: PassPromptInput & { rejected: string; reason: string; failures?: readonly BlockFailure[]; checks?: readonly FailedCheck[] },
): BuiltPrompt {
  // NUL bytes (a malformed reply) would break adapters that pass the prompt through argv.
  const rejected = input.rejected.replace(/\0/g, '');
  const failures = (input.failures ?? []).map((f) => ({ ...f, written: f.written.replace(/\0/g, '') }));
  const checks = input.checks ?? [];
  const framed = [...failures.flatMap((f) => [f.written, ...f.excerpts.map((e) => e.lines.join('\n'))]), ...checks.map((c) => c.output)];
  const { vars, delimiters, lensVaries } = frameVars(t, input, rejected, framed);
  vars.set('reason', input.reason.replace(/\s+/g, ' ').trim());
  // Quoted material before the document: the blocks that did not apply, or what the failing checks said.
  vars.set('failed_blocks', failedBlocks(failures, delimiters.nonce) + checkOutputs(checks, delimiters.nonce));
  return { ...renderFrame(t.repair, vars, 'repair', lensVaries), delimiters };
}

/**
 * What the failing checks printed (config `checks:`), each in its own frame under the prompt's
 * nonce: a check's output may quote the document, and must not be able to end a frame early.
 */
function checkOutputs(checks: readonly FailedCheck[], nonce: string): string {
  if (checks.length === 0) return '';
  const parts = checks.map((c) => {
    const how = c.exitCode === null ? 'ended by a signal' : `exited ${c.exitCode}`;
    const output = c.output.trim() === '' ? '(it printed nothing)' : c.output;
    return `Check \`${c.command}\` ${how} on the document your reply produced; what it printed (the document's path shown as {file}):\n<<<BOUNCE-CHECK-${nonce}>>>\n${output}\n<<<END-BOUNCE-CHECK-${nonce}>>>`;
  });
  return `${parts.join('\n\n')}\n\n`;
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

/** The heading the goal is given under in a prompt. */
export const GOAL_HEADING = 'Purpose of the document and of this refinement (from the person who started the run; aim every change at it):';

/** A template that leaves out {{goal}} or {{context}} while the run has one: the agents would never see it. */
export function assertFrameTakes(t: Templates, what: { goal: boolean; context: boolean }, promptsDir: string | null): void {
  for (const name of ['protocol', 'repair'] as const) {
    for (const key of ['goal', 'context'] as const) {
      if (!what[key] || uses(t[name], key)) continue;
      const where = promptsDir ? `${promptsDir}/${name}.md` : `${name}.md`;
      throw usageError(
        `${where} has no {{${key}}} placeholder, so the run's --${key} would never reach the agents`,
        `add {{${key}}} to ${name}.md, or drop --${key}`,
      );
    }
  }
}

function uses(template: string, key: string): boolean {
  for (const m of template.matchAll(PLACEHOLDER)) if ((m[1] ?? '').trim() === key) return true;
  return false;
}

/** `[CONTESTED], [CLARIFY]`, whether the names come bracketed or bare. */
export function formatMarkers(markers: readonly string[]): string {
  return markers.map((m) => (m.startsWith('[') ? m : `[${m}]`)).join(', ');
}

function frameVars(
  t: Templates,
  input: PassPromptInput,
  text: string,
  framed: readonly string[] = [],
): { vars: Map<string, string>; delimiters: Delimiters; lensVaries: boolean } {
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
  const role = render(t[input.role], vars, input.role).trim();
  const lens = input.focus ? `${role}\n\n${LENS_HEADING} (${input.focus.name}):\n${input.focus.text.trim()}` : role;
  const finalRule = input.final ? render(t.final, vars, 'final').trim() : NOT_FINAL_RULE;
  const substrate = input.syntax === undefined ? undefined : SUBSTRATE_TEMPLATES[input.syntax];
  vars.set('substrate', substrate ? render(t[substrate], vars, substrate).trim() : '');
  vars.set('goal', input.goal ? `${GOAL_HEADING}\n${input.goal}` : '');
  vars.set('context', input.context && input.context.files.length > 0 ? renderContext(input.context) : '');
  vars.set('lens', lens);
  vars.set('final_rule', finalRule);
  vars.set('document', `${delimiters.open}\n${document}\n${delimiters.close}`);
  const format = input.editFormat ?? 'whole';
  vars.set('reply_format', render(t[format], vars, format).trim());
  vars.set('failed_blocks', '');
  // A lens that names the pass changes every pass: no cache can reuse it.
  return { vars, delimiters, lensVaries: uses(t[input.role], 'pass') || Boolean(input.focus?.varies) };
}

/** Single-pass substitution: text that a value brings in (the document) is never expanded. */
function render(template: string, vars: ReadonlyMap<string, string>, name: TemplateName): string {
  return renderFrame(template, vars, name, true).prompt;
}

/**
 * `render`, also finding where the text stops being the same from pass to pass: the start
 * of the line of the first placeholder that is not run-stable, and of the first that is not
 * role-stable either (see RUN_STABLE).
 */
function renderFrame(
  template: string,
  vars: ReadonlyMap<string, string>,
  name: TemplateName,
  lensVaries: boolean,
): { prompt: string; stablePrefixLines: number[] } {
  const allowed = PLACEHOLDERS[name];
  const source = dropEmptyLines(template, vars);
  let out = '';
  let last = 0;
  let runEnd: number | null = null;
  let roleEnd: number | null = null;
  for (const m of source.matchAll(PLACEHOLDER)) {
    const key = (m[1] ?? '').trim();
    const value = vars.get(key);
    if (value === undefined || !allowed.includes(key)) throw usageError(`${name}.md: unknown placeholder {{${key}}}`);
    out += source.slice(last, m.index);
    const lineStart = out.lastIndexOf('\n') + 1;
    if (!RUN_STABLE.has(key)) runEnd ??= lineStart;
    if (!RUN_STABLE.has(key) && !(ROLE_STABLE.has(key) && !(key === 'lens' && lensVaries))) roleEnd ??= lineStart;
    out += value;
    last = (m.index ?? 0) + m[0].length;
  }
  out += source.slice(last);
  const lines = (end: number | null): number => (end === null ? 0 : countBreaks(out, end));
  const counts = [lines(runEnd), lines(roleEnd)].filter((n, i, all) => n > 0 && (i === 0 || n > (all[i - 1] ?? 0)));
  return { prompt: out, stablePrefixLines: counts };
}

/** The template without the lines that hold only an empty optional placeholder (and the blank line after each). */
function dropEmptyLines(template: string, vars: ReadonlyMap<string, string>): string {
  return template.replace(/^[ \t]*\{\{[ \t]*(goal|context|substrate)[ \t]*\}\}[ \t]*\n(?:[ \t]*\n)?/gm, (line, key: string) =>
    vars.get(key) === '' ? '' : line,
  );
}

function countBreaks(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
