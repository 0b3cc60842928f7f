import type { AdapterSuccess, Role } from '../adapters/contract.js';
import type { HostError } from '../adapters/host.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import type { Note } from '../protocol/scanner.js';
import type { AttemptKind } from '../store/run-folder.js';

/** What the loop knows when it is about to call an agent (written before the call). */
export interface DispatchStart {
  id: string;
  runId: string;
  stem: string;
  pass: number;
  totalPasses: number;
  role: Role;
  agent: ResolvedAgent;
  agentVersion: string | null;
  final: boolean;
  kind: AttemptKind;
  index: number;
  /** The dispatch this one retries or repairs; null for the first call of a pass. */
  parentId: string | null;
  /** Run-folder-relative file names. */
  promptFile: string;
  /** The document the agent was asked to revise, as a run-folder file, its sha and line count. */
  documentFile: string;
  documentSha256: string;
  documentLines: number;
  inputPath: string | null;
  issuedAt: Date;
  deadlineSeconds: number;
  maxOutputTokens: number | null;
  repairError: string | null;
}

export type DispatchStatus = Exclude<import('../vocabulary.js').DispatchStatus, 'pending'>;

/** What the loop knows after the call (written after it). */
export interface DispatchEnd {
  start: DispatchStart;
  completedAt: Date;
  durationMs: number;
  status: DispatchStatus;
  reason: string | null;
  response: AdapterSuccess | null;
  error: HostError | null;
  /** The document this reply produced, when it could be read as one. */
  document: { file: string; sha256: string; lines: number } | null;
  /** Notes the reply added and resolved, from the scanner, never from the agent's word. */
  added: Note[];
  resolved: Note[];
}

/** Observers of a run; the audit trail is one. Hooks must not throw for expected conditions. */
export interface RunHooks {
  dispatchStarted(start: DispatchStart): string | null;
  dispatchFinished(end: DispatchEnd): void;
}

export const noHooks: RunHooks = {
  dispatchStarted: () => null,
  dispatchFinished: () => undefined,
};
