import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { combineCostSources } from '../prices.js';
import { CheckSpecSchema } from '../checks/command.js';
import {
  AttemptKindSchema,
  CostSourceSchema,
  RunErrorTypeSchema,
  DismissalsSchema,
  DispatchStatusSchema,
  EvidenceSchema,
  JudgePreferenceSchema,
  LintModeSchema,
  OutputKindSchema,
  PassStatusSchema,
  RoleSchema,
  RunEvidenceSchema,
  RunStatusSchema,
  SideRoleSchema,
  SyntaxSchema,
} from '../vocabulary.js';

/** run.json: the manifest of one run, rewritten atomically after every dispatch. */
export type { RunStatus } from '../vocabulary.js';

const Tokens = z.number().int().nonnegative().nullable();

export const UsageTotalsSchema = z
  .object({
    /** Every input token, the cached ones included. */
    input_tokens: Tokens,
    output_tokens: Tokens,
    /** The part of input_tokens read from, and written to, the provider's prompt cache; absent when unknown. */
    cache_read_tokens: Tokens.optional(),
    cache_write_tokens: Tokens.optional(),
    /** USD, or null when no dispatch's cost is known; with cost_source `unknown` a total is a lower bound. */
    cost_usd: z.number().nonnegative().nullable(),
    /** Where cost_usd comes from (the least certain source of its parts); null before any dispatch reported usage; absent in runs made before it was recorded. */
    cost_source: CostSourceSchema.nullable().optional(),
  })
  .strict();
export type UsageTotals = z.infer<typeof UsageTotalsSchema>;

export const AgentRecordSchema = z
  .object({
    spec: z.string(),
    adapter: z.string(),
    provider: z.string(),
    model: z.string().nullable(),
    version: z.string().nullable(),
    max_output_tokens: z.number().int().positive().nullable(),
    timeout_s: z.number().positive(),
    evidence: EvidenceSchema,
    /** Whether this agent's usage numbers came from its provider; null until it answered. */
    usage_provider_reported: z.boolean().nullable(),
    /** Options as configured (model, base_url, api_key_env name...): never a key value. */
    options: z.record(z.string(), z.unknown()),
    /** What the adapter's check resolved from options, environment and defaults: never a key value. */
    resolved: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    /** How the agent was chosen: flag, config, default, or auto-detected. */
    chosen_by: z.string(),
  })
  .strict();
export type AgentRecord = z.infer<typeof AgentRecordSchema>;

export const DispatchRefSchema = z
  .object({
    id: z.string(),
    kind: AttemptKindSchema,
    index: z.number().int().nonnegative(),
    /** Artifact stem: `pass-<n>-<role>-<agent>[.retry-<k>|.repair-<k>]`. */
    stem: z.string(),
    status: DispatchStatusSchema,
    reason: z.string().nullable(),
    duration_ms: z.number().int().nonnegative().nullable(),
    usage: UsageTotalsSchema.nullable(),
    record: z.string().nullable(),
    /** The sha256 of the record as last written (src/audit/binding.ts); absent in runs made before bounce bound its records. */
    record_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
  })
  .strict();
export type DispatchRef = z.infer<typeof DispatchRefSchema>;

/**
 * A dispatch outside the passes (src/side/dispatch.ts): a judge's or a grader's. Its record
 * is in audit/dispatches like any other; `after` is how many pass dispatches run.json listed
 * when it was written, which places it in the chain of records.
 */
export const SideDispatchRefSchema = DispatchRefSchema.extend({
  role: SideRoleSchema,
  /** The agent's spec. */
  agent: z.string().min(1),
  after: z.number().int().nonnegative(),
}).strict();
export type SideDispatchRef = z.infer<typeof SideDispatchRefSchema>;

/** One of the judge's two calls: which document it was shown as A, and what its reply preferred (null: no usable reply). */
export const JudgeCallSchema = z
  .object({
    /** `original-first`: A was the original and B the final document; `final-first`: the other way round. */
    order: z.enum(['original-first', 'final-first']),
    prefers: JudgePreferenceSchema.nullable(),
    /** The call's dispatches (its first, then any retry or repair), in order. */
    dispatches: z.array(z.string()),
  })
  .strict();
export type JudgeCall = z.infer<typeof JudgeCallSchema>;

/**
 * `refine --judge <agent>`: a third agent's blind comparison of the original and the final
 * document, asked twice with the order swapped (docs/judge-and-gate.md). `prefers` is the
 * calls' common answer, `tie` when they differ; null when a call got no usable reply (`error` says why).
 */
export const JudgeVerdictSchema = z
  .object({
    agent: z.string().min(1),
    prefers: JudgePreferenceSchema.nullable(),
    agreed: z.boolean(),
    /** The final document judged, by sha256: a run extended afterwards has another. */
    final_sha256: z.string(),
    calls: z.array(JudgeCallSchema),
    /** Every dispatch of both calls, in order (side_dispatches holds their refs). */
    dispatches: z.array(z.string()),
    /** The warning given when the judge's model family is a reviewer's or composer's; null: none. */
    warning: z.string().nullable(),
    error: z.object({ type: RunErrorTypeSchema, message: z.string() }).strict().nullable(),
  })
  .strict();
export type JudgeVerdict = z.infer<typeof JudgeVerdictSchema>;

export const PassRecordSchema = z
  .object({
    pass: z.number().int().positive(),
    role: RoleSchema,
    agent: z.string(),
    final: z.boolean(),
    status: PassStatusSchema,
    notes_before: z.number().int().nonnegative(),
    notes_after: z.number().int().nonnegative().nullable(),
    added: z.number().int().nonnegative().nullable(),
    resolved: z.number().int().nonnegative().nullable(),
    /** Of the resolved notes, how many the pass acted on and how many it dismissed (the ledger); null when not judged. */
    acted: z.number().int().nonnegative().nullable().default(null),
    dismissed: z.number().int().nonnegative().nullable().default(null),
    misplaced_after: z.number().int().nonnegative().nullable(),
    words_before: z.number().int().nonnegative(),
    /** The review lens this reviewer pass was given (--lens); absent: none. */
    lens: z.string().min(1).optional(),
    words_after: z.number().int().nonnegative().nullable(),
    /** The document after this pass, relative to the run folder. */
    document: z.string().nullable(),
    document_sha256: z.string().nullable(),
    usage: UsageTotalsSchema,
    duration_ms: z.number().int().nonnegative().nullable(),
    retries: z.number().int().nonnegative(),
    repairs: z.number().int().nonnegative(),
    fixes: z.array(z.string()),
    errors: z.array(z.string()),
    /** With lint on: the notes this pass added that break a lint rule and were kept, by line and rule id. */
    lint: z.array(z.object({ line: z.number().int().positive(), rule: z.string() }).strict()).optional(),
    /**
     * A pass a fork took over from the run it was forked from (`bounce fork`): the run whose
     * folder holds its dispatch records, by id and by the folder it had when forked. Absent:
     * the records are in this run's own folder.
     */
    copied_from: z
      .object({ run: z.string().min(1), dir: z.string().min(1) })
      .strict()
      .optional(),
    /** What the pass was let off with: a dismissed [CONTESTED] note under `dismissals: warn`, or still so after its repair. */
    warnings: z.array(z.string()).default([]),
    dispatches: z.array(DispatchRefSchema),
    started_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .strict();
export type PassRecord = z.infer<typeof PassRecordSchema>;

/** One reference file of a run: where it came from, its copy in the run folder, and what the copy holds. */
export const ContextEntrySchema = z
  .object({
    /** As given (relative to where bounce ran, forward slashes). */
    source: z.string().min(1),
    /** The copy, relative to the run folder: `context/<n>-<name>`. */
    file: z.string().min(1),
    sha256: z.string(),
    bytes: z.number().int().nonnegative(),
    lines: z.number().int().nonnegative(),
  })
  .strict();
export type ContextEntry = z.infer<typeof ContextEntrySchema>;

/**
 * One `bounce resume --passes N` (or `--reviewer`/`--composer`) of a run: what it changed and
 * from where the run went on. run.json's `passes`, `agents` and `policy` are the ones after it.
 */
export const RunExtensionSchema = z
  .object({
    at: z.string(),
    /** The run's status when it was extended (`converged`, `not-converged`, or one resume continues anyway). */
    status: RunStatusSchema,
    /** The last completed pass: the run goes on from its document. */
    after_pass: z.number().int().nonnegative(),
    passes: z.object({ from: z.number().int().positive(), to: z.number().int().positive() }).strict(),
    /** The agents replaced, by role: the spec before and after. */
    agents: z.record(RoleSchema, z.object({ from: z.string(), to: z.string() }).strict()),
    /** The policy version before the extension. */
    policy_version: z.string(),
  })
  .strict();
export type RunExtension = z.infer<typeof RunExtensionSchema>;

/**
 * Where a fork (`bounce fork <run> --from-pass K`) came from: the run, the first pass it ran
 * itself (the passes before it are the original's, copied), and the original's folder then.
 */
export const ForkOriginSchema = z.object({ run: z.string().min(1), pass: z.number().int().positive(), dir: z.string().min(1) }).strict();
export type ForkOrigin = z.infer<typeof ForkOriginSchema>;

export const RunManifestSchema = z
  .object({
    schema_version: z.literal(1),
    run_id: z.string(),
    /** The batch the run belongs to (`bounce refine` of several documents; `bounce resume --batch`), else null. */
    batch_id: z.string().nullable().default(null),
    tool: z.object({ name: z.literal('bounce'), version: z.string() }).strict(),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
    status: RunStatusSchema,
    exit_code: z.number().int().nullable(),
    input: z
      .object({
        /** Absolute path, or null when read from stdin. */
        path: z.string().nullable(),
        display: z.string(),
        sha256: z.string(),
        bytes: z.number().int().nonnegative(),
        words: z.number().int().nonnegative(),
        ext: z.string(),
        syntax: SyntaxSchema,
        notes: z.number().int().nonnegative(),
      })
      .strict(),
    original: z.string(),
    /** What the document is for and what the refinement aims at (--goal, --goal-file, config `goal`); null: none. */
    goal: z.string().nullable().default(null),
    /** The read-only reference files (--context), each copied into the run folder; a resume sends these copies. */
    context: z.array(ContextEntrySchema).default([]),
    output: z
      .object({
        target: OutputKindSchema,
        path: z.string().nullable(),
        written: z.boolean(),
        sha256: z.string().nullable(),
      })
      .strict(),
    passes: z.object({ requested: z.number().int().positive(), run: z.number().int().nonnegative(), all_passes: z.boolean() }).strict(),
    agents: z.object({ reviewer: AgentRecordSchema, composer: AgentRecordSchema }).strict(),
    evidence: RunEvidenceSchema,
    policy: z
      .object({
        version: z.string(),
        contract_version: z.number().int(),
        templates_sha256: z.string(),
        prompts_dir: z.string().nullable(),
        markers: z.array(z.string()),
        max_repairs: z.number().int().nonnegative(),
        summary_ratio: z.number(),
        summary_min_words: z.number().int(),
        max_bytes: z.number().int().positive(),
        reply_mode: z.string(),
        /** Lint of the notes each pass adds (docs/lint.md); absent in runs made before it existed (off). */
        lint: LintModeSchema.optional(),
        /** Config `dismissals`; absent for `allow` (so the policy of a run made before it existed is unchanged). */
        dismissals: DismissalsSchema.optional(),
        /** The reviewer passes' lenses (--lens, config `lenses`), taken in turn, with their text; absent: none. */
        lenses: z
          .array(z.object({ name: z.string().min(1), text: z.string().min(1) }).strict())
          .min(1)
          .optional(),
        /** --alternate: the agents swap roles every two passes; absent: they keep them. */
        alternate: z.literal(true).optional(),
        /** The check commands every reply that reads as a document must pass (config `checks:`, --check-cmd); absent: none. */
        checks: z.array(CheckSpecSchema).min(1).optional(),
      })
      .strict(),
    /** The run this one was forked from and at which pass; absent for a run that is no fork. */
    forked_from: ForkOriginSchema.optional(),
    /** The run this one replays (`bounce replay`): every reply came from its records; absent for any other run. */
    replay_of: z.string().min(1).optional(),
    /** Each time the run was extended or given other agents; absent for a run never extended. */
    extensions: z.array(RunExtensionSchema).optional(),
    pass_records: z.array(PassRecordSchema),
    /** Dispatches outside the passes (a judge's, a grader's); absent when there were none. */
    side_dispatches: z.array(SideDispatchRefSchema).optional(),
    /** The judge's verdict (`refine --judge`); absent when the run was not judged. */
    judge: JudgeVerdictSchema.optional(),
    totals: UsageTotalsSchema.extend({ duration_ms: z.number().int().nonnegative(), dispatches: z.number().int().nonnegative() }).strict(),
    breaker: z
      .object({
        consecutive_failures: z.number().int().nonnegative(),
        open: z.boolean(),
        last_error: z.string().nullable(),
        /** How many times a resume closed the breaker again after it had opened. */
        reopened: z.number().int().nonnegative().default(0),
      })
      .strict(),
    /** Occurrences of a key value that were blanked out of the run's files before they were written. */
    redactions: z.number().int().nonnegative().default(0),
    notes_left: z.number().int().nonnegative().nullable(),
    error: z
      .object({
        type: RunErrorTypeSchema,
        message: z.string(),
        /** When an agent's quota or subscription limit resets, if it said so (ISO 8601). */
        resets_at: z.string().nullable().optional(),
      })
      .strict()
      .nullable(),
  })
  .strict();
export type RunManifest = z.infer<typeof RunManifestSchema>;

export const MANIFEST_FILE = 'run.json';

export function readManifest(runDir: string): RunManifest {
  return RunManifestSchema.parse(JSON.parse(readFileSync(join(runDir, MANIFEST_FILE), 'utf8')));
}

/** The newest pass that completed (0: none): a run taken further goes on from its document. */
export function lastCompletedPass(m: { readonly pass_records: readonly { readonly pass: number; readonly status: string }[] }): number {
  return Math.max(0, ...m.pass_records.filter((p) => p.status === 'completed').map((p) => p.pass));
}

/**
 * How many of a run's dispatches the response cache answered (their cost source is `cache`):
 * they are in `totals.dispatches`, one record each, but called no agent.
 */
export function cacheHitsOf(m: {
  readonly pass_records: readonly { readonly dispatches: readonly { readonly usage: { readonly cost_source?: string | null } | null }[] }[];
}): number {
  return m.pass_records.reduce((n, p) => n + p.dispatches.filter((d) => d.usage?.cost_source === 'cache').length, 0);
}

/**
 * run.json's dispatches in the order their records were written: the passes', with each side
 * dispatch after as many of them as its `after` says (the chain of records follows this order).
 */
export function dispatchesInWriteOrder(m: Pick<RunManifest, 'pass_records' | 'side_dispatches'>): DispatchRef[] {
  const side = [...(m.side_dispatches ?? [])];
  const out: DispatchRef[] = [];
  m.pass_records
    .flatMap((p) => p.dispatches)
    .forEach((ref, i) => {
      while (side[0] && side[0].after <= i) out.push(side.shift()!);
      out.push(ref);
    });
  return [...out, ...side];
}

export function addUsage(into: UsageTotals, add: UsageTotals): void {
  if (add.input_tokens !== null) into.input_tokens = (into.input_tokens ?? 0) + add.input_tokens;
  if (add.output_tokens !== null) into.output_tokens = (into.output_tokens ?? 0) + add.output_tokens;
  if (add.cost_usd !== null) into.cost_usd = (into.cost_usd ?? 0) + add.cost_usd;
  if (add.cost_source) into.cost_source = combineCostSources(into.cost_source, add.cost_source);
  for (const key of ['cache_read_tokens', 'cache_write_tokens'] as const) {
    const n = add[key];
    if (typeof n === 'number') into[key] = (into[key] ?? 0) + n;
  }
}
