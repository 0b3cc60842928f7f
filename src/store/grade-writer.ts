import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic.js';
import { usageError } from '../errors.js';
import { listRecordFiles, readRecord, recordAnchor, renderRecord, ungradedRecord } from './dispatch-record.js';
import { sha256 } from './hash.js';
import { acquireLock } from './lock.js';
import { readManifest, type RunManifest } from './manifest.js';
import type { DispatchOutcome, DispatchRecord } from './record-schema.js';
import { appendLog, type RecorderOptions, RunRecorder } from './recorder.js';
import { RUN_FILE_MODE } from './run-folder.js';

/** Whether a side dispatch made after the run ended was cut short: still pending in run.json, or a record run.json does not list. */
function sideLeftOver(runDir: string, m: RunManifest): boolean {
  const listed = m.pass_records.filter((p) => !p.copied_from).reduce((n, p) => n + p.dispatches.length, 0) + (m.side_dispatches?.length ?? 0);
  return (m.side_dispatches ?? []).some((d) => d.status === 'pending') || listRecordFiles(runDir).length > listed;
}

/**
 * The recorder's side of `bounce grade` (docs/grading.md): the one writer of a record's
 * `outcome.graded_at` and `outcome.grade`. It holds the run's lock from `open` to `close`, so
 * no runner works in the folder meanwhile, and writes each record atomically, changing nothing
 * but those two fields: the record's anchor (`recordAnchor`), which run.json and the chain of
 * records hold, stays what it was.
 */
export class GradeWriter {
  private writes = 0;

  private constructor(
    readonly dir: string,
    private readonly unlock: () => void,
  ) {}

  /** Takes the run's lock; a run still running (or crashed while it ran) is refused. */
  static open(runDir: string): GradeWriter {
    const unlock = acquireLock(runDir);
    try {
      const m = readManifest(runDir);
      if (m.status === 'running')
        throw usageError(
          `run ${m.run_id} has not ended (its run.json says running)`,
          'grade it once it has ended; bounce resume finishes a crashed run',
          'locked',
        );
      // An agent's grading cut short leaves its last record pending, or unlisted: made consistent first.
      if (sideLeftOver(runDir, m)) RunRecorder.reconcileEnded(runDir);
      return new GradeWriter(runDir, unlock);
    } catch (err) {
      unlock();
      throw err;
    }
  }

  /** The record as it stands now, read under the lock. */
  read(rel: string): DispatchRecord {
    return readRecord(join(this.dir, rel));
  }

  /**
   * Writes the record with `outcome` as its grading fields, everything else as it stands.
   * Refused when the record's text, rendered again, would not be what its anchor says (a
   * record an older bounce wrote in another layout, or one changed by hand): grading it
   * would break the chain `bounce audit` follows.
   */
  write(rel: string, grading: Pick<DispatchOutcome, 'graded_at' | 'grade'>): void {
    const path = join(this.dir, rel);
    const bytes = readFileSync(path);
    const current = readRecord(path);
    if (sha256(renderRecord(ungradedRecord(current))) !== recordAnchor(bytes, current))
      throw usageError(
        `the record ${rel} is not in the layout this bounce writes (made by an older bounce, or edited by hand)`,
        'it cannot be graded without breaking the chain of records; bounce audit checks the run',
        'tampered',
      );
    const next: DispatchRecord = { ...current, outcome: { ...current.outcome, graded_at: grading.graded_at, grade: grading.grade } };
    writeFileAtomic(path, renderRecord(next), RUN_FILE_MODE);
    this.writes += 1;
  }

  /** A recorder for side dispatches made under this writer's lock (an agent grading, `bounce grade --judge`). */
  sideRecorder(opts: RecorderOptions): RunRecorder {
    return RunRecorder.underLock(this.dir, opts);
  }

  /** Appends a line to run.log (once a session, when it wrote anything) and releases the lock. */
  close(summary?: string): void {
    try {
      if (this.writes > 0 && summary) appendLog(join(this.dir, 'run.log'), summary);
    } finally {
      this.unlock();
    }
  }
}
