/**
 * `bounce attest` and `bounce verify` (docs/provenance.md): a converged run's attestation, an
 * in-toto Statement (v1) whose subject is the final document and whose predicate says which
 * run made it, from which records, by which agents, with what ledger, verdict and cost.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { runLedger } from '../audit/run-notes.js';
import { modelFamily } from '../adapters/family.js';
import { listRecordFiles, recordAnchor } from '../store/dispatch-record.js';
import { sha256 } from '../store/hash.js';
import type { AgentRecord, RunManifest } from '../store/manifest.js';
import type { VerifyConfig } from '../config/schema.js';
import { plural } from '../plural.js';
import { CostSourceSchema, JudgePreferenceSchema } from '../vocabulary.js';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The predicate's type: what its fields mean is docs/provenance.md. */
export const PREDICATE_TYPE = 'https://www.npmjs.com/package/bounce-runner/attestation/v1';
/** An attestation's file name is the document's followed by this. */
export const ATTESTATION_SUFFIX = '.bounce.json';

const Sha = z.string().regex(/^[0-9a-f]{64}$/);
const AgentSchema = z.object({ spec: z.string(), adapter: z.string(), model: z.string().nullable(), family: z.string().nullable() }).strict();

export const PredicateSchema = z
  .object({
    run_id: z.string().min(1),
    tool: z.object({ name: z.literal('bounce'), version: z.string() }).strict(),
    /** The run's input, before the first pass. */
    original_sha256: Sha,
    /** How many dispatch records the run folder holds, and their digest (recordsDigest). */
    records: z.object({ count: z.number().int().nonnegative(), sha256: Sha }).strict(),
    agents: z.object({ reviewer: AgentSchema, composer: AgentSchema }).strict(),
    /** The notes the run resolved (acted on, dismissed) and those left; of the dismissed, the [CONTESTED] ones. */
    ledger: z
      .object({
        acted: z.number().int().nonnegative(),
        dismissed: z.number().int().nonnegative(),
        left: z.number().int().nonnegative(),
        dismissed_contested: z.number().int().nonnegative(),
      })
      .strict(),
    judge: z.object({ agent: z.string(), prefers: JudgePreferenceSchema.nullable(), agreed: z.boolean() }).strict().nullable(),
    cost: z.object({ usd: z.number().nonnegative().nullable(), source: CostSourceSchema.nullable() }).strict(),
  })
  .strict();
export type Predicate = z.infer<typeof PredicateSchema>;

export const StatementSchema = z
  .object({
    _type: z.literal(STATEMENT_TYPE),
    subject: z.array(z.object({ name: z.string().min(1), digest: z.object({ sha256: Sha }).passthrough() }).passthrough()).length(1),
    predicateType: z.literal(PREDICATE_TYPE),
    predicate: PredicateSchema,
  })
  .strict();
export type Statement = z.infer<typeof StatementSchema>;

/**
 * The digest of a run's records: the sha256 of one line per record file in
 * audit/dispatches/, sorted by path, each `<sha256>  <path>\n` (sha256sum's format, the
 * path relative to the run folder), where the sha256 is the record's anchor: of its bytes as
 * the run wrote it (a later `bounce grade` changes only grading fields and not the anchor).
 */
export function recordsDigest(runDir: string): { count: number; sha256: string } {
  const files = listRecordFiles(runDir).sort();
  const lines = files.map((rel) => `${recordAnchor(readFileSync(join(runDir, rel)))}  ${rel}\n`).join('');
  return { count: files.length, sha256: sha256(lines) };
}

const agentOf = (a: AgentRecord): Predicate['agents']['reviewer'] => ({ spec: a.spec, adapter: a.adapter, model: a.model, family: modelFamily(a) });

/** The predicate of a converged run, as its folder holds it now. */
export function predicateOf(runDir: string, m: RunManifest): Predicate {
  const ledger = runLedger(runDir, m);
  return {
    run_id: m.run_id,
    tool: m.tool,
    original_sha256: m.input.sha256,
    records: recordsDigest(runDir),
    agents: { reviewer: agentOf(m.agents.reviewer), composer: agentOf(m.agents.composer) },
    ledger: {
      acted: ledger.counts.acted,
      dismissed: ledger.counts.dismissed,
      left: m.notes_left ?? ledger.counts.open,
      dismissed_contested: ledger.notes.filter((n) => n.fate === 'dismissed' && n.kind === 'CONTESTED').length,
    },
    judge: m.judge ? { agent: m.judge.agent, prefers: m.judge.prefers, agreed: m.judge.agreed } : null,
    cost: { usd: m.totals.cost_usd, source: m.totals.cost_source ?? null },
  };
}

/** The final document of a converged run: final.<ext> in its folder. */
export const finalFile = (m: Pick<RunManifest, 'input'>): string => `final.${m.input.ext}`;

/**
 * The sha256 of a converged run's document: as written to `--out` or in place (its bytes
 * before key values were blanked out of the run folder), else of final.<ext>.
 */
export function subjectDigest(runDir: string, m: RunManifest): string {
  if (documentOf(m) && m.output.sha256) return m.output.sha256;
  return sha256(readFileSync(join(runDir, finalFile(m))));
}

/** The statement for a converged run; `name` is the document's file name. */
export function statementOf(runDir: string, m: RunManifest, name: string): Statement {
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name, digest: { sha256: subjectDigest(runDir, m) } }],
    predicateType: PREDICATE_TYPE,
    predicate: predicateOf(runDir, m),
  };
}

/** Where the attestation of `doc` is: beside it, or in `dir`. */
export const attestationPath = (doc: string, dir?: string): string => (dir ? join(dir, basename(doc) + ATTESTATION_SUFFIX) : doc + ATTESTATION_SUFFIX);

/** Where a run put its converged document, if outside the run folder: `--out FILE` or `--in-place`. */
export function documentOf(m: RunManifest): string | null {
  return m.output.written && (m.output.target === 'file' || m.output.target === 'in-place') && m.output.path ? m.output.path : null;
}

/** The fields where an attestation's predicate and its run's differ (empty: none). */
export function predicateDiff(a: Predicate, b: Predicate): string[] {
  const keys = Object.keys(a) as (keyof Predicate)[];
  return keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/** The policies a predicate breaks, each in words (empty: none). */
export function policyBreaks(p: Predicate, policy: VerifyConfig): string[] {
  const out: string[] = [];
  const { reviewer, composer } = p.agents;
  if (policy.require_cross_family) {
    if (reviewer.family === null || composer.family === null)
      out.push(`verify.require_cross_family: the model family of the ${reviewer.family === null ? 'reviewer' : 'composer'} is unknown`);
    else if (reviewer.family === composer.family)
      out.push(`verify.require_cross_family: the reviewer and the composer are both of the ${reviewer.family} model family`);
  }
  if (policy.forbid_dismissed_contested && p.ledger.dismissed_contested > 0)
    out.push(`verify.forbid_dismissed_contested: the run dismissed ${plural(p.ledger.dismissed_contested, '[CONTESTED] note')}`);
  return out;
}
