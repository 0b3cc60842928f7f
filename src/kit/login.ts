/**
 * What every CLI's login check shares: the state a login is in, a quick command run in an
 * empty directory, and the state as a check's findings. Each CLI's own reading of its login
 * is in its folder (`adapters/<name>/login.ts`). Only names are kept, never a value.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckProblem } from '../contract/contract.js';
import { type Probe, probeTimeoutMs, runQuick } from './detect.js';

/**
 * How a CLI authenticates: a key (`api_key`, also a key from an `apiKeyHelper`), a
 * long-lived token (`oauth_token`: CLAUDE_CODE_OAUTH_TOKEN, ANTHROPIC_AUTH_TOKEN), a
 * subscription login (Claude or ChatGPT), the cloud provider's own credentials (`cloud`:
 * Bedrock, Vertex), `none` (nothing, or nothing needed), or `unknown`.
 */
export type AuthMethod = 'api_key' | 'oauth_token' | 'subscription' | 'cloud' | 'none' | 'unknown';

export interface LoginState {
  /** false: the CLI says it has no login; null: it could not tell. */
  loggedIn: boolean | null;
  auth: AuthMethod;
  /** Where the credential comes from: a variable's name, `apiKeyHelper`, `claude login`, `codex login`. */
  source: string | null;
  /** What to tell the user (no login, a login that could not be verified, a key that takes over billing). */
  findings: Array<CheckProblem & { severity: 'problem' | 'warning' }>;
}

/** How a CLI's login is asked, offline: `program` is the CLI found, `probe` this invocation's. */
export type CliLogin = (program: string, env: NodeJS.ProcessEnv, probe: Probe) => Promise<LoginState>;

const QUICK_MS = 15_000;

/** A command run in a fresh empty directory, so that no project settings around the runner's cwd count. */
export async function quickInEmptyDir(
  program: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<{ exitCode: number | null; stdout: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bounce-login-'));
  try {
    return await runQuick(program, args, env, probeTimeoutMs(env, QUICK_MS), dir, signal);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A login that cannot be verified offline: a warning. */
export const unverified = (message: string, fix: string): LoginState => ({
  loggedIn: null,
  auth: 'unknown',
  source: null,
  findings: [{ kind: 'login_unverified', severity: 'warning', message, fix }],
});
/** No login: a problem. */
export const noLogin = (message: string, fix: string): LoginState => ({
  loggedIn: false,
  auth: 'none',
  source: null,
  findings: [{ kind: 'credentials', severity: 'problem', message, fix }],
});

/** A login state as a check result's findings and `resolved` entries (names only). */
export function loginReport(state: LoginState): { problems: CheckProblem[]; warnings: CheckProblem[]; resolved: Record<string, string> } {
  const strip = ({ severity: _s, ...p }: LoginState['findings'][number]): CheckProblem => p;
  return {
    problems: state.findings.filter((f) => f.severity === 'problem').map(strip),
    warnings: state.findings.filter((f) => f.severity === 'warning').map(strip),
    resolved: { auth: state.auth, ...(state.source ? { auth_source: state.source } : {}) },
  };
}
