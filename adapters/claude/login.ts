/**
 * Whether Claude Code is logged in, and how, offline. Claude Code answers `claude auth status`
 * (JSON, about a second, no network); where its files and variables leave no doubt, they are
 * read instead. Only names are kept, never a value.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Probe } from '../../src/kit/detect.js';
import { withoutParentSession } from '../../src/kit/facts.js';
import { userHome } from '../../src/kit/jsonc.js';
import { type AuthMethod, type LoginState, quickInEmptyDir } from '../../src/kit/login.js';
import { ownValue } from '../../src/own.js';
import { CLAUDE, CLAUDE_CLI } from './facts.js';

const CLAUDE_KEYS = CLAUDE.keyEnvs;
/** How to give Claude Code a login: the fix of every claude credentials problem, at the check or at a dispatch. */
export const CLAUDE_LOGIN_FIX = 'run `claude` once and /login, or set ANTHROPIC_API_KEY (in CI: CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`)';

const AUTH_METHODS: Record<string, AuthMethod> = {
  'claude.ai': 'subscription',
  api_key: 'api_key',
  api_key_helper: 'api_key',
  oauth_token: 'oauth_token',
  third_party: 'cloud',
  none: 'none',
};

interface ClaudeStatus {
  loggedIn?: unknown;
  authMethod?: unknown;
  apiKeySource?: unknown;
}

function parseStatus(stdout: string): ClaudeStatus | null {
  try {
    const value: unknown = JSON.parse(stdout);
    return typeof value === 'object' && value !== null ? (value as ClaudeStatus) : null;
  } catch {
    return null;
  }
}

/** Reads `claude auth status` (JSON: loggedIn, authMethod, apiKeySource); `env` is the CLI's own environment. */
export function readClaudeStatus(stdout: string, env: NodeJS.ProcessEnv): LoginState {
  const status = parseStatus(stdout);
  if (!status || typeof status.loggedIn !== 'boolean') {
    // An older claude without `auth status`: only the environment can say.
    const name = CLAUDE_KEYS.find((n) => env[n]?.trim());
    if (name) return { loggedIn: true, auth: name === 'ANTHROPIC_API_KEY' ? 'api_key' : 'oauth_token', source: name, findings: [] };
    const unverified = {
      kind: 'login_unverified' as const,
      severity: 'warning' as const,
      message: 'claude login cannot be verified offline',
      fix: CLAUDE_LOGIN_FIX,
    };
    return { loggedIn: null, auth: 'unknown', source: null, findings: [unverified] };
  }
  const method = typeof status.authMethod === 'string' ? (ownValue(AUTH_METHODS, status.authMethod) ?? 'unknown') : 'unknown';
  const keySource = typeof status.apiKeySource === 'string' ? status.apiKeySource : null;
  if (!status.loggedIn) {
    return {
      loggedIn: false,
      auth: 'none',
      source: null,
      findings: [{ kind: 'credentials', severity: 'problem', message: 'claude is not logged in (`claude auth status`)', fix: CLAUDE_LOGIN_FIX }],
    };
  }
  if (method === 'subscription' && keySource) {
    // In print mode the key wins over the subscription: observed with claude 2.1.197 (x-api-key sent).
    const takeover = {
      kind: 'credentials' as const,
      severity: 'warning' as const,
      message: `${keySource} is set while claude is logged in with a subscription: the key takes over and its usage is billed to that API account`,
      fix: `unset ${keySource} to use the subscription, or log out of claude to keep paying by key`,
    };
    return { loggedIn: true, auth: 'api_key', source: keySource, findings: [takeover] };
  }
  const source = keySource ?? (method === 'subscription' ? 'claude login' : (CLAUDE_KEYS.find((n) => env[n]?.trim()) ?? null));
  return { loggedIn: true, auth: method, source, findings: [] };
}

/** Where Claude Code keeps its files: CLAUDE_CONFIG_DIR, else ~/.claude. */
const claudeConfigDir = (env: NodeJS.ProcessEnv): string => env.CLAUDE_CONFIG_DIR?.trim() || join(userHome(env), '.claude');

/** Settings that can bring a credential or a provider the environment does not show. */
const CLAUDE_SETTINGS_CREDENTIALS =
  /apiKeyHelper|ANTHROPIC_API_KEY|ANTHROPIC_AUTH_TOKEN|CLAUDE_CODE_OAUTH_TOKEN|CLAUDE_CODE_USE_|awsAuthRefresh|awsCredentialExport|forceLoginMethod/;
const CLAUDE_MANAGED_SETTINGS = ['/etc/claude-code/managed-settings.json', '/Library/Application Support/ClaudeCode/managed-settings.json'];
const isSet = (v: string | undefined): boolean => Boolean(v?.trim()) && v?.trim() !== '0' && v?.trim().toLowerCase() !== 'false';

/** True when the file exists and may name a credential (or cannot be read); false when absent or silent on them. */
function mayAddCredentials(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return CLAUDE_SETTINGS_CREDENTIALS.test(readFileSync(file, 'utf8'));
  } catch {
    return true;
  }
}

/** A subscription login stored in `.credentials.json`: true, false when there is no such file, null when it says nothing clear. */
function storedSubscription(configDir: string): boolean | null {
  const file = join(configDir, '.credentials.json');
  if (!existsSync(file)) return false;
  try {
    const oauth = (JSON.parse(readFileSync(file, 'utf8')) as { claudeAiOauth?: { accessToken?: unknown; refreshToken?: unknown } }).claudeAiOauth;
    return typeof oauth?.accessToken === 'string' || typeof oauth?.refreshToken === 'string' ? true : null;
  } catch {
    return null;
  }
}

/**
 * The key variables Claude Code would see, or null when something else may bring a credential
 * or a provider: a provider switch (CLAUDE_CODE_USE_*), or user or managed settings that may
 * name a credential (apiKeyHelper, env).
 */
function claudeKeysInView(env: NodeJS.ProcessEnv): string[] | null {
  if (Object.keys(env).some((name) => name.startsWith('CLAUDE_CODE_USE_') && isSet(env[name]))) return null;
  if ([join(claudeConfigDir(env), 'settings.json'), ...CLAUDE_MANAGED_SETTINGS].some(mayAddCredentials)) return null;
  return CLAUDE_KEYS.filter((name) => env[name]?.trim());
}

/**
 * True when Claude Code authenticates with ANTHROPIC_API_KEY for certain: it is the only key
 * variable, no provider switch, no settings that may bring a credential. A stored subscription
 * login does not matter: in print mode the key takes over (observed with claude 2.1.197).
 */
export function claudeUsesApiKey(env: NodeJS.ProcessEnv): boolean {
  const keys = claudeKeysInView(env);
  return keys?.length === 1 && keys[0] === 'ANTHROPIC_API_KEY';
}

/**
 * What `claude auth status` would answer, read offline without starting the CLI (it costs
 * about half a second), or null when the files and variables leave any doubt: then the CLI is
 * asked. Certain: one key variable and no stored login (the key is used), or a stored
 * subscription login with no key variable or with ANTHROPIC_API_KEY (the key takes over). In
 * doubt: several key variables, a provider switch (CLAUDE_CODE_USE_*), user or managed
 * settings that may bring a credential (apiKeyHelper, env), a credentials file that says
 * nothing clear, macOS (the login is in the Keychain), and no credential at all.
 */
export function claudeStatusOffline(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | null {
  const keys = claudeKeysInView(env);
  if (keys === null || keys.length > 1) return null;
  const stored = storedSubscription(claudeConfigDir(env));
  if (stored === null || (!stored && platform === 'darwin')) return null;
  const key = keys[0];
  let status: ClaudeStatus;
  if (stored && key === undefined) status = { loggedIn: true, authMethod: 'claude.ai' };
  else if (stored && key === 'ANTHROPIC_API_KEY') status = { loggedIn: true, authMethod: 'claude.ai', apiKeySource: key };
  else if (!stored && key === 'ANTHROPIC_API_KEY') status = { loggedIn: true, authMethod: 'api_key', apiKeySource: key };
  else if (!stored && key !== undefined) status = { loggedIn: true, authMethod: 'oauth_token' };
  else return null;
  return JSON.stringify(status);
}

/**
 * Claude Code's login, asked once per invocation (a parent Claude Code session's variables
 * are dropped); with `probe.offlineLogins` (refine, resume), read offline when that is certain.
 */
export function claudeLogin(program: string, env: NodeJS.ProcessEnv, probe: Probe): Promise<LoginState> {
  const offline = probe.offlineLogins ? claudeStatusOffline(withoutParentSession(CLAUDE_CLI, env)) : null;
  if (offline !== null) return Promise.resolve(readClaudeStatus(offline, env));
  return probe.once(`login:claude:${program}:${env.CLAUDE_CONFIG_DIR ?? ''}`, async () => {
    const run = await quickInEmptyDir(program, ['auth', 'status', '--json'], withoutParentSession(CLAUDE_CLI, env), probe.signal);
    return readClaudeStatus(run.stdout, env);
  });
}
