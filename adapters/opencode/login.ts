/** Whether opencode has a credential for its model's provider, read offline. Only names are kept, never a value. */
import { type LoginState, noLogin, unverified } from '../../src/kit/login.js';
import { ownValue } from '../../src/own.js';
import { opencodeStoredLogins, readOpencodeConfig } from './config.js';

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
