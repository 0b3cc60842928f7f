/**
 * Whether a CLI is logged in, and how, offline. Claude Code answers `claude auth status`
 * (JSON, about a second, no network); Codex answers `codex login status` for its stored
 * login (a fraction of a second, no network) but not for CODEX_API_KEY, which `codex exec`
 * reads, nor for a custom provider's `env_key`. Only names are kept, never a value: the
 * output of `codex login status` shows part of a stored key and is thrown away.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckProblem } from '../contract/contract.js';
import { geminiAuthType, geminiLoginStored, geminiVariableSet, opencodeStoredLogins, readOpencodeConfig } from './cli-config.js';
import { customProviderIds, readCodexConfig, topLevelSetting } from './codex-config.js';
import { type Probe, probeTimeoutMs, runQuick } from './detect.js';
import { ADAPTER_TABLE, cliFacts, withoutParentSession } from './table.js';
import { ownValue } from '../own.js';

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

const QUICK_MS = 15_000;
const CLAUDE_KEYS = ADAPTER_TABLE.claude.keyEnvs;
/** How to give Claude Code a login: the fix of every claude credentials problem, at the check or at a dispatch. */
export const CLAUDE_LOGIN_FIX = 'run `claude` once and /login, or set ANTHROPIC_API_KEY (in CI: CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`)';

/** A command run in a fresh empty directory, so that no project settings around the runner's cwd count. */
async function quickInEmptyDir(
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
const claudeConfigDir = (env: NodeJS.ProcessEnv): string => env.CLAUDE_CONFIG_DIR?.trim() || join(env.HOME || homedir(), '.claude');

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
  const offline = probe.offlineLogins ? claudeStatusOffline(withoutParentSession(cliFacts('claude'), env)) : null;
  if (offline !== null) return Promise.resolve(readClaudeStatus(offline, env));
  return probe.once(`login:claude:${program}:${env.CLAUDE_CONFIG_DIR ?? ''}`, async () => {
    const run = await quickInEmptyDir(program, ['auth', 'status', '--json'], withoutParentSession(cliFacts('claude'), env), probe.signal);
    return readClaudeStatus(run.stdout, env);
  });
}

/** Codex's login for the provider config.toml selects. */
export function codexLogin(program: string, env: NodeJS.ProcessEnv, probe: Probe): Promise<LoginState> {
  const toml = readCodexConfig(env);
  const provider = topLevelSetting(toml, 'model_provider') ?? 'openai';
  if (customProviderIds(toml).includes(provider)) return Promise.resolve(providerLogin(toml, provider, env));
  const apiKey = env.CODEX_API_KEY?.trim();
  if (apiKey) return Promise.resolve({ loggedIn: true, auth: 'api_key', source: 'CODEX_API_KEY', findings: [] });
  return probe.once(`login:codex:${program}:${env.CODEX_HOME ?? ''}`, async () => {
    const run = await quickInEmptyDir(program, ['login', 'status'], env, probe.signal);
    return readCodexStatus(run.exitCode, run.stdout, env);
  });
}

/** `codex login status`: exit 0 with "Logged in using ChatGPT" or "API key configured", else 1 "Not logged in". */
export function readCodexStatus(exitCode: number | null, stdout: string, env: NodeJS.ProcessEnv): LoginState {
  if (exitCode === 0) {
    if (/chatgpt/i.test(stdout)) return { loggedIn: true, auth: 'subscription', source: 'codex login', findings: [] };
    if (/api key/i.test(stdout)) return { loggedIn: true, auth: 'api_key', source: 'codex login', findings: [] };
    return { loggedIn: true, auth: 'unknown', source: 'codex login', findings: [] };
  }
  if (exitCode === null) {
    const unverified = {
      kind: 'login_unverified' as const,
      severity: 'warning' as const,
      message: '`codex login status` did not answer',
      fix: 'run `codex login status` to see why',
    };
    return { loggedIn: null, auth: 'unknown', source: null, findings: [unverified] };
  }
  // Codex 0.171 reads a key from CODEX_API_KEY or its stored login, not from OPENAI_API_KEY.
  const fix = env.OPENAI_API_KEY?.trim()
    ? 'codex does not read OPENAI_API_KEY: run `printenv OPENAI_API_KEY | codex login --with-api-key`, or set CODEX_API_KEY'
    : 'run `codex login` (or set CODEX_API_KEY), or define a model provider in $CODEX_HOME/config.toml';
  return {
    loggedIn: false,
    auth: 'none',
    source: null,
    findings: [{ kind: 'credentials', severity: 'problem', message: 'codex is not logged in (`codex login status`)', fix }],
  };
}

function providerLogin(toml: string, provider: string, env: NodeJS.ProcessEnv): LoginState {
  const keyVar = new RegExp(`\\[\\s*model_providers\\.["']?${provider}["']?\\s*\\][^[]*?env_key\\s*=\\s*["']([A-Za-z_][A-Za-z0-9_]*)`).exec(toml)?.[1];
  if (!keyVar) return { loggedIn: true, auth: 'none', source: null, findings: [] };
  if (env[keyVar]?.trim()) return { loggedIn: true, auth: 'api_key', source: keyVar, findings: [] };
  const problem = {
    kind: 'credentials' as const,
    severity: 'problem' as const,
    message: `model provider ${provider} reads its key from ${keyVar}, which is not set`,
    fix: `set ${keyVar}`,
  };
  return { loggedIn: false, auth: 'none', source: null, findings: [problem] };
}

const GEMINI_LOGIN_FIX =
  'set GEMINI_API_KEY, or run `gemini` once and choose Login with Google (Vertex AI: GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_API_KEY, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION)';

const unverified = (message: string, fix: string): LoginState => ({
  loggedIn: null,
  auth: 'unknown',
  source: null,
  findings: [{ kind: 'login_unverified', severity: 'warning', message, fix }],
});
const noLogin = (message: string, fix: string): LoginState => ({
  loggedIn: false,
  auth: 'none',
  source: null,
  findings: [{ kind: 'credentials', severity: 'problem', message, fix }],
});

/**
 * Gemini CLI's credentials, read offline the way its headless mode picks them: the auth
 * method from the user's settings (else from the environment), then what that method
 * needs (GEMINI_API_KEY, GOOGLE_API_KEY or a Google Cloud project for Vertex AI, a stored
 * Google login). A key or login the CLI keeps in the system keychain cannot be seen: a warning.
 */
export function geminiLogin(env: NodeJS.ProcessEnv): Promise<LoginState> {
  const { type } = geminiAuthType(env);
  const ok = (auth: AuthMethod, source: string | null): LoginState => ({ loggedIn: true, auth, source, findings: [] });
  const state = ((): LoginState => {
    switch (type) {
      case null:
        return noLogin('Gemini CLI has no auth method (no security.auth.selectedType in its settings, no GEMINI_API_KEY)', GEMINI_LOGIN_FIX);
      case 'gemini-api-key':
      case 'gateway':
        if (geminiVariableSet('GEMINI_API_KEY', env)) return ok('api_key', 'GEMINI_API_KEY');
        return type === 'gateway'
          ? ok('unknown', 'GOOGLE_GEMINI_BASE_URL')
          : unverified('GEMINI_API_KEY is not set: a key Gemini CLI stored itself cannot be verified offline', GEMINI_LOGIN_FIX);
      case 'vertex-ai':
        if (geminiVariableSet('GOOGLE_API_KEY', env)) return ok('api_key', 'GOOGLE_API_KEY');
        if (geminiVariableSet('GOOGLE_CLOUD_PROJECT', env) && geminiVariableSet('GOOGLE_CLOUD_LOCATION', env)) return ok('cloud', 'GOOGLE_CLOUD_PROJECT');
        return noLogin(
          'Gemini CLI is set to Vertex AI but neither GOOGLE_API_KEY nor GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION are set',
          GEMINI_LOGIN_FIX,
        );
      case 'oauth-personal':
        if (geminiLoginStored(env)) return ok('subscription', 'gemini login');
        return unverified(
          'Gemini CLI is set to Login with Google but no stored login was found (one in the system keychain cannot be seen offline)',
          GEMINI_LOGIN_FIX,
        );
      case 'compute-default-credentials':
      case 'cloud-shell':
        return ok('cloud', type);
      default:
        return unverified(`Gemini CLI's auth method ${String(type)} cannot be verified offline`, GEMINI_LOGIN_FIX);
    }
  })();
  return Promise.resolve(state);
}

/** The variables opencode reads a built-in provider's key from. */
const OPENCODE_PROVIDER_KEYS: Record<string, string[]> = {
  anthropic: ['ANTHROPIC_API_KEY'],
  openai: ['OPENAI_API_KEY'],
  google: ['GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'],
  openrouter: ['OPENROUTER_API_KEY'],
  opencode: ['OPENCODE_API_KEY'],
};

/**
 * opencode's credential for the provider of `model` (`provider/model`, else the config's
 * `model`), offline: a login stored by `opencode auth login`, the provider's key variable,
 * or a provider the user's config defines (its own options say how it authenticates).
 */
export function opencodeLogin(model: string | null, env: NodeJS.ProcessEnv): Promise<LoginState> {
  const config = readOpencodeConfig(env);
  const provider = (model ?? config.model)?.split('/')[0] ?? null;
  const stored = opencodeStoredLogins(env);
  const fix = (p: string): string =>
    `run \`opencode auth login\`${ownValue(OPENCODE_PROVIDER_KEYS, p) ? ` or set ${ownValue(OPENCODE_PROVIDER_KEYS, p)?.join(' or ')}` : ''}, or name another model (opencode:<provider>/<model>)`;
  const state = ((): LoginState => {
    if (!provider) {
      if (Object.keys(stored).length || config.providers.length) return { loggedIn: true, auth: 'unknown', source: 'opencode auth', findings: [] };
      return unverified(
        'opencode names no model and has no stored login: what it will use cannot be verified offline',
        'run `opencode auth login`, or name a model (opencode:<provider>/<model>)',
      );
    }
    const kind = ownValue(stored, provider);
    if (kind) return { loggedIn: true, auth: kind === 'oauth' ? 'subscription' : 'api_key', source: 'opencode auth login', findings: [] };
    const variable = ownValue(OPENCODE_PROVIDER_KEYS, provider)?.find((name) => env[name]?.trim());
    if (variable) return { loggedIn: true, auth: 'api_key', source: variable, findings: [] };
    if (config.providers.includes(provider)) return { loggedIn: true, auth: 'unknown', source: 'opencode.json', findings: [] };
    if (ownValue(OPENCODE_PROVIDER_KEYS, provider)) return noLogin(`opencode has no credential for provider ${provider}`, fix(provider));
    return unverified(`opencode's credential for provider ${provider} cannot be verified offline`, fix(provider));
  })();
  return Promise.resolve(state);
}

/** A login state as a check result's findings and `resolved` entries (names only). */
export function loginReport(state: LoginState): { problems: CheckProblem[]; warnings: CheckProblem[]; resolved: Record<string, string> } {
  const strip = ({ severity: _s, ...p }: LoginState['findings'][number]): CheckProblem => p;
  return {
    problems: state.findings.filter((f) => f.severity === 'problem').map(strip),
    warnings: state.findings.filter((f) => f.severity === 'warning').map(strip),
    resolved: { auth: state.auth, ...(state.source ? { auth_source: state.source } : {}) },
  };
}
