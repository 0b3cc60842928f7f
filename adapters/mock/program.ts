#!/usr/bin/env node
/**
 * The mock adapter: replies scripted from a YAML or JSON file, for tests and dry
 * pipelines. Its runs are mock evidence, never live results. Without a script it plays
 * a tiny deterministic reviewer (adds one [CONTESTED] note) and composer (removes notes),
 * both in src/adapters/mock-text.ts.
 */
import { estimateTokens } from '../../src/text/token-estimate.js';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { type AdapterContext, AdapterCrash, type AdapterProgram, isMain, runAdapter } from '../../src/kit/adapter-kit.js';
import { addNote, mockSyntax, resolveNotes } from '../../src/kit/mock-text.js';
import { documentIn } from '../../src/kit/prompt-document.js';
import { EDIT_MARKERS, editBlocksFor } from '../../src/text/edit-blocks.js';
import { packageTemplate } from '../../src/prompt-files.js';
import type { Syntax } from '../../src/vocabulary.js';
import { yamlLib } from '../../src/yaml.js';
import { AdapterErrorSchema, type AdapterRequest, type AdapterResponse, type AgentOptions, type CheckResult } from '../../src/contract/contract.js';

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

/** The prompt without the document it carries: what the runner says around it. */
const frameOf = (prompt: string, doc: string): string => (doc ? prompt.replace(doc, '') : prompt);

/** Whether the prompt, outside the document it carries, asks for edit blocks (prompts/edits.md shows their SEARCH line). */
export function asksForEdits(prompt: string): boolean {
  return frameOf(prompt, documentIn(prompt))
    .split('\n')
    .some((line) => line.trim() === EDIT_MARKERS.search);
}

/** The document's substrate, from the rules the prompt carries (the package's prompts/json.md and yaml.md). */
async function syntaxOf(prompt: string, doc: string): Promise<Syntax> {
  return mockSyntax(frameOf(prompt, doc), { json: packageTemplate('json'), yaml: packageTemplate('yaml') });
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
      input_tokens: usage?.input_tokens ?? estimateTokens(req.prompt),
      output_tokens: usage?.output_tokens ?? estimateTokens(text),
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
  const syntax = action === 'echo' ? 'markdown' : await syntaxOf(req.prompt, doc);
  const text = action === 'review' ? addNote(doc, syntax) : action === 'resolve' ? resolveNotes(doc, syntax) : doc;
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
