import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { attestationPath, documentOf, finalFile, statementOf } from '../attest/attestation.js';
import { verifyRun } from '../audit/verify.js';
import { displayPath } from '../documents.js';
import { EXIT, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { writeFileAtomic } from '../atomic.js';
import { sha256 } from '../store/hash.js';
import { readManifest } from '../store/manifest.js';
import { resolveRunDir } from '../store/resolve-run.js';
import { runHintFlags } from '../store/run-location.js';

export interface AttestOptions {
  run: string;
  runsDir?: string;
  /** The folder to write the attestation into, instead of beside the document. */
  out?: string;
  json?: boolean;
}

/**
 * `bounce attest <run>`: writes the attestation of a converged run (docs/provenance.md)
 * beside the document it wrote (`NAME.bounce.json`), or into `--out DIR`. A run that did not
 * converge, that does not audit clean, or whose document has changed since is refused (exit 2).
 */
export async function runAttest(opts: AttestOptions, io: Io): Promise<number> {
  const runDir = resolveRunDir(opts.run, opts.runsDir ?? 'runs', io.cwd);
  const m = readManifest(runDir);
  if (m.status !== 'converged')
    throw usageError(
      `run ${m.run_id} is ${m.status}, and only a converged run is attested`,
      `finish it first (bounce resume ${m.run_id}${runHintFlags(runDir, io)} --passes N)`,
    );
  const audit = verifyRun(runDir);
  if (audit.problems.length > 0) {
    const first = audit.problems[0]!;
    throw usageError(
      `run ${m.run_id} does not audit clean: ${first.message} (${first.file})`,
      `bounce audit ${m.run_id}${runHintFlags(runDir, io)} names every problem`,
    );
  }
  const doc = documentOf(m);
  if (!doc && !opts.out)
    throw usageError(`run ${m.run_id} wrote its document only into its run folder, so there is nowhere beside it to attest it`, 'give --out DIR');
  if (doc && (!existsSync(doc) || sha256(readFileSync(doc)) !== m.output.sha256))
    throw usageError(`${displayPath(doc, io.cwd)} is no longer the document run ${m.run_id} wrote`, 'attest a run of the document as it is now');
  const name = basename(doc ?? m.input.path ?? finalFile(m));
  const statement = statementOf(runDir, m, name);
  const outDir = opts.out ? resolve(io.cwd, opts.out) : undefined;
  if (outDir) mkdirSync(outDir, { recursive: true });
  const path = attestationPath(doc ?? name, outDir);
  writeFileAtomic(path, `${JSON.stringify(statement, null, 2)}\n`);
  const shown = displayPath(path, io.cwd, 'absolute');
  if (opts.json) io.stdout.write(`${JSON.stringify({ attestation: resolve(path), run_id: m.run_id, subject: statement.subject[0] }, null, 2)}\n`);
  else io.stdout.write(`${shown}\n`);
  return EXIT.ok;
}
