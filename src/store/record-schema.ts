import { z } from 'zod';
import {
  AttemptKindSchema,
  CheckStatusSchema,
  BlockAppliedSchema,
  BlockFailedSchema,
  CostSourceSchema,
  DispatchStatusSchema,
  EditFormatSchema,
  GradeVerdictSchema,
  HostErrorTypeSchema,
  NoteFateSchema,
  StopReasonSchema,
} from '../vocabulary.js';

/**
 * One YAML record per dispatch, `audit/dispatches/<UTC yyyy-mm-dd>/<ULID>.yaml`, after
 * the dispatch protocol v1: `request` is written before the call, `response` and
 * `outcome` after it. docs/run-folder.md documents every field.
 */
export const PROTOCOL_VERSION = 1;
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

const Sha = z.string().regex(/^[0-9a-f]{64}$/, 'must be a full sha256 in hex');
const Ulid = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a ULID');
const Iso = z.string().datetime({ offset: true });
const LineRange = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]);
const Count = z.number().int().nonnegative();

export const ContextFileSchema = z
  .object({
    /** Run-folder-relative path. */
    path: z.string().min(1),
    /** What the file is to the agent: the document it revises, the prompt it was sent, or a read-only reference file (--context). */
    purpose: z.enum(['document', 'prompt', 'context']),
    /** A context file's path as given to the run (relative to where bounce ran); `path` is its copy in the run folder. */
    source: z.string().min(1).optional(),
    /** Null only when the file did not exist when the request was written (a bug audit names). */
    sha256: Sha.nullable(),
    lines: LineRange,
  })
  .strict();

export const RequestSchema = z
  .object({
    id: Ulid,
    protocol_version: z.literal(PROTOCOL_VERSION),
    issued_by: z.literal('bounce'),
    issued_at: Iso,
    /** `<role>/<agent spec>`. */
    target_agent: z.string().min(1),
    goal: z.string().min(1),
    plan_ancestry: z
      .object({
        run_id: z.string().min(1),
        document: z.string().nullable(),
        pass: z.number().int().positive(),
        total_passes: z.number().int().positive(),
        attempt: z.object({ kind: AttemptKindSchema, index: Count }).strict(),
        parent_dispatch: Ulid.nullable(),
      })
      .strict(),
    context: z.object({ files: z.array(ContextFileSchema) }).strict(),
    effort_budget: z
      .object({
        max_subagents: z.literal(0),
        deadline_seconds: z.number().nonnegative(),
        max_output_tokens: z.number().int().positive().nullable(),
      })
      .strict(),
    expected_output: z
      .object({
        contract: z.string().min(1),
        contract_version: z.number().int(),
        final: z.boolean(),
        repair_error: z.string().nullable(),
        /** What the prompt asked the reply to be; `whole` in records made before edit replies. */
        edit_format: EditFormatSchema.default('whole'),
      })
      .strict(),
    priority: z.enum(['low', 'normal', 'high', 'critical']),
  })
  .strict();
export type DispatchRequest = z.infer<typeof RequestSchema>;

const EvidenceSchema = z.object({ file: z.string().min(1), sha256: Sha, line_range: LineRange }).strict();

export const FindingSchema = z
  .object({
    /** `<dispatch id>/<nnn>`: unique across the run. */
    id: z.string().min(1),
    severity: z.enum(SEVERITIES),
    /** The marker kind, lower case: contested, clarify, or a configured marker. */
    type: z.string().min(1),
    message: z.string(),
    line_range: LineRange,
    canonical: z.boolean(),
    confidence: z.literal('HIGH'),
    confidence_rationale: z.string().min(1),
    citations: z.object({ evidence: z.array(EvidenceSchema).min(1) }).strict(),
  })
  .strict();
export type Finding = z.infer<typeof FindingSchema>;

/** Who raised a note: the pass and its agent; pass null and agent `input` for a note the input held. */
export const RaisedBySchema = z.object({ pass: z.number().int().positive().nullable(), agent: z.string().min(1) }).strict();

/**
 * A note the pass removed, cited in the document the agent was sent, with the runner's
 * judgement of how (the ledger; absent in records made before it was kept).
 */
export const ResolvedNoteSchema = z
  .object({
    type: z.string().min(1),
    message: z.string(),
    line_range: LineRange,
    citations: z.object({ evidence: z.array(EvidenceSchema).min(1) }).strict(),
    /** `acted`: the text the note refers to changed; `dismissed`: it was left as it was. */
    fate: NoteFateSchema.optional(),
    raised_by: RaisedBySchema.optional(),
    /** The lines of the text the note refers to, in the document sent; null when it has none. */
    refers_to: LineRange.nullable().optional(),
  })
  .strict();
export type ResolvedNote = z.infer<typeof ResolvedNoteSchema>;

/** One edit block of a reply: where it applied in the document the reply produced, or why it did not. */
export const EditBlockSchema = z.union([
  z.object({ block: z.number().int().positive(), applied: BlockAppliedSchema, line: z.number().int().positive(), lines: Count }).strict(),
  z
    .object({
      block: z.number().int().positive(),
      failed: BlockFailedSchema,
      /** The first of the closest lines (missing) or of the first match (ambiguous); null when no line is close. */
      line: z.number().int().positive().nullable(),
      lines: Count,
      matches: Count,
    })
    .strict(),
]);

/** A reply answered from the response cache (src/cache/): no agent was called; `of` and `run` name the dispatch that first got it. */
export const CacheHitSchema = z.object({ hit: z.literal(true), of: Ulid, run: z.string().min(1) }).strict();
export type CacheHit = z.infer<typeof CacheHitSchema>;

/**
 * A reply `bounce replay` took from a recorded run: no agent was called; `of` and `run` name
 * the recorded dispatch. `drift`: the prompt differed from the recorded one and the reply was
 * used anyway (`--accept-drift`).
 */
export const ReplayHitSchema = z.object({ of: Ulid, run: z.string().min(1), drift: z.literal(true).optional() }).strict();
export type ReplayHit = z.infer<typeof ReplayHitSchema>;

export const ArtifactSchema = z.object({ path: z.string().min(1), sha256: Sha }).strict();

/**
 * One run of a check command (config `checks:`, --check-cmd) on the document a reply
 * produced: the command as written, how it ended, and the file in the run folder that
 * holds what it printed (`<stem>.check-<n>.log`). docs/checks.md.
 */
export const CheckRunRecordSchema = z
  .object({
    command: z.string().min(1),
    status: CheckStatusSchema,
    /** Null when it did not start, ran out of time, or ended by a signal. */
    exit_code: z.number().int().nullable(),
    duration_ms: Count,
    timeout_s: z.number().int().positive(),
    /** Its stdout and stderr as they came (for `not-started`, why), within CHECK_OUTPUT_MAX_BYTES. */
    output: ArtifactSchema,
    /** Bytes of output beyond the bound, not kept. */
    dropped_bytes: Count,
  })
  .strict();
export type CheckRunRecord = z.infer<typeof CheckRunRecordSchema>;

export const ResponseSchema = z
  .object({
    dispatch_id: Ulid,
    protocol_version: z.literal(PROTOCOL_VERSION),
    agent: z.string().min(1),
    agent_version: z.string().nullable(),
    completed_at: Iso,
    duration_ms: Count,
    /** Whether the adapter said the reply was complete or cut at the output limit; null on an error. */
    stop: StopReasonSchema.nullable(),
    /** The document this reply produced, when it could be read as one. */
    document: z
      .object({ path: z.string().min(1), sha256: Sha, lines: Count })
      .strict()
      .nullable(),
    /** Raw reply and stderr as kept in the run folder. */
    artifacts: z.array(ArtifactSchema),
    findings: z.array(FindingSchema),
    resolved: z.array(ResolvedNoteSchema),
    /** In edit mode: whether the reply was blocks or a whole document, and each block's outcome; null otherwise. */
    edits: z
      .object({ reply: z.enum(['blocks', 'document']), blocks: z.array(EditBlockSchema) })
      .strict()
      .nullable()
      .default(null),
    /** bounce never asks an agent to grade itself, so these stay empty (see docs/run-folder.md). */
    self_assessment: z
      .object({
        coverage: z.null(),
        confidence_overall: z.null(),
        limitations: z.array(z.string()),
        unknowns: z.array(z.string()),
      })
      .strict(),
    metadata: z
      .object({
        tokens_used: Count.nullable(),
        input_tokens: Count.nullable(),
        output_tokens: Count.nullable(),
        /** The part of input_tokens read from, and written to, the provider's prompt cache; null when unknown. */
        cache_read_tokens: Count.nullable().default(null),
        cache_write_tokens: Count.nullable().default(null),
        /** The adapter's cost, else the tokens priced from the price table (see cost_source); null when unknown. */
        cost_usd: z.number().nonnegative().nullable(),
        /** `provider`, `table`, `unknown`, `cache` or `replay`; null in records made before it was recorded. */
        cost_source: CostSourceSchema.nullable().default(null),
        usage_provider_reported: z.boolean().nullable(),
        tool_calls: Count.nullable(),
        subagents_dispatched: Count,
        model: z.string().nullable(),
      })
      .strict(),
    error: z.object({ type: HostErrorTypeSchema, message: z.string() }).strict().nullable(),
    /** Set when the reply came from the response cache (`--cache`); absent for a reply an agent gave. */
    cache: CacheHitSchema.optional(),
    /** Set when `bounce replay` took the reply from a recorded run; absent for a reply an agent gave. */
    replay: ReplayHitSchema.optional(),
    /** The check commands run on `document`, in order; absent when the run has none or the reply did not get as far. */
    checks: z.array(CheckRunRecordSchema).min(1).optional(),
  })
  .strict();
export type DispatchResponse = z.infer<typeof ResponseSchema>;

/**
 * Who graded: `human:<name>` (`bounce grade`, the name from --grader or the git or OS user),
 * or `agent:<agent>` (`bounce grade --judge <agent>`, the agent as it was named).
 */
export const GRADER = /^(?:human|agent):\S(?:[^\n\r]*\S)?$/;
export const GRADER_RULE = 'a grader is human:<name> or agent:<agent>, one line of text';

/** The longest reason a verdict keeps (an agent's, `bounce grade --judge`); a longer one is cut. */
export const MAX_REASON_CHARS = 500;

/**
 * One verdict of a grade: the finding (`response.findings[].id`), what the grader said of it,
 * and the reason an agent grading gave after its verdict, if any (one line).
 */
export const GradeVerdictEntrySchema = z
  .object({
    finding: z.string().min(1),
    verdict: GradeVerdictSchema,
    reason: z
      .string()
      .regex(/^\S(?:[^\n\r]*\S)?$/, 'a reason is one line of text')
      .max(MAX_REASON_CHARS)
      .optional(),
  })
  .strict();
export type GradeVerdictEntry = z.infer<typeof GradeVerdictEntrySchema>;

/** An earlier grade of the record, as it stood when it was replaced (grade.history). */
export const PastGradeSchema = z.object({ grader: z.string().regex(GRADER, GRADER_RULE), graded_at: Iso, verdicts: z.array(GradeVerdictEntrySchema) }).strict();
export type PastGrade = z.infer<typeof PastGradeSchema>;

/**
 * `outcome.grade`, filled by `bounce grade` (docs/grading.md): one verdict per finding graded
 * so far (a finding with none is not graded yet), who gave them, and the grades it replaced,
 * oldest first. `outcome.graded_at` is when its last verdict was given.
 */
export const GradeSchema = z
  .object({ grader: z.string().regex(GRADER, GRADER_RULE), verdicts: z.array(GradeVerdictEntrySchema), history: z.array(PastGradeSchema) })
  .strict();
export type Grade = z.infer<typeof GradeSchema>;

export const OutcomeSchema = z
  .object({
    status: DispatchStatusSchema,
    reason: z.string().nullable(),
    /** Filled by `bounce grade`, never by a run: when the grade's last verdict was given, and the grade. */
    graded_at: Iso.nullable(),
    grade: GradeSchema.nullable(),
  })
  .strict();
export type DispatchOutcome = z.infer<typeof OutcomeSchema>;

/**
 * The sha256 of each group of run.json fields a resume acts on (src/store/binding.ts says
 * which fields): what the run was bound to when it was written. `passes` is absent in the
 * bindings of a bounce that did not bind the pass budget yet.
 */
export const BoundFieldsSchema = z.object({ agents: Sha, policy: Sha, output: Sha, input: Sha, passes: Sha.optional() }).strict();
export type BoundFields = z.infer<typeof BoundFieldsSchema>;

/**
 * A record's place in the run's chain: the sha256 of the file before it (the previous record
 * as written, or `audit/binding.yaml` for the first) and what run.json was bound to when the
 * dispatch was issued. Absent in records made before bounce bound its runs.
 */
export const RecordBindingSchema = z.object({ previous: Sha.nullable(), run: BoundFieldsSchema }).strict();
export type RecordBinding = z.infer<typeof RecordBindingSchema>;

/** `audit/binding.yaml`: written once, with the run folder; the head of the chain of records. */
export const RunBindingSchema = z
  .object({
    run_id: z.string().min(1),
    original: z.object({ path: z.string().min(1), sha256: Sha }).strict(),
    run: BoundFieldsSchema,
    /** A fork's copied part as it was forked: the original run, the fork's first pass, and each record it links to, by id and sha256. */
    fork: z
      .object({
        run: z.string().min(1),
        pass: z.number().int().positive(),
        records: z.array(z.object({ id: z.string().min(1), sha256: Sha }).strict()),
      })
      .strict()
      .optional(),
  })
  .strict();
export type RunBinding = z.infer<typeof RunBindingSchema>;

type RecordShape = { response: { findings: { id: string }[] } | null; outcome: { graded_at: string | null; grade: Grade | null } };

/** A grade's verdicts each name one of the record's findings, once; graded_at is set exactly when a grade is. */
function checkGradeShape(rec: RecordShape, ctx: z.RefinementCtx): void {
  const { grade, graded_at } = rec.outcome;
  if ((grade === null) !== (graded_at === null))
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['outcome', 'graded_at'],
      message: `is ${graded_at ? 'set' : 'null'} but grade is ${grade ? 'set' : 'null'}`,
    });
  if (!grade) return;
  const ids = new Set(rec.response?.findings.map((f) => f.id) ?? []);
  if (ids.size === 0) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['outcome', 'grade'], message: 'is set on a record with no findings' });
  const check = (verdicts: readonly GradeVerdictEntry[], path: (string | number)[]): void => {
    const seen = new Set<string>();
    verdicts.forEach((v, i) => {
      if (!ids.has(v.finding))
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: [...path, i, 'finding'], message: `${v.finding} is no finding of this record` });
      else if (seen.has(v.finding))
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: [...path, i, 'finding'], message: `${v.finding} has more than one verdict` });
      seen.add(v.finding);
    });
  };
  check(grade.verdicts, ['outcome', 'grade', 'verdicts']);
  for (const [i, h] of grade.history.entries()) check(h.verdicts, ['outcome', 'grade', 'history', i, 'verdicts']);
}

export const DispatchRecordSchema = z
  .object({
    request: RequestSchema,
    response: ResponseSchema.nullable(),
    outcome: OutcomeSchema,
    binding: RecordBindingSchema.optional(),
  })
  .strict()
  .superRefine((rec, ctx) => {
    if (rec.response && rec.response.dispatch_id !== rec.request.id) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['response', 'dispatch_id'], message: 'does not match request.id' });
    }
    if ((rec.response === null) !== (rec.outcome.status === 'pending') && rec.outcome.status !== 'error') {
      // A pending record has no response yet; a finished one has one (a stale pending turned error may not).
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['response'], message: `is ${rec.response ? 'set' : 'missing'} for status ${rec.outcome.status}` });
    }
    checkGradeShape(rec, ctx);
  });
export type DispatchRecord = z.infer<typeof DispatchRecordSchema>;
