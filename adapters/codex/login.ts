/**
 * Whether Codex is logged in, and how, offline. Codex answers `codex login status` for its
 * stored login (a fraction of a second, no network) but not for CODEX_API_KEY, which
 * `codex exec` reads, nor for a custom provider's `env_key`. Only names are kept, never a
 * value: the output of `codex login status` shows part of a stored key and is thrown away.
 */
import type { Probe } from '../../src/kit/detect.js';
import { type LoginState, quickInEmptyDir } from '../../src/kit/login.js';
import { customProviderIds, readCodexConfig, topLevelSetting } from './config.js';

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
