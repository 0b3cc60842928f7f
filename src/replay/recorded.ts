/**
 * A recorded run read back as the answers `bounce replay` gives: for each dispatch run.json
 * lists, its pass and attempt, the prompt it was sent (from the run folder, checked against the
 * record's sha256) and what came back, a reply (the raw reply file) or an error.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promptNonces, setNoncesAside } from '../cache/key.js';
import type { AdapterSuccess } from '../contract/contract.js';
import type { HostError } from '../contract/host.js';
import { readRecord, recordAnchor } from '../store/dispatch-record.js';
import { sha256 } from '../store/hash.js';
import type { RunManifest } from '../store/manifest.js';
import { type AttemptKind, HostErrorTypeSchema } from '../vocabulary.js';

/** What one recorded dispatch answered. */
export type RecordedAnswer = { ok: true; response: Omit<AdapterSuccess, 'usage'> } | { ok: false; error: HostError };

export interface RecordedCall {
  /** The dispatch's id and its run (the run whose folder holds its record: for a fork's copied pass, the original). */
  id: string;
  run: string;
  pass: number;
  kind: AttemptKind;
  index: number;
  /** The prompt as sent, and its sha256 with the frame nonces set aside (they are fresh in every prompt). */
  prompt: string;
  promptSha256: string;
  nonces: string[];
  answer: RecordedAnswer;
}

/** `<pass>/<kind>/<index>`: how the replay finds a dispatch's recorded twin. */
export const callKey = (pass: number, kind: AttemptKind, index: number): string => `${pass}/${kind}/${index}`;

/** A prompt's sha256 with its frame nonces set aside: what two prompts asking the same thing share. */
export function normalisedPrompt(prompt: string): { sha256: string; nonces: string[] } {
  const nonces = promptNonces(prompt);
  return { sha256: sha256(setNoncesAside(prompt, nonces)), nonces };
}

/** Why a run cannot be replayed and what to do; the command turns it into a one-line error. */
export class NotReplayable extends Error {
  constructor(
    message: string,
    readonly fix = 'a replay answers from the records alone; bounce audit lists what is wrong with the run',
  ) {
    super(message);
  }
}

/** What a changed file of the run is refused with. */
const CHANGED = 'it was changed after bounce wrote it; bounce audit lists every problem of the run';

/**
 * Every dispatch of the run that got an answer, by callKey. A dispatch cut short (interrupted)
 * answered nothing and is left out; when a pass was run again after a resume, the later
 * dispatch of the same attempt is the one kept, as run.json keeps it.
 */
export function recordedCalls(runDir: string, m: RunManifest): Map<string, RecordedCall> {
  const calls = new Map<string, RecordedCall>();
  for (const p of m.pass_records) {
    const dir = p.copied_from?.dir ?? runDir;
    const run = p.copied_from?.run ?? m.run_id;
    for (const d of p.dispatches) {
      if (d.status === 'pending') continue;
      if (!d.record) throw new NotReplayable(`dispatch ${d.id} of pass ${p.pass} has no dispatch record`);
      const path = join(dir, d.record);
      if (!existsSync(path)) throw new NotReplayable(`the record of dispatch ${d.id} (pass ${p.pass}) is missing: ${d.record}`);
      const bytes = readFileSync(path);
      // run.json binds each record by its sha256 (absent in runs made before bounce did).
      if (d.record_sha256 && recordAnchor(bytes) !== d.record_sha256)
        throw new NotReplayable(`the record of dispatch ${d.id} (pass ${p.pass}) is not the one run.json names: ${d.record}`, CHANGED);
      const record = readRecord(path, bytes.toString('utf8'));
      const answer = answerOf(record, dir, d.id, p.pass);
      if (!answer) continue;
      const promptFile = record.request.context.files.find((f) => f.purpose === 'prompt');
      if (!promptFile?.sha256) throw new NotReplayable(`the record of dispatch ${d.id} (pass ${p.pass}) names no prompt file`);
      const prompt = readArtifact(dir, promptFile.path, promptFile.sha256, `the prompt of dispatch ${d.id} (pass ${p.pass})`);
      const { sha256: promptSha256, nonces } = normalisedPrompt(prompt);
      calls.set(callKey(p.pass, d.kind, d.index), { id: d.id, run, pass: p.pass, kind: d.kind, index: d.index, prompt, promptSha256, nonces, answer });
    }
  }
  return calls;
}

/** What the dispatch answered, or null for one that was interrupted (it answered nothing). */
function answerOf(record: ReturnType<typeof readRecord>, dir: string, id: string, pass: number): RecordedAnswer | null {
  const r = record.response;
  if (!r) throw new NotReplayable(`the record of dispatch ${id} (pass ${pass}) holds no response`);
  // Every file the record names is checked, the ones the replay does not read too (an error's output, stderr).
  for (const a of r.artifacts)
    readArtifact(dir, a.path, a.sha256, `${a.path.endsWith('.reply.txt') ? 'the reply' : 'a file'} of dispatch ${id} (pass ${pass})`);
  if (r.error) {
    const type = HostErrorTypeSchema.safeParse(r.error.type);
    if (!type.success) throw new NotReplayable(`dispatch ${id} (pass ${pass}) ended in an error of a kind this bounce does not know: ${r.error.type}`);
    if (type.data === 'interrupted') return null;
    return { ok: false, error: { type: type.data, message: r.error.message } };
  }
  const replyFile = r.artifacts.find((a) => a.path.endsWith('.reply.txt'));
  // An empty reply leaves no reply file.
  const reply = replyFile ? readArtifact(dir, replyFile.path, replyFile.sha256, `the reply of dispatch ${id} (pass ${pass})`) : '';
  return {
    ok: true,
    response: {
      ok: true,
      reply,
      stop: r.stop ?? 'complete',
      model: r.metadata.model,
      agent_version: r.agent_version,
      ...(r.metadata.tool_calls !== null ? { tool_calls: r.metadata.tool_calls } : {}),
    },
  };
}

/** The run's copy of its input must be the document run.json names: the replay starts from it. */
export function assertOriginal(runDir: string, m: Pick<RunManifest, 'original' | 'input'>): void {
  readArtifact(runDir, m.original, m.input.sha256, 'the original document');
}

function readArtifact(dir: string, file: string, sha: string, what: string): string {
  const path = join(dir, file);
  if (!existsSync(path))
    throw new NotReplayable(`${what} is missing: ${file}`, 'a replay answers from the recorded prompts and replies; replay a run whose folder holds them all');
  const bytes = readFileSync(path);
  if (sha256(bytes) !== sha) throw new NotReplayable(`${what} (${file}) is not what its record says`, CHANGED);
  return bytes.toString('utf8');
}
