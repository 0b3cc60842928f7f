import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PassRecord, RunManifest } from './manifest.js';
import { MANIFEST_FILE } from './manifest.js';

/** Where a fork's copied pass keeps its records: the run it came from, by id and by the folder it had then. */
export type CopiedFrom = NonNullable<PassRecord['copied_from']>;

/** The dispatches a fork links to instead of holding them (the copied passes'), each by id and record sha256. */
export function linkedRecords(m: Pick<RunManifest, 'pass_records'>): { id: string; sha256: string }[] {
  return m.pass_records.flatMap((p) => (p.copied_from ? p.dispatches.map((d) => ({ id: d.id, sha256: d.record_sha256 ?? '' })) : []));
}

/**
 * The folder of the run a copied pass came from: beside the fork first (a runs folder moved
 * or copied as a whole keeps its forks whole), else where it was when the fork was made;
 * null when neither holds it.
 */
export function copiedRunDir(runDir: string, from: CopiedFrom): string | null {
  const candidates = [join(dirname(runDir), from.run), from.dir];
  return candidates.find((dir) => existsSync(join(dir, MANIFEST_FILE))) ?? null;
}

/** The folder that holds a pass's dispatch records: the run's own, or for a copied pass the original's (null when gone). */
export function recordsDirOf(runDir: string, p: Pick<PassRecord, 'copied_from'>): string | null {
  return p.copied_from ? copiedRunDir(runDir, p.copied_from) : runDir;
}
