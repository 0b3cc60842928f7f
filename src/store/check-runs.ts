/** The check runs of a run (config `checks:`, docs/checks.md), read back from its dispatch records for `bounce show` and `bounce report`. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readRecord } from './dispatch-record.js';
import type { RunManifest } from './manifest.js';
import type { CheckRunRecord } from './record-schema.js';

/**
 * Each dispatch's check runs, by dispatch id, from the records in `dir` (a fork's copied
 * passes keep theirs in the run they came from, and are left out). Empty for a run whose
 * policy has no checks, without reading a record; a record that is missing or unreadable
 * gives none (`bounce audit` names it).
 */
export function checkRunsOf(dir: string, m: Pick<RunManifest, 'policy' | 'pass_records'>): Map<string, CheckRunRecord[]> {
  const out = new Map<string, CheckRunRecord[]>();
  if (!m.policy.checks) return out;
  for (const p of m.pass_records) {
    if (p.copied_from) continue;
    for (const d of p.dispatches) {
      if (!d.record || !existsSync(join(dir, d.record))) continue;
      try {
        const checks = readRecord(join(dir, d.record)).response?.checks;
        if (checks) out.set(d.id, checks);
      } catch {
        // An unreadable record shows no checks here; the audit names it.
      }
    }
  }
  return out;
}
