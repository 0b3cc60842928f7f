/**
 * `bounce verify`'s check of one document against its attestation (docs/provenance.md): its
 * bytes are the subject's, the run it names is in the runs folder and audits clean, the run
 * still gives the attestation's predicate, and the predicate keeps config `verify:`'s policies.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyRun } from '../audit/verify.js';
import type { VerifyConfig } from '../config/schema.js';
import { sha256 } from '../store/hash.js';
import { MANIFEST_FILE, readManifest } from '../store/manifest.js';
import { manifestProblem } from '../store/resolve-run.js';
import { policyBreaks, predicateDiff, predicateOf, type Statement, StatementSchema, subjectDigest } from './attestation.js';

export interface DocumentCheck {
  /** The attestation read, or null when there is none to read. */
  attestation: string | null;
  runId: string | null;
  /** Why the document does not pass, each in one line; empty: it passes. */
  problems: string[];
}

function readStatement(path: string): { statement: Statement } | { problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return { problem: `its attestation is not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  const parsed = StatementSchema.safeParse(raw);
  if (parsed.success) return { statement: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { problem: `its attestation is not a bounce attestation: ${issue.path.join('.') || '(root)'}: ${issue.message}` };
}

/** Checks the document at `doc` against the attestation at `attestation`, its run looked for in `runsDir`. */
export function checkDocument(doc: string, attestation: string, runsDir: string, policy: VerifyConfig): DocumentCheck {
  if (!existsSync(attestation)) return { attestation: null, runId: null, problems: ['no attestation matches it'] };
  const read = readStatement(attestation);
  if ('problem' in read) return { attestation, runId: null, problems: [read.problem] };
  const { predicate, subject } = read.statement;
  const runId = predicate.run_id;
  const at = { attestation, runId };
  if (sha256(readFileSync(doc)) !== subject[0]!.digest.sha256)
    return { ...at, problems: ['its bytes do not match its attestation: it changed after the run (attest a run of it as it is now)'] };
  const runDir = join(runsDir, runId);
  if (!existsSync(join(runDir, MANIFEST_FILE))) return { ...at, problems: [`its run ${runId} is not in ${runsDir} (give --runs-dir)`] };
  const audit = verifyRun(runDir);
  if (audit.problems.length > 0) {
    const first = audit.problems[0]!;
    return { ...at, problems: [`its run ${runId} does not audit clean: ${first.message} (${first.file})`] };
  }
  let m: ReturnType<typeof readManifest>;
  try {
    m = readManifest(runDir);
  } catch (err) {
    return { ...at, problems: [`its run ${runId}: ${manifestProblem(runDir, err)}`] };
  }
  if (m.status !== 'converged') return { ...at, problems: [`its run ${runId} is ${m.status} now`] };
  if (subjectDigest(runDir, m) !== subject[0]!.digest.sha256) return { ...at, problems: [`its run ${runId} converged on another document`] };
  const differ = predicateDiff(predicate, predicateOf(runDir, m));
  if (differ.length > 0) return { ...at, problems: [`its attestation does not match its run ${runId} (${differ.join(', ')})`] };
  return { ...at, problems: policyBreaks(predicate, policy) };
}
