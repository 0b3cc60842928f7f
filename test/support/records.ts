import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BINDING_FILE } from '../../src/store/binding.js';
import {
  buildRequest,
  buildResponse,
  type DispatchEnd,
  type DispatchStart,
  listRecordFiles,
  readRecord,
  recordPath,
  renderRecord,
} from '../../src/store/dispatch-record.js';
import { countLines } from '../../src/text/lines.js';
import type { DispatchRequest } from '../../src/store/record-schema.js';
import { sha256 } from '../../src/store/hash.js';

/**
 * Writes dispatch records by hand, the way the recorder does (a record before the call, its
 * outcome after it), for fixtures that need a run folder without running the engine.
 */
export function recordWriter(dir: string): { started(start: DispatchStart): string; finished(end: DispatchEnd): string } {
  const facts = (rel: string): { sha256: string | null; lines: number } => {
    const path = join(dir, rel);
    if (!existsSync(path)) return { sha256: null, lines: 0 };
    const text = readFileSync(path, 'utf8');
    return { sha256: sha256(text), lines: countLines(text) };
  };
  const lines = (rel: string): string[] | null => (existsSync(join(dir, rel)) ? readFileSync(join(dir, rel), 'utf8').split(/\r?\n/) : null);
  const write = (rel: string, record: Parameters<typeof renderRecord>[0]): string => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), renderRecord(record));
    return rel;
  };
  const requests = new Map<string, DispatchRequest>();
  const passInputs = new Map<number, { file: string; sha256: string }>();
  return {
    started(start) {
      if (start.kind === 'pass' || !passInputs.has(start.pass)) passInputs.set(start.pass, { file: start.documentFile, sha256: start.documentSha256 });
      const request = buildRequest(start, facts);
      requests.set(start.id, request);
      return write(recordPath(start.id, start.issuedAt), {
        request,
        response: null,
        outcome: { status: 'pending', reason: null, graded_at: null, grade: null },
      });
    },
    finished(end) {
      const request = requests.get(end.start.id) ?? buildRequest(end.start, facts);
      const input = passInputs.get(end.start.pass) ?? { file: end.start.documentFile, sha256: end.start.documentSha256 };
      const response = buildResponse(end, input, facts, lines);
      return write(recordPath(end.start.id, end.start.issuedAt), {
        request,
        response,
        outcome: { status: end.status, reason: end.reason, graded_at: null, grade: null },
      });
    },
  };
}

/**
 * Makes a run folder what an older bounce, which bound nothing, would have left: no
 * audit/binding.yaml, no `binding` in the records, no `record_sha256` in run.json.
 */
export function unbind(runDir: string): void {
  rmSync(join(runDir, BINDING_FILE), { force: true });
  for (const rel of listRecordFiles(runDir)) {
    const { binding: _, ...record } = readRecord(join(runDir, rel));
    writeFileSync(join(runDir, rel), renderRecord(record));
  }
  const path = join(runDir, 'run.json');
  const m = JSON.parse(readFileSync(path, 'utf8')) as { pass_records: { dispatches: { record_sha256?: string }[] }[] };
  for (const p of m.pass_records) for (const d of p.dispatches) delete d.record_sha256;
  writeFileSync(path, `${JSON.stringify(m, null, 2)}\n`);
}
