#!/usr/bin/env node
/**
 * The mock adapter: replies scripted from a YAML or JSON file, for tests and dry
 * pipelines. Its runs are mock evidence, never live results. Without a script it plays
 * a tiny deterministic reviewer (adds one [CONTESTED] note) and composer (removes notes).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { type AdapterContext, AdapterCrash, type AdapterProgram, isMain, runAdapter } from '../src/kit/adapter-kit.js';
import { noteRange } from '../src/protocol/note-range.js';
import { EDIT_MARKERS, editBlocksFor } from '../src/text/edit-blocks.js';
import { type CodeBlock, markdownRegions } from '../src/protocol/code-ranges.js';
import { lineAt, lineIndex, scanNotes } from '../src/protocol/scanner.js';
import { yamlLib } from '../src/yaml.js';
import { AdapterErrorSchema, type AdapterRequest, type AdapterResponse, type AgentOptions, type CheckResult } from '../src/contract/contract.js';

const StepSchema = z.union([
  z.string(),
  z
    .object({
      reply: z.string().optional(),
      action: z.enum(['review', 'resolve', 'echo', 'crash', 'hang', 'invalid-json']).optional(),
      stop: z.enum(['complete', 'truncated']).optional(),
      error: AdapterErrorSchema.optional(),
      delay_ms: z.number().int().nonnegative().optional(),
      usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }).strict().optional(),
    })
    .strict(),
]);
type Step = z.infer<typeof StepSchema>;

/** Keys: `<pass>`, `<pass>.retry`, `<pass>.repair` or `<pass>.repair-<k>`, and `default`. */
export const ScriptSchema = z.object({ steps: z.record(z.string(), StepSchema).default({}) }).strict();
export type Script = z.infer<typeof ScriptSchema>;

export const MOCK_VERSION = 'mock-1';

export function loadScript(path: string | undefined): Script {
  if (!path) return { steps: {} };
  const text = readFileSync(path, 'utf8');
  return ScriptSchema.parse(path.endsWith('.json') ? JSON.parse(text) : yamlLib().parse(text));
}

export function pickStep(script: Script, req: AdapterRequest): Step | undefined {
  const kind = req.attempt?.kind ?? (req.repair_error ? 'repair' : 'pass');
  const index = req.attempt?.index ?? 1;
  const keys = kind === 'pass' ? [`${req.pass}`] : [`${req.pass}.${kind}-${index}`, `${req.pass}.${kind}`];
  for (const key of [...keys, 'default']) if (script.steps[key] !== undefined) return script.steps[key];
  return undefined;
}

const DOC_END = /^<<<END-BOUNCE-DOCUMENT-([0-9a-f]+)>>>$/gm;

/**
 * The document of a prompt: the frame that the last closing delimiter line ends. Context
 * files come before it and may hold lines that look like delimiters; the document cannot
 * hold its own frame's nonce.
 */
export function documentIn(prompt: string): string {
  const end = [...prompt.matchAll(DOC_END)].at(-1);
  if (!end) return '';
  const open = `<<<BOUNCE-DOCUMENT-${end[1]}>>>\n`;
  const start = prompt.indexOf(open);
  if (start === -1 || start + open.length > end.index) return '';
  return prompt.slice(start + open.length, end.index).replace(/\n$/, '');
}

/** Whether the prompt, outside the document it carries, asks for edit blocks (prompts/edits.md shows their SEARCH line). */
export function asksForEdits(prompt: string): boolean {
  const doc = documentIn(prompt);
  const frame = doc ? prompt.replace(doc, '') : prompt;
  return frame.split('\n').some((line) => line.trim() === EDIT_MARKERS.search);
}

/** Deletes every paragraph that is a note; the rest stays as it was. */
/** Line numbers (0-based) that lie in code blocks, fences included: the mock never touches them. */
function codeLines(doc: string): Set<number> {
  const blocks: CodeBlock[] = [];
  markdownRegions(doc, [], { code: blocks });
  const { starts } = lineIndex(doc);
  const lineOf = (offset: number): number => lineAt(starts, offset);
  const out = new Set<number>();
  for (const b of blocks) {
    const last = b.lines.length ? (b.lines[b.lines.length - 1] as number) : b.start;
    // A fenced block's closing fence is the line after its last content line.
    const end = lineOf(last) + (b.fenced && b.closed ? 1 : 0);
    for (let l = lineOf(b.start); l <= end; l++) out.add(l);
  }
  return out;
}

/** Resolves every note the scanner finds by deleting it (its lines; an inline note from its marker on). Code stays as it is. */
export function resolveNotes(doc: string): string {
  const bom = doc.startsWith('\uFEFF') ? '\uFEFF' : '';
  const lines = doc.slice(bom.length).split('\n');
  const drop = new Set<number>();
  for (const note of scanNotes(doc)) {
    const [first, last] = noteRange(note, lines);
    if (!note.canonical) {
      const i = first - 1;
      lines[i] = (lines[i] ?? '').slice(0, note.column - 1).trimEnd();
      continue;
    }
    for (let l = first; l <= last; l++) drop.add(l - 1);
    // A note that was a paragraph of its own leaves one blank line, not two.
    if (lines[first - 2]?.trim() === '' && lines[last]?.trim() === '') drop.add(last);
  }
  return bom + lines.filter((_, i) => !drop.has(i)).join('\n');
}

const NOTE = '[CONTESTED] The opening is vague about scope. State what is in scope and what is not.';

/** Adds one note as a paragraph of its own after the first paragraph that is not code. */
export function addNote(doc: string): string {
  const lines = doc.split('\n');
  const code = codeLines(doc);
  const at = lines.findIndex((l, i) => i > 0 && l.trim() === '' && (lines[i - 1] ?? '').trim() !== '' && !code.has(i) && !code.has(i - 1));
  if (at === -1) return `${doc.replace(/\s+$/, '')}\n\n${NOTE}\n`;
  lines.splice(at + 1, 0, NOTE, '');
  return lines.join('\n');
}

function reply(
  req: AdapterRequest,
  text: string,
  stop: 'complete' | 'truncated' = 'complete',
  usage?: { input_tokens: number; output_tokens: number },
): AdapterResponse {
  return {
    ok: true,
    reply: text,
    stop,
    usage: {
      input_tokens: usage?.input_tokens ?? Math.ceil(req.prompt.length / 4),
      output_tokens: usage?.output_tokens ?? Math.ceil(text.length / 4),
      cost_usd: null,
      provider_reported: false,
    },
    model: req.options.model ?? 'mock',
    agent_version: MOCK_VERSION,
    tool_calls: 0,
  };
}

/** Resolves after `ms`, or as soon as the signal aborts. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Not a response at all: what `invalid-json` answers, to exercise the contract check. */
const NOT_A_RESPONSE = 'this is not json' as unknown as AdapterResponse;

export async function dispatch(req: AdapterRequest, ctx: AdapterContext): Promise<AdapterResponse> {
  const step = pickStep(loadScript(req.options.script), req);
  const doc = documentIn(req.prompt);
  const auto = req.role === 'reviewer' && !req.final && !req.repair_error ? 'review' : 'resolve';
  if (typeof step === 'string') return reply(req, step);
  if (step?.delay_ms) await wait(step.delay_ms, ctx.signal);
  if (step?.error) return { ok: false, error: step.error };
  if (step?.reply !== undefined) return reply(req, step.reply, step.stop, step.usage);
  const action = step?.action ?? auto;
  if (action === 'crash') throw new AdapterCrash('mock: crashing on purpose');
  // Never answers: only the runner's deadline or an abort ends it.
  if (action === 'hang') await wait(2 ** 31 - 1, ctx.signal);
  if (action === 'invalid-json') return NOT_A_RESPONSE;
  const text = action === 'review' ? addNote(doc) : action === 'resolve' ? resolveNotes(doc) : doc;
  // Asked for edit blocks, the review and resolve actions send only their changes (nothing changed: the document).
  const blocks = action !== 'echo' && asksForEdits(req.prompt) ? editBlocksFor(doc, text) : '';
  return reply(req, blocks || text, step?.stop, step?.usage);
}

export async function check(options: AgentOptions): Promise<CheckResult> {
  try {
    loadScript(options.script);
    return { ok: true, version: MOCK_VERSION, problems: [], warnings: [], resolved: { script: options.script ?? null } };
  } catch (err) {
    const message = `mock script ${options.script} is unreadable: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
    const problem = { kind: 'config' as const, message, fix: 'fix the script file (see docs/adapters.md#mock)' };
    return { ok: false, version: MOCK_VERSION, problems: [problem], warnings: [], resolved: { script: options.script ?? null } };
  }
}

export const adapter: AdapterProgram = { dispatch, check };

if (isMain(import.meta.url)) void runAdapter(adapter);
