/**
 * What bounce reads from opencode's own configuration, offline: its MCP servers, model,
 * permissions and the variables its config reads keys from, and the providers it holds a
 * stored login for. Only names are kept, never a value.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pushAll } from '../../src/arrays.js';
import { jsonObject, readJsonc, userHome } from '../../src/kit/jsonc.js';

/** opencode's global config folder: `$XDG_CONFIG_HOME/opencode`, default `~/.config/opencode`. */
export function opencodeConfigDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME?.trim() || join(userHome(env), '.config'), 'opencode');
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
    pushAll(out.providers, Object.keys(jsonObject(config.provider)));
    pushAll(out.mcpServers, Object.keys(jsonObject(config.mcp)));
    pushAll(out.permissions, Object.keys(jsonObject(config.permission)));
    pushAll(out.tools, Object.keys(jsonObject(config.tools)));
    for (const [agent, settings] of Object.entries(jsonObject(config.agent))) {
      const keys = Object.keys(jsonObject(jsonObject(settings).permission));
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
  const dir = join(env.XDG_DATA_HOME?.trim() || join(userHome(env), '.local', 'share'), 'opencode');
  const stored = readJsonc(join(dir, 'auth.json')) ?? {};
  return Object.fromEntries(
    Object.entries(stored).map(([id, entry]) => [id, typeof jsonObject(entry).type === 'string' ? (jsonObject(entry).type as string) : 'unknown']),
  );
}
