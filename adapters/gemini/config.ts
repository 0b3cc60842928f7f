/**
 * What bounce reads from Gemini CLI's own configuration, offline: its settings, which auth
 * method it will use headless, the `.env` files it loads. Only names are kept, never a value.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonObject, readJsonc, userHome } from '../../src/kit/jsonc.js';

/** `~/.gemini`, or `$GEMINI_CLI_HOME/.gemini`, as Gemini CLI finds it. */
export function geminiDir(env: NodeJS.ProcessEnv): string {
  return join(env.GEMINI_CLI_HOME?.trim() || userHome(env), '.gemini');
}

/** Gemini CLI's auth types (`security.auth.selectedType`). */
export type GeminiAuthType = 'gemini-api-key' | 'vertex-ai' | 'oauth-personal' | 'compute-default-credentials' | 'cloud-shell' | 'gateway';

/**
 * The auth method Gemini CLI will use headless: the user's `security.auth.selectedType`,
 * else the one its environment implies, in the CLI's own order (GOOGLE_GENAI_USE_GCA,
 * GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY, Cloud Shell).
 */
export function geminiAuthType(env: NodeJS.ProcessEnv): { type: GeminiAuthType | null; from: 'settings' | 'environment' | null } {
  const settings = readJsonc(join(geminiDir(env), 'settings.json')) ?? {};
  const selected = jsonObject(jsonObject(settings.security).auth).selectedType ?? settings.selectedAuthType;
  if (typeof selected === 'string' && selected) return { type: selected as GeminiAuthType, from: 'settings' };
  const type: GeminiAuthType | null =
    env.GOOGLE_GENAI_USE_GCA === 'true'
      ? 'oauth-personal'
      : env.GOOGLE_GENAI_USE_VERTEXAI === 'true'
        ? 'vertex-ai'
        : env.GOOGLE_GEMINI_BASE_URL
          ? 'gateway'
          : env.GEMINI_API_KEY
            ? 'gemini-api-key'
            : env.CLOUD_SHELL === 'true' || env.GEMINI_CLI_USE_COMPUTE_ADC === 'true'
              ? 'compute-default-credentials'
              : null;
  return { type, from: type ? 'environment' : null };
}

/** True when the variable is set in the environment or in one of the `.env` files Gemini CLI loads (`~/.gemini/.env`, `~/.env`). */
export function geminiVariableSet(name: string, env: NodeJS.ProcessEnv): boolean {
  if (env[name]?.trim()) return true;
  const line = new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=\\s*\\S`, 'm');
  for (const file of [join(geminiDir(env), '.env'), join(userHome(env), '.env')]) {
    try {
      if (line.test(readFileSync(file, 'utf8'))) return true;
    } catch {
      // no such file
    }
  }
  return false;
}

/** A stored Google login (`gemini` then "Login with Google"): its token file exists. */
export function geminiLoginStored(env: NodeJS.ProcessEnv): boolean {
  return existsSync(join(geminiDir(env), 'oauth_creds.json'));
}
