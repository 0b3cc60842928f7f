/**
 * What a dispatch looks like over A2A (docs/a2a.md, "What travels"): the dispatch's request
 * block travels as the task's message, the response block comes back as the task's artifact,
 * after the dispatch protocol's A2A conformance. The message has two parts: the prompt as
 * text, which any A2A agent can answer, and `{ dispatch: ... }` as data, the request block;
 * the artifact holds the reply as text and, when the agent reports them, `{ response: ... }`
 * as data: its model, version and usage.
 */
import { z } from 'zod';
import { AttemptKindSchema, RoleSchema, StopReasonSchema } from '../../src/vocabulary.js';
import { type AdapterRequest, CONTRACT_VERSION } from '../../src/contract/contract.js';
import type { Artifact, Message, Part, Task } from '@a2a-js/sdk';

/** The dispatch protocol's version the blocks follow (the dispatch records' `protocol_version`). */
export const DISPATCH_PROTOCOL_VERSION = 1;
/** The name of the artifact that carries the response; an agent that names none is read from its last artifact. */
export const RESPONSE_ARTIFACT = 'response';

const Count = z.number().int().nonnegative();

/** The request block in the message's data part: the record's `request`, as far as the adapter knows it. */
export const A2aDispatchSchema = z
  .object({
    id: z.string().min(1),
    protocol_version: z.literal(DISPATCH_PROTOCOL_VERSION),
    issued_by: z.literal('bounce'),
    issued_at: z.string().datetime({ offset: true }),
    target_agent: z.string().min(1),
    goal: z.string().min(1),
    plan_ancestry: z
      .object({
        run_id: z.string().min(1),
        pass: z.number().int().positive(),
        total_passes: z.number().int().positive(),
        attempt: z.object({ kind: AttemptKindSchema, index: Count }).strict(),
      })
      .strict(),
    role: RoleSchema,
    effort_budget: z.object({ max_subagents: z.literal(0), deadline_seconds: z.number().nonnegative(), max_output_tokens: Count.nullable() }).strict(),
    expected_output: z
      .object({ contract: z.string().min(1), contract_version: z.number().int(), final: z.boolean(), repair_error: z.string().nullable() })
      .strict(),
    priority: z.literal('normal'),
  })
  .strict();
export type A2aDispatch = z.infer<typeof A2aDispatchSchema>;

/** The response block an agent may put in its artifact's data part; every field may be left out. */
export const A2aResponseSchema = z
  .object({
    dispatch_id: z.string().min(1).optional(),
    protocol_version: z.literal(DISPATCH_PROTOCOL_VERSION).optional(),
    agent: z.string().optional(),
    agent_version: z.string().nullable().optional(),
    model: z.string().nullable().optional(),
    stop: StopReasonSchema.optional(),
    metadata: z
      .object({
        input_tokens: Count.nullable().optional(),
        output_tokens: Count.nullable().optional(),
        cost_usd: z.number().nonnegative().nullable().optional(),
      })
      .optional(),
  })
  .passthrough();
export type A2aResponse = z.infer<typeof A2aResponseSchema>;

const CONTRACT = 'the reply as the prompt asks: the whole revised document, or search/replace blocks against it (docs/a2a.md)';

/** The request block of a dispatch, issued now. */
export function dispatchBlock(request: AdapterRequest, now: Date): A2aDispatch {
  const left = Math.max(0, (Date.parse(request.deadline) - now.getTime()) / 1000);
  return {
    id: request.dispatch_id,
    protocol_version: DISPATCH_PROTOCOL_VERSION,
    issued_by: 'bounce',
    issued_at: now.toISOString(),
    target_agent: `${request.role}/a2a`,
    goal: `As ${request.role}, revise the document in the prompt on pass ${request.pass} of ${request.total_passes}${request.final ? ' (final pass: resolve every note, add none)' : ''}.`,
    plan_ancestry: {
      run_id: request.run_id,
      pass: request.pass,
      total_passes: request.total_passes,
      attempt: request.attempt ?? { kind: 'pass', index: 0 },
    },
    role: request.role,
    effort_budget: { max_subagents: 0, deadline_seconds: Math.round(left), max_output_tokens: request.options.max_output_tokens ?? null },
    expected_output: { contract: CONTRACT, contract_version: CONTRACT_VERSION, final: request.final, repair_error: request.repair_error ?? null },
    priority: 'normal',
  };
}

/** A text part. */
export function textPart(text: string, mediaType = 'text/plain'): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType };
}

/** A data part (JSON). */
export function dataPart(value: Record<string, unknown>): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** The task's message for a dispatch: the prompt as text, the request block as data. */
export function dispatchMessage(request: AdapterRequest, messageId: string, now: Date): Message {
  return {
    messageId,
    contextId: '',
    taskId: '',
    role: 1, // Role.ROLE_USER
    parts: [textPart(request.prompt, 'text/markdown'), dataPart({ dispatch: dispatchBlock(request, now) })],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The text of some parts, joined. */
export function partsText(parts: readonly Part[]): string {
  return parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

/** The first data part holding `key`, as the value under it; undefined when none does. */
export function partsData(parts: readonly Part[], key: string): unknown {
  for (const p of parts) {
    const v = p.content?.$case === 'data' ? (p.content.value as Record<string, unknown> | null) : null;
    if (v && typeof v === 'object' && key in v) return v[key];
  }
  return undefined;
}

/** The request block of a message, or why there is none that reads (for an agent that answers bounce's dispatches). */
export function readDispatch(message: Message): { ok: true; dispatch: A2aDispatch; prompt: string } | { ok: false; reason: string } {
  const parsed = A2aDispatchSchema.safeParse(partsData(message.parts, 'dispatch'));
  if (!parsed.success) return { ok: false, reason: `no dispatch block: ${parsed.error.issues[0]?.message ?? 'missing'}` };
  return { ok: true, dispatch: parsed.data, prompt: partsText(message.parts) };
}

/** The artifact that answers: the one named `response`, else the last one with text. */
export function responseArtifact(artifacts: readonly Artifact[]): Artifact | undefined {
  return artifacts.find((a) => a.name === RESPONSE_ARTIFACT) ?? [...artifacts].reverse().find((a) => a.parts.some((p) => p.content?.$case === 'text'));
}

/** What came back: the reply and the response block, from the task's artifact (or a direct message); null reply when there is none. */
export function readResponse(result: Task | Message): { reply: string | null; response: A2aResponse | null; problem: string | null } {
  const parts = 'parts' in result ? result.parts : (responseArtifact(result.artifacts)?.parts ?? null);
  if (parts === null) return { reply: null, response: null, problem: null };
  const block = partsData(parts, 'response');
  if (block === undefined) return { reply: partsText(parts), response: null, problem: null };
  const parsed = A2aResponseSchema.safeParse(block);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    return { reply: partsText(parts), response: null, problem: `its response block is not one: ${i?.path.join('.') || 'response'}: ${i?.message}` };
  }
  return { reply: partsText(parts), response: parsed.data, problem: null };
}
