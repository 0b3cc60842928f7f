import { z } from 'zod';
import { AdapterErrorTypeSchema, AttemptKindSchema, CheckProblemKindSchema, type Evidence, RoleSchema, StopReasonSchema } from '../vocabulary.js';

/**
 * The adapter contract: the runner writes one AdapterRequest as JSON to the adapter's
 * stdin and reads one AdapterResponse as JSON from its stdout. Declared once, here;
 * docs/adapter-contract.md documents it field by field.
 */
export const CONTRACT_VERSION = 1;

export { ROLES, RoleSchema, type Role } from '../vocabulary.js';

/** Options an agent is configured with; forwarded to its adapter verbatim. */
export const AgentOptionsSchema = z
  .object({
    model: z.string().min(1).optional(),
    base_url: z.string().url().optional(),
    /** Name of the environment variable that holds the key, never the key itself. */
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .optional(),
    max_output_tokens: z.number().int().positive().optional(),
    temperature: z.number().min(0).max(2).optional(),
    /** Spend cap per dispatch in USD, for adapters whose CLI supports one (claude). */
    max_budget_usd: z.number().positive().optional(),
    /** Extra argv for CLI adapters, or the program's own arguments for cmd: adapters. */
    args: z.array(z.string()).optional(),
    /** Adapter-specific settings (mock: script path). */
    script: z.string().optional(),
  })
  .strict();
export type AgentOptions = z.infer<typeof AgentOptionsSchema>;

export const AdapterRequestSchema = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    dispatch_id: z.string().min(1),
    run_id: z.string().min(1),
    pass: z.number().int().positive(),
    total_passes: z.number().int().positive(),
    role: RoleSchema,
    final: z.boolean(),
    /** The whole prompt: instructions plus the current document between delimiters. */
    prompt: z.string(),
    options: AgentOptionsSchema,
    /** Absolute deadline (ISO 8601). The runner kills the process group when it passes. */
    deadline: z.string(),
    /** Set on a repair request: why the previous reply was rejected. */
    repair_error: z.string().optional(),
    /** Which call of this pass this is: the first, a resend (retry) or a repair, and its number. */
    attempt: z.object({ kind: AttemptKindSchema, index: z.number().int().nonnegative() }).strict().optional(),
    /**
     * Counts of leading lines of `prompt` (each ending in a line feed) that other dispatches of
     * the run send alike, ascending, at most two: an adapter whose provider caches prompt
     * prefixes may mark the prompt there (the anthropic adapter sets cache_control).
     */
    stable_prefix_lines: z.array(z.number().int().positive()).max(4).optional(),
  })
  .strict();
export type AdapterRequest = z.infer<typeof AdapterRequestSchema>;

/**
 * Tokens and cost of one dispatch. `input_tokens` counts every prompt token, cached or
 * not; `cache_read_tokens` and `cache_write_tokens` say how many of them were read from
 * or written to the provider's prompt cache (a part of `input_tokens`, never added to it).
 */
export const UsageSchema = z
  .object({
    input_tokens: z.number().int().nonnegative().nullable(),
    output_tokens: z.number().int().nonnegative().nullable(),
    /** Of `input_tokens`, those read from the prompt cache; null or absent when unknown. */
    cache_read_tokens: z.number().int().nonnegative().nullable().optional(),
    /** Of `input_tokens`, those written to the prompt cache; null or absent when unknown. */
    cache_write_tokens: z.number().int().nonnegative().nullable().optional(),
    cost_usd: z.number().nonnegative().nullable(),
    /** True when the numbers came from the provider, false when estimated or unknown. */
    provider_reported: z.boolean(),
  })
  .strict();
export type Usage = z.infer<typeof UsageSchema>;

export const AdapterErrorSchema = z
  .object({
    type: AdapterErrorTypeSchema,
    message: z.string(),
    retry_after_ms: z.number().int().nonnegative().optional(),
    /** `quota`: when the limit resets (ISO 8601), when the provider said. */
    resets_at: z.string().datetime({ offset: true }).optional(),
    /** HTTP status when the error came from an HTTP API. */
    status: z.number().int().optional(),
  })
  .strict();
export type AdapterError = z.infer<typeof AdapterErrorSchema>;

export const AdapterSuccessSchema = z
  .object({
    ok: z.literal(true),
    reply: z.string(),
    stop: StopReasonSchema,
    usage: UsageSchema,
    model: z.string().nullable(),
    agent_version: z.string().nullable(),
    /** Number of tool calls the agent made, when known. */
    tool_calls: z.number().int().nonnegative().nullable().optional(),
    /** What the user should know of this call that does not fail it (a silent fallback to another model, say); one line each. */
    warnings: z.array(z.string().max(500)).max(10).optional(),
  })
  .strict();

export const AdapterFailureSchema = z
  .object({
    ok: z.literal(false),
    error: AdapterErrorSchema,
    usage: UsageSchema.optional(),
    model: z.string().nullable().optional(),
    agent_version: z.string().nullable().optional(),
  })
  .strict();

export const AdapterResponseSchema = z.discriminatedUnion('ok', [AdapterSuccessSchema, AdapterFailureSchema]);
export type AdapterResponse = z.infer<typeof AdapterResponseSchema>;
export type AdapterSuccess = z.infer<typeof AdapterSuccessSchema>;
export type AdapterFailure = z.infer<typeof AdapterFailureSchema>;

/** One thing a check found: what kind of problem, what is wrong, and how to fix it. */
export const CheckProblemSchema = z
  .object({
    kind: CheckProblemKindSchema,
    message: z.string().min(1),
    /** What the user does about it, e.g. `set OPENAI_API_KEY, or name the variable to read with api_key_env in an agents: entry of bounce.config.yaml`. */
    fix: z.string().min(1).optional(),
  })
  .strict();
export type CheckProblem = z.infer<typeof CheckProblemSchema>;

/** A problem as an adapter may print it: an object, or (the first contract) a plain string, read as a `config` problem. */
const CheckItemSchema = z.union([CheckProblemSchema, z.string().transform((message): CheckProblem => ({ kind: 'config', message }))]);

/** `<adapter> --check`: options on stdin, this on stdout; exit 0 when ok, 1 otherwise. No API call. */
export const CheckResultSchema = z
  .object({
    ok: z.boolean(),
    version: z.string().nullable(),
    problems: z.array(CheckItemSchema),
    /** Things that could not be verified offline (a CLI login, say): reported, not failed. */
    warnings: z.array(CheckItemSchema).default([]),
    /** What the adapter resolved (model, base_url, key variable name): never a key value. */
    resolved: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).default({}),
  })
  .strict();
export type CheckResult = z.output<typeof CheckResultSchema>;

/** A problem as one line, the way bounce prints its errors: `message: fix`. */
export function problemLine(p: CheckProblem): string {
  return p.fix ? `${p.message}: ${p.fix}` : p.message;
}

export const emptyUsage = (): Usage => ({
  input_tokens: null,
  output_tokens: null,
  cost_usd: null,
  provider_reported: false,
});

/** An agent spec resolved to the program to spawn and the options to send it. */
export interface ResolvedAgent {
  /** The spec as given: `claude`, `openai:llama3.1`, `cmd:./agent.py`, or a configured name. */
  spec: string;
  /** File-name-safe form of the spec, used in artifact names. */
  slug: string;
  /** Built-in adapter name, or `cmd`. */
  adapter: string;
  provider: string;
  command: string;
  args: string[];
  options: AgentOptions;
  timeoutS: number | undefined;
  evidence: Evidence;
}
