/**
 * What bounce reads from the Gemini CLI's and opencode's own configuration, offline: the
 * user's settings files (JSON with comments), which auth method Gemini CLI will use,
 * opencode's MCP servers, model and the variables its config reads keys from. Only names
 * are kept, never a value.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pushAll } from '../arrays.js';

/** A JSON-with-comments file (both CLIs accept `//`, block comments and trailing commas); null when absent or unreadable. */
export function readJsonc(path: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const plain = text.replace(/("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_m, str: string | undefined) => str ?? '').replace(/,(\s*[}\]])/g, '$1');
  try {
    const value: unknown = JSON.parse(plain);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const home = (env: NodeJS.ProcessEnv): string => env.HOME || homedir();
const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** `~/.gemini`, or `$GEMINI_CLI_HOME/.gemini`, as Gemini CLI finds it. */
export function geminiDir(env: NodeJS.ProcessEnv): string {
  return join(env.GEMINI_CLI_HOME?.trim() || home(env), '.gemini');
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
  const selected = obj(obj(settings.security).auth).selectedType ?? settings.selectedAuthType;
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
  for (const file of [join(geminiDir(env), '.env'), join(home(env), '.env')]) {
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

/** opencode's global config folder: `$XDG_CONFIG_HOME/opencode`, default `~/.config/opencode`. */
export function opencodeConfigDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME?.trim() || join(home(env), '.config'), 'opencode');
}

/** The config files opencode loads outside a project: the global ones, then `OPENCODE_CONFIG`. */
export function opencodeConfigFiles(env: NodeJS.ProcessEnv): string[] {
  const dir = opencodeConfigDir(env);
  const files = ['config.json', 'opencode.json', 'opencode.jsonc'].map((name) => join(dir, name));
  if (env.OPENCODE_CONFIG?.trim()) files.push(env.OPENCODE_CONFIG.trim());
  return files.filter((f) => existsSync(f));
}

export interface OpencodeConfig {
  /** The top-level `model` (`provider/model`), the last one set. */
  model: string | null;
  /** Provider ids the config defines under `provider`. */
  providers: string[];
  /** Ids of the MCP servers under `mcp`. */
  mcpServers: string[];
  /** Variables the config reads with `{env:NAME}` (keys, mostly). */
  envRefs: string[];
  /** The keys of its top-level `permission` rules (tool names, `*`). */
  permissions: string[];
  /** Per agent that sets its own `permission`, those rules' keys. */
  agentPermissions: Record<string, string[]>;
  /** The keys of the older `tools` switches. */
  tools: string[];
}

export function readOpencodeConfig(env: NodeJS.ProcessEnv): OpencodeConfig {
  const out: OpencodeConfig = { model: null, providers: [], mcpServers: [], envRefs: [], permissions: [], agentPermissions: {}, tools: [] };
  for (const file of opencodeConfigFiles(env)) {
    const config = readJsonc(file);
    if (!config) continue;
    if (typeof config.model === 'string' && config.model) out.model = config.model;
    pushAll(out.providers, Object.keys(obj(config.provider)));
    pushAll(out.mcpServers, Object.keys(obj(config.mcp)));
    pushAll(out.permissions, Object.keys(obj(config.permission)));
    pushAll(out.tools, Object.keys(obj(config.tools)));
    for (const [agent, settings] of Object.entries(obj(config.agent))) {
      const keys = Object.keys(obj(obj(settings).permission));
      if (keys.length) out.agentPermissions[agent] = [...(out.agentPermissions[agent] ?? []), ...keys];
    }
    try {
      for (const m of readFileSync(file, 'utf8').matchAll(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)) out.envRefs.push(m[1] ?? '');
    } catch {
      // read above
    }
  }
  const unique = (xs: string[]): string[] => [...new Set(xs.filter(Boolean))];
  return {
    ...out,
    providers: unique(out.providers),
    mcpServers: unique(out.mcpServers),
    envRefs: unique(out.envRefs),
    permissions: unique(out.permissions),
    tools: unique(out.tools),
  };
}

/**
 * Provider ids with a credential stored by `opencode auth login`
 * (`$XDG_DATA_HOME/opencode/auth.json`), each with its kind (`api`, `oauth`); never a value.
 */
export function opencodeStoredLogins(env: NodeJS.ProcessEnv): Record<string, string> {
  const dir = join(env.XDG_DATA_HOME?.trim() || join(home(env), '.local', 'share'), 'opencode');
  const stored = readJsonc(join(dir, 'auth.json')) ?? {};
  return Object.fromEntries(Object.entries(stored).map(([id, entry]) => [id, typeof obj(entry).type === 'string' ? (obj(entry).type as string) : 'unknown']));
}
