/**
 * What bounce reads from Codex's own config.toml (`$CODEX_HOME/config.toml`, default
 * `~/.codex/config.toml`): the providers it defines, its top-level settings and the
 * variables it names as key holders. A line-based reading, enough for these few keys.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { userHome } from '../../src/kit/jsonc.js';

/** Providers built into codex: their settings cannot be overridden with -c. */
const BUILTIN_PROVIDERS = ['openai', 'ollama', 'lmstudio'];

export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME?.trim() || join(userHome(env), '.codex');
}

export function readCodexConfig(env: NodeJS.ProcessEnv): string {
  try {
    return readFileSync(join(codexHome(env), 'config.toml'), 'utf8');
  } catch {
    return '';
  }
}

/** Ids of `[model_providers.<id>]` tables in config.toml (ids usable as a bare -c key only). */
export function customProviderIds(toml: string): string[] {
  const ids = new Set<string>();
  for (const m of toml.matchAll(/^\s*\[\s*model_providers\s*\.\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_-]+))\s*[\].]/gm)) ids.add(m[1] ?? m[2] ?? m[3] ?? '');
  return [...ids].filter((id) => /^[A-Za-z0-9_-]+$/.test(id) && !BUILTIN_PROVIDERS.includes(id));
}

/** Ids of `[mcp_servers.<id>]` tables in config.toml (ids usable as a bare -c key only). */
export function mcpServerIds(toml: string): string[] {
  const ids = new Set<string>();
  for (const m of toml.matchAll(/^\s*\[\s*mcp_servers\s*\.\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_-]+))\s*[\].]/gm)) ids.add(m[1] ?? m[2] ?? m[3] ?? '');
  return [...ids].filter((id) => /^[A-Za-z0-9_-]+$/.test(id));
}

/** A top-level string setting of config.toml (before the first table), e.g. `model`. */
export function topLevelSetting(toml: string, key: string): string | null {
  const head = toml.split(/^\s*\[/m)[0] ?? '';
  const m = new RegExp(`^\\s*${key}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'm').exec(head);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/** The variables config.toml names as key holders (`env_key = "..."`): their values are blanked from stderr. */
export function keyVariables(toml: string): string[] {
  return [...toml.matchAll(/^\s*env_key\s*=\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/gm)].map((m) => m[1] ?? '');
}
