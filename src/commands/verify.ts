import { resolve } from 'node:path';
import { ATTESTATION_SUFFIX, attestationPath } from '../attest/attestation.js';
import { checkDocument } from '../attest/check.js';
import { loadConfigKeys, runsDirFor } from '../config/load.js';
import { selectInputs } from '../documents.js';
import { EXIT, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { plural } from '../plural.js';

export interface VerifyCommandOptions {
  paths: string[];
  /** Only the documents changed since this git ref. */
  changed?: string;
  /** The folder the attestations are in, instead of beside each document. */
  attestations?: string;
  runsDir?: string;
  config?: string;
  json?: boolean;
}

/**
 * `bounce verify <paths...>`: 0 when every document matches an attestation whose run audits
 * clean and keeps config `verify:`'s policies; 1 naming each document that does not; 2 on a
 * usage error (docs/provenance.md).
 */
export async function runVerify(opts: VerifyCommandOptions, io: Io): Promise<number> {
  if (opts.paths.includes('-')) throw usageError('bounce verify reads documents from files, not stdin', 'name the files');
  const loaded = loadConfigKeys(io.cwd, io.env, opts.config, ['runs_dir', 'verify']);
  const runsDir = runsDirFor(io.cwd, loaded, opts.runsDir);
  const attestDir = opts.attestations ? resolve(io.cwd, opts.attestations) : undefined;
  const inputs = await selectInputs(opts.paths, io.cwd, opts.changed);
  // Attestations themselves are not documents (a folder given holds them beside the documents).
  const docs = inputs.filter((i) => i.path !== undefined && !i.path.endsWith(ATTESTATION_SUFFIX));
  const results = docs.map((i) => {
    const path = resolve(io.cwd, i.path!);
    const check = checkDocument(path, attestationPath(path, attestDir), runsDir, loaded.config.verify);
    return { document: i.label, ok: check.problems.length === 0, attestation: check.attestation, run_id: check.runId, problems: check.problems };
  });
  const failed = results.filter((r) => !r.ok);
  if (opts.json) {
    const out = { ok: failed.length === 0, documents: results, runs_dir: runsDir };
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    for (const r of results) {
      if (r.ok) io.stdout.write(`ok: ${r.document} (run ${r.run_id})\n`);
      else for (const p of r.problems) io.stdout.write(`fail: ${r.document}: ${p}\n`);
    }
    io.stderr.write(
      failed.length === 0
        ? `verify ok: ${plural(results.length, 'document')} attested\n`
        : `verify failed: ${failed.length} of ${plural(results.length, 'document')} not attested\n`,
    );
  }
  return failed.length === 0 ? EXIT.ok : EXIT.notConverged;
}
