/**
 * A Claude Code config folder, a Gemini CLI home and an opencode config that point the real CLIs at the scripted model
 * server, as a user's own would point them at a provider. No key is written: the tests pass
 * keys in the environment (GEMINI_API_KEY, BOUNCE_TEST_OPENCODE_KEY).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The opencode provider and model the scripted server serves: `opencode:stub/mock-model`. */
export const OPENCODE_MODEL = 'stub/mock-model';

/**
 * `<home>/.gemini/settings.json` choosing API-key auth (Gemini CLI's headless mode would
 * otherwise pick its gateway auth for GOOGLE_GEMINI_BASE_URL); `extra` is merged in.
 */
export function writeGeminiHome(home: string, extra: Record<string, unknown> = {}): void {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, ...extra }));
}

/** `<configHome>/opencode/opencode.json` with one OpenAI-compatible provider on the server; `extra` is merged in. */
export function writeOpencodeConfig(configHome: string, serverUrl: string, extra: Record<string, unknown> = {}): void {
  mkdirSync(join(configHome, 'opencode'), { recursive: true });
  const provider = {
    stub: {
      npm: '@ai-sdk/openai-compatible',
      name: 'Bounce test',
      options: { baseURL: `${serverUrl}/v1`, apiKey: '{env:BOUNCE_TEST_OPENCODE_KEY}' },
      models: { 'mock-model': {} },
    },
  };
  writeFileSync(join(configHome, 'opencode', 'opencode.json'), JSON.stringify({ provider, ...extra }));
}

/** Environment for both CLIs under `home`: their config, data and cache stay there; no model list is fetched. */
export function cliHomeEnv(home: string, serverUrl: string): Record<string, string> {
  return {
    HOME: home,
    GOOGLE_GEMINI_BASE_URL: serverUrl,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    // opencode fetches its model catalogue from models.dev at start: not from a test.
    OPENCODE_DISABLE_MODELS_FETCH: '1',
  };
}

/**
 * `<configDir>/.credentials.json` as a stored Claude subscription login leaves it (Linux): an
 * OAuth token that has not expired, of the given plan. The token is a fake; no key is written.
 */
export function writeClaudeSubscription(configDir: string, subscriptionType: 'pro' | 'max'): void {
  mkdirSync(configDir, { recursive: true });
  const oauth = {
    accessToken: 'sk-ant-oat01-FAKE',
    refreshToken: 'sk-ant-ort01-FAKE',
    expiresAt: Date.now() + 86_400_000,
    scopes: ['user:inference'],
    subscriptionType,
  };
  writeFileSync(join(configDir, '.credentials.json'), JSON.stringify({ claudeAiOauth: oauth }));
}
