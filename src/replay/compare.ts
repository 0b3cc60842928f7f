/**
 * Whether a replay reached what its recording did: the same outcome, the same document after
 * every pass (by sha256), the same notes and the same ledger, and the same final document.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ManifestView } from '../store/recorder.js';
import { sha256 } from '../store/hash.js';
import { plural } from '../plural.js';

/** The pass record fields a faithful replay reproduces. */
const PASS_FACTS = ['status', 'document_sha256', 'notes_before', 'notes_after', 'added', 'resolved', 'acted', 'dismissed', 'misplaced_after'] as const;

const finalSha = (dir: string, m: ManifestView): string | null => {
  const path = join(dir, `final.${m.input.ext}`);
  return existsSync(path) ? sha256(readFileSync(path)) : null;
};

/** What differs between the recorded run and its replay, one phrase each; empty when the replay reproduced it. */
export function replayDifferences(original: { dir: string; manifest: ManifestView }, replay: { dir: string; manifest: ManifestView }): string[] {
  const a = original.manifest;
  const b = replay.manifest;
  const out: string[] = [];
  if (a.status !== b.status) out.push(`the run ended ${b.status}, the recording ${a.status}`);
  if (a.notes_left !== b.notes_left)
    out.push(
      `${b.notes_left === null || b.notes_left === undefined ? 'no count of notes' : plural(b.notes_left, 'note')} left, the recording ${a.notes_left ?? 'none counted'}`,
    );
  if (a.pass_records.length !== b.pass_records.length)
    out.push(`${plural(b.pass_records.length, 'pass', 'passes')} ran, the recording ${a.pass_records.length}`);
  for (const pb of b.pass_records) {
    const pa = a.pass_records.find((p) => p.pass === pb.pass);
    if (!pa) continue;
    const differ = PASS_FACTS.filter((k) => pa[k] !== pb[k]);
    if (differ.length) out.push(`pass ${pb.pass}: ${differ.join(', ')} differ`);
  }
  if (finalSha(original.dir, a) !== finalSha(replay.dir, b)) out.push(`final.${b.input.ext} differs`);
  return out;
}
