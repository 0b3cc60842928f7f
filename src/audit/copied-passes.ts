import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRecord, recordAnchor } from '../store/dispatch-record.js';
import { copiedRunDir } from '../store/fork-links.js';
import type { RunManifest } from '../store/manifest.js';
import type { DispatchRecord } from '../store/record-schema.js';

/** A record another run's folder holds, as a fork links to it: `rel` names it for problems, `<run>/<path>`. */
export type LinkedRecord = { rel: string; rec: DispatchRecord };

type Problem = (message: string, file: string) => void;

/**
 * The records of a fork's copied passes, read from the run they came from and checked
 * against what the fork linked: each is there, has the sha256 the fork recorded (the
 * original was not changed since), and is the dispatch of that id, run and pass. A
 * missing original is a problem: the copied part can no longer be verified.
 */
export function readLinkedRecords(runDir: string, m: RunManifest, problem: Problem): Map<string, LinkedRecord> {
  const found = new Map<string, LinkedRecord>();
  const missing = new Set<string>();
  for (const p of m.pass_records) {
    const from = p.copied_from;
    if (!from) continue;
    const dir = copiedRunDir(runDir, from);
    if (!dir) {
      if (!missing.has(from.run))
        problem(
          `run ${from.run}, which this fork's passes up to ${m.forked_from?.pass ? m.forked_from.pass - 1 : p.pass} were copied from, is not found (not beside this run, nor at ${from.dir}): the copied passes cannot be verified`,
          'run.json',
        );
      missing.add(from.run);
      continue;
    }
    for (const ref of p.dispatches) {
      const rel = `${from.run}/${ref.record ?? ref.id}`;
      const path = ref.record ? join(dir, ref.record) : null;
      if (!path || !existsSync(path)) {
        problem(`the record of copied dispatch ${ref.id} (pass ${p.pass}) is missing from run ${from.run}`, rel);
        continue;
      }
      if (recordAnchor(readFileSync(path)) !== ref.record_sha256) {
        problem(`the record of copied dispatch ${ref.id} (pass ${p.pass}) is not the one the fork linked: run ${from.run} was changed since`, rel);
        continue;
      }
      let rec: DispatchRecord;
      try {
        rec = readRecord(path);
      } catch (err) {
        problem(err instanceof Error ? err.message.replace(`${path}: `, '') : String(err), rel);
        continue;
      }
      const a = rec.request.plan_ancestry;
      if (rec.request.id !== ref.id || a.run_id !== from.run || a.pass !== p.pass)
        problem(`the record linked for dispatch ${ref.id} of pass ${p.pass} is dispatch ${rec.request.id} of run ${a.run_id}, pass ${a.pass}`, rel);
      found.set(ref.id, { rel, rec });
    }
  }
  return found;
}
