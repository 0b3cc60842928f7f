import type { ErrorCode } from './vocabulary.js';
/** Exit codes shared by every command (see README "Exit codes"). */
export const EXIT = {
  ok: 0,
  notConverged: 1,
  /** What a gate found: notes or lint problems (scan, lint), agents not ready (check), a run that does not verify (audit). The same number as notConverged. */
  problems: 1,
  usage: 2,
  agent: 3,
  interrupted: 130,
  /** An internal error: a bug, printed with its stack. */
  internal: 70,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The one error type meant for users: a single line naming the problem and the fix,
 * plus the exit code the process ends with. Anything else that escapes is a bug.
 */
export class BounceError extends Error {
  readonly exitCode: number;
  readonly hint: string | undefined;
  /** Machine-readable category for `--json` (usage, input, config, credentials, agent, ...). */
  readonly code: ErrorCode;

  constructor(message: string, opts: { exitCode?: number; hint?: string; code?: ErrorCode; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'BounceError';
    this.exitCode = opts.exitCode ?? EXIT.usage;
    this.hint = opts.hint;
    this.code = opts.code ?? 'usage';
  }

  /** The single line printed to stderr. */
  get line(): string {
    return this.hint ? `${this.message}: ${this.hint}` : this.message;
  }
}

/** A usage, input, config or credential problem found before any dispatch: exit 2. */
export function usageError(message: string, hint?: string, code: ErrorCode = 'usage'): BounceError {
  return new BounceError(message, { exitCode: EXIT.usage, hint, code });
}

export function isBounceError(err: unknown): err is BounceError {
  return err instanceof BounceError;
}

const STORAGE_CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EIO: 'an input/output error',
};

/** A file-system error code bounce cannot work around (disk full, read-only) in words, else null. */
export function storageCause(code: string): string | null {
  return Object.hasOwn(STORAGE_CAUSES, code) ? `${STORAGE_CAUSES[code]} (${code})` : null;
}
