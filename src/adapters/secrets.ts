/**
 * The key values a run's agents may read, so that the recorder can blank them from
 * everything it writes. Names come from the agents' `api_key_env`, the adapter table,
 * Codex's config.toml and opencode's config (`{env:NAME}`); only the values of the variables that are set are returned.
 */
import { secretsOf } from '../redact.js';
import type { ResolvedAgent } from './registry.js';
import { BUILTIN_ADAPTERS, BUILTIN_NAMES, configKeyEnvs } from './builtins.js';

/**
 * The names of every variable the agents may read a key from. A `cmd:` program inherits
 * the whole environment and may run any CLI, so every built-in's key variables count for
 * every run; some CLIs' own config names more (Codex's custom providers, opencode's `{env:NAME}`).
 */
export function secretNames(agents: readonly ResolvedAgent[], env: NodeJS.ProcessEnv): string[] {
  const names = new Set<string>(BUILTIN_ADAPTERS.flatMap((a) => [...a.keyEnvs, ...(a.defaultKeyEnv ? [a.defaultKeyEnv] : [])]));
  for (const agent of agents) if (agent.options.api_key_env) names.add(agent.options.api_key_env);
  for (const builtin of BUILTIN_NAMES)
    if (agents.some((a) => a.adapter === builtin || a.adapter === 'cmd')) for (const name of configKeyEnvs(builtin, env)) names.add(name);
  return [...names];
}

/**
 * The values of those variables that are set to something other than blanks, each as set
 * and trimmed (the adapters send it trimmed), deduplicated, longest first so that replacing
 * them in order never leaves part of a longer one.
 */
export function secretValues(agents: readonly ResolvedAgent[], env: NodeJS.ProcessEnv): string[] {
  const values = new Set<string>();
  for (const name of secretNames(agents, env)) {
    const value = env[name];
    if (value === undefined) continue;
    for (const v of [value, value.trim()]) if (v.trim() !== '') values.add(v);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** What the recorder blanks for a run of these two agents (and any other it calls, a judge): their key values worth looking for (redact.ts's secretsOf). */
export function runSecrets(
  agents: { reviewer: ResolvedAgent; composer: ResolvedAgent },
  env: NodeJS.ProcessEnv,
  others: readonly ResolvedAgent[] = [],
): string[] {
  return secretsOf(secretValues([agents.reviewer, agents.composer, ...others], env));
}

/** Variable names that hold a credential by any common convention (`*_API_KEY`, `GITHUB_TOKEN`, `PGPASSWORD`, ...). */
const CREDENTIAL_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i;

/**
 * The environment a check command gets (config `checks:`): bounce's own, less every variable
 * the agents may read a key from and every variable whose name says it holds a credential.
 * A linter needs PATH, HOME and its own settings, never a key.
 */
export function withoutSecrets(env: NodeJS.ProcessEnv, agents: readonly ResolvedAgent[]): NodeJS.ProcessEnv {
  const names = new Set(secretNames(agents, env));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !names.has(name) && !CREDENTIAL_NAME.test(name)));
}
