import type { Config } from '../config/schema.js';
import { usageError } from '../errors.js';
import type { Role } from './contract.js';
import { createProbe, findProgram, localModels, type Probe } from './detect.js';
import { resolveAgent, type ResolvedAgent } from './registry.js';
import { ADAPTER_TABLE, cliFacts } from './table.js';

export interface Chosen {
  agents: Record<Role, ResolvedAgent>;
  chosenBy: Record<Role, string>;
}

export interface ChooseInput {
  flags: Partial<Record<Role, string>>;
  config: Config;
  configDir: string | null;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** This invocation's probe: the `--version` asked here is not asked again by the check. */
  probe?: Probe;
}

/**
 * Picks each role's agent: the flag, else the config, else the defaults (reviewer
 * claude, composer codex; one installed CLI takes both roles; with neither, a local
 * OpenAI-compatible server on its default port).
 */
export async function chooseAgents(input: ChooseInput): Promise<Chosen> {
  const { flags, config, configDir, cwd, env } = input;
  const specs: Partial<Record<Role, string>> = {};
  const chosenBy: Record<Role, string> = { reviewer: 'default', composer: 'default' };
  for (const role of ['reviewer', 'composer'] as const) {
    const fromFlag = flags[role];
    const fromConfig = config[role];
    if (fromFlag !== undefined && fromFlag.trim() === '')
      throw usageError(`--${role} is empty`, 'name an agent, e.g. claude, codex, openai:<model> or mock (see bounce adapters)', 'usage');
    if (fromFlag) [specs[role], chosenBy[role]] = [fromFlag, 'flag'];
    else if (fromConfig) [specs[role], chosenBy[role]] = [fromConfig, 'config'];
  }
  if (!specs.reviewer || !specs.composer) {
    const defaults = await detectDefaults(env, config, input.probe ?? createProbe());
    specs.reviewer ??= defaults.reviewer;
    specs.composer ??= defaults.composer;
    for (const role of ['reviewer', 'composer'] as const) if (chosenBy[role] === 'default') chosenBy[role] = defaults.how;
  }
  return {
    agents: {
      reviewer: resolveAgent(specs.reviewer, config, cwd, configDir),
      composer: resolveAgent(specs.composer as string, config, cwd, configDir),
    },
    chosenBy,
  };
}

async function detectDefaults(env: NodeJS.ProcessEnv, config: Config, probe: Probe): Promise<{ reviewer: string; composer: string; how: string }> {
  const installed = async (name: 'claude' | 'codex'): Promise<boolean> => {
    const program = findProgram(cliFacts(name), env);
    return program !== null && (await probe.version(program, env)) !== null;
  };
  const [claude, codex] = await Promise.all([installed('claude'), installed('codex')]);
  if (claude && codex) return { reviewer: 'claude', composer: 'codex', how: 'default' };
  if (claude) return { reviewer: 'claude', composer: 'claude', how: 'default (only claude is installed)' };
  if (codex) return { reviewer: 'codex', composer: 'codex', how: 'default (only codex is installed)' };
  const openai = ADAPTER_TABLE.openai;
  const base = (openai.baseUrlEnv && env[openai.baseUrlEnv]) || (openai.defaultBaseUrl ?? '');
  const models = await localModels(base);
  if (models) {
    // The model the user configured for a local openai agent on this server, else the first one listed.
    const configured = Object.entries(config.agents).find(
      ([, a]) => a.adapter === 'openai' && a.model && (a.base_url ?? base).replace(/\/+$/, '') === base.replace(/\/+$/, ''),
    );
    const spec = configured ? configured[0] : models[0] ? `openai:${models[0]}` : null;
    if (spec) return { reviewer: spec, composer: spec, how: `default (local server at ${base})` };
  }
  throw usageError(
    `no agent found: looked for the claude and codex CLIs on PATH and an OpenAI-compatible server at ${base}`,
    `install one (npm i -g ${cliFacts('claude').npmPackage}, or npm i -g ${cliFacts('codex').npmPackage}), start Ollama, or name agents with --reviewer/--composer (see bounce adapters)`,
    'config',
  );
}
