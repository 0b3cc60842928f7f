import { z } from 'zod';
import { LINT_MODES } from './lint-modes.js';
import { SYNTAXES } from './syntaxes.js';

/**
 * The words bounce uses in run.json, dispatch records, the adapter contract and --json,
 * declared once. Every schema and type imports its enum from here.
 */

/** Who takes a pass: the reviewer on odd passes, the composer on even ones. */
export const RoleSchema = z.enum(['reviewer', 'composer']);
export type Role = z.infer<typeof RoleSchema>;
export const ROLES = RoleSchema.options;

/**
 * Who makes a side dispatch, one outside the passes (src/side/dispatch.ts): the judge of a
 * run (`refine --judge`), a grader of its findings (`bounce grade --judge`), or the live
 * gate's check of an agent (`bounce check --live`; no run keeps it); in a decision round
 * (`bounce decide`), the reviewer's alternative, the composer's counter-argument, and the
 * person's decision.
 */
export const SideRoleSchema = z.enum(['judge', 'grader', 'gate', 'alternative', 'counter', 'decision']);
export type SideRole = z.infer<typeof SideRoleSchema>;

/** Config `gate`: `live` has refine check every agent on the gate's fixture before its first dispatch (as --gate does); `off`, the default, does not. */
export const GateModeSchema = z.enum(['off', 'live']);
export type GateMode = z.infer<typeof GateModeSchema>;

/** What a judge prefers (run.json `judge.prefers`): the final document, the original, or neither. */
export const JudgePreferenceSchema = z.enum(['final', 'original', 'tie']);
export type JudgePreference = z.infer<typeof JudgePreferenceSchema>;

/** Which call of a pass a dispatch is: the first, a resend of the same prompt, or a repair. */
export const AttemptKindSchema = z.enum(['pass', 'retry', 'repair']);
export type AttemptKind = z.infer<typeof AttemptKindSchema>;

/** A dispatch's outcome, in run.json and in its record. `pending`: written before the call. */
export const DispatchStatusSchema = z.enum(['pending', 'completed', 'timeout', 'error', 'rejected']);
export type DispatchStatus = z.infer<typeof DispatchStatusSchema>;

/** A run's status; every one but `running` ends the run. */
export const RunStatusSchema = z.enum(['running', 'converged', 'not-converged', 'failed', 'interrupted']);
export type RunStatus = z.infer<typeof RunStatusSchema>;
export type FinalStatus = Exclude<RunStatus, 'running'>;
/** What `runs` and `show` call a run: its status, or `crashed` for a `running` one whose lock's process is gone (never written to run.json). */
export const ShownStatusSchema = z.enum([...RunStatusSchema.options, 'crashed']);
export type ShownStatus = z.infer<typeof ShownStatusSchema>;

/** A pass's status in run.json. */
export const PassStatusSchema = z.enum(['running', 'completed', 'failed', 'interrupted']);
export type PassStatus = z.infer<typeof PassStatusSchema>;

/**
 * Errors an adapter reports in its response (the adapter contract). `quota`: a usage,
 * subscription or credit limit is used up; no retry helps before it resets.
 */
export const AdapterErrorTypeSchema = z.enum(['auth', 'config', 'network', 'rate_limit', 'timeout', 'provider', 'quota']);
export type AdapterErrorType = z.infer<typeof AdapterErrorTypeSchema>;

/** Failures the runner sees: the adapter's own errors plus what the host observed. */
export const HostErrorTypeSchema = z.enum([...AdapterErrorTypeSchema.options, 'crash', 'invalid_response', 'not_found', 'interrupted', 'drift']);
export type HostErrorType = z.infer<typeof HostErrorTypeSchema>;

/** Adapter errors worth another try with backoff (a `provider` error only when 5xx or without a status). */
export const TRANSIENT_ERROR_TYPES: ReadonlySet<HostErrorType> = new Set(['rate_limit', 'network', 'provider']);

/**
 * Where a dispatch's `cost_usd` comes from: the adapter reported it (`provider`), bounce
 * priced the reported tokens from its price table or config `prices:` (`table`), or
 * neither was possible (`unknown`); or the reply came from the response cache, no agent
 * called (`cache`, cost 0); or `bounce replay` answered it from a recorded run (`replay`,
 * cost 0); or the agent logs in with a subscription (a Claude or ChatGPT plan), which bills
 * no token, so its cost, reported or priced, is the list price of what it used
 * (`subscription`). Totals take the least certain source of their parts.
 */
export const CostSourceSchema = z.enum(['provider', 'table', 'unknown', 'cache', 'replay', 'subscription']);
export type CostSource = z.infer<typeof CostSourceSchema>;

/** The limits a budget can set (`--max-cost-usd`, `--max-tokens`, `--max-dispatches`); a run stopped by one fails with error type `budget`. */
export const BudgetLimitSchema = z.enum(['cost_usd', 'tokens', 'dispatches']);
export type BudgetLimit = z.infer<typeof BudgetLimitSchema>;

/** How a reply ended: whole, or cut at the output limit. */
export const StopReasonSchema = z.enum(['complete', 'truncated']);
export type StopReason = z.infer<typeof StopReasonSchema>;

/** How a document is read (src/syntaxes.ts). */
export const SyntaxSchema = z.enum(SYNTAXES);
export type Syntax = z.infer<typeof SyntaxSchema>;

/** Where an agent's answers come from: a real model, scripted replies, or a program bounce cannot vouch for. */
export const EvidenceSchema = z.enum(['live', 'mock', 'external']);
export type Evidence = z.infer<typeof EvidenceSchema>;
export const RunEvidenceSchema = z.enum([...EvidenceSchema.options, 'mixed']);
export type RunEvidence = z.infer<typeof RunEvidenceSchema>;

/** Where a converged document goes. */
export const OutputKindSchema = z.enum(['run', 'file', 'stdout', 'in-place']);
export type OutputKind = z.infer<typeof OutputKindSchema>;

/** Who answers for a built-in adapter: a CLI on PATH, an HTTP API, or nothing (mock). */
export const AdapterKindSchema = z.enum(['cli', 'http', 'mock', 'human']);
export type AdapterKind = z.infer<typeof AdapterKindSchema>;

/** What an agent check found wrong; `bounce check` sorts its columns by this, never by wording. */
export const CheckProblemKindSchema = z.enum(['not_found', 'version', 'credentials', 'login_unverified', 'config', 'unreachable', 'no_check']);
export type CheckProblemKind = z.infer<typeof CheckProblemKindSchema>;

/** What a run does with the notes a pass adds that break a lint rule (names in src/lint-modes.ts). */
export const LintModeSchema = z.enum(LINT_MODES);
export type { LintMode } from './lint-modes.js';
export { LINT_MODES } from './lint-modes.js';
/**
 * How a reply carries its revision: the whole document, or search/replace blocks against the
 * document sent (`--edit-format`, config `edit_format`; `auto` picks one by the input's size).
 */
export const EditFormatSchema = z.enum(['whole', 'edits']);
export type EditFormat = z.infer<typeof EditFormatSchema>;
export const EditFormatSettingSchema = z.enum([...EditFormatSchema.options, 'auto']);
export type EditFormatSetting = z.infer<typeof EditFormatSettingSchema>;

/** How an edit block matched the document: as whole lines as written, inside lines as written, or as whole lines once indentation and other whitespace were ignored. */
export const BlockAppliedSchema = z.enum(['exact', 'inline', 'tolerant']);
export type BlockApplied = z.infer<typeof BlockAppliedSchema>;
/** Why an edit block did not apply: its SEARCH text is nowhere in the document, or in more than one place. */
export const BlockFailedSchema = z.enum(['missing', 'ambiguous']);
export type BlockFailed = z.infer<typeof BlockFailedSchema>;

/**
 * How a pass resolved a note, as the runner judged it from the documents (never the agent's
 * word): `acted` (the text the note refers to changed in that pass) or `dismissed` (the note
 * was deleted and that text left as it was). BOUNCE-PROTOCOL.md, "The ledger of notes".
 */
export const NoteFateSchema = z.enum(['acted', 'dismissed']);
export type NoteFate = z.infer<typeof NoteFateSchema>;

/**
 * A grader's verdict on one finding (`bounce grade`, docs/grading.md): the note was right
 * (`accepted`), wrong or not worth raising (`rejected`), or not judged (`skipped`, left out of
 * precision).
 */
export const GradeVerdictSchema = z.enum(['accepted', 'rejected', 'skipped']);
export type GradeVerdict = z.infer<typeof GradeVerdictSchema>;

/**
 * Config `dismissals`: what a final pass that dismisses a `[CONTESTED]` note gets. `allow`
 * (the default): nothing; `warn`: a warning; `repair`: one repair request to decide the point.
 */
export const DismissalsSchema = z.enum(['allow', 'warn', 'repair']);
export type Dismissals = z.infer<typeof DismissalsSchema>;

/**
 * How one run of a check command (config `checks:`, `--check-cmd`) ended: `passed` (exit 0),
 * `failed` (another exit code or a signal: a repair request carries its output),
 * `not-started` (no such program, or not executable) or `timed-out` (killed at its
 * `timeout_s`); the last two end the run `failed` with error type `check` (docs/checks.md).
 */
export const CheckStatusSchema = z.enum(['passed', 'failed', 'not-started', 'timed-out']);
export type CheckStatus = z.infer<typeof CheckStatusSchema>;

/**
 * What kind of problem a BounceError is (`error.code` in --json, run.json's `error.type` for
 * one raised before a dispatch): the one list, so a command cannot invent a word no script knows.
 */
export const ErrorCodeSchema = z.enum(['usage', 'input', 'config', 'credentials', 'agent', 'locked', 'storage', 'replay', 'tampered', 'resume', 'interrupted']);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/**
 * run.json's `error.type`: why a run did not converge. An agent call's failure keeps its
 * type (HostErrorType); an error raised before a dispatch its code (ErrorCode); and the
 * engine's own: `not-converged` (notes left after the last pass), `malformed` (no usable
 * reply after the repairs), `truncated` (a reply cut at its output limit), `breaker` (the
 * circuit breaker opened), `budget` (a limit was reached), `judge` (`--require-judge`), `check` (a check command
 * could not start or ran out of time),
 * `internal` (a bug). docs/run-folder.md lists them for scripts.
 */
const RUN_ERROR_TYPES = [
  ...HostErrorTypeSchema.options,
  ...ErrorCodeSchema.options,
  'not-converged',
  'malformed',
  'truncated',
  'breaker',
  'budget',
  'judge',
  'check',
  'internal',
] as const;
export const RunErrorTypeSchema = z.enum([...new Set(RUN_ERROR_TYPES)] as [(typeof RUN_ERROR_TYPES)[number], ...(typeof RUN_ERROR_TYPES)[number][]]);
export type RunErrorType = z.infer<typeof RunErrorTypeSchema>;
