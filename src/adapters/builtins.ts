/**
 * The built-in agents: the one list of them, and every lookup bounce makes by an agent's
 * name (its facts, its CLI, its login, its program), derived from it. Each agent is one
 * folder, `adapters/<name>/` (docs/architecture.md, "Adding an agent"); adding one is that
 * folder and one line here.
 */
import { a2a } from '../../adapters/a2a/agent.js';
import { anthropic } from '../../adapters/anthropic/agent.js';
import { claude } from '../../adapters/claude/agent.js';
import { codex } from '../../adapters/codex/agent.js';
import { gemini } from '../../adapters/gemini/agent.js';
import { human } from '../../adapters/human/agent.js';
import { mock } from '../../adapters/mock/agent.js';
import { openai } from '../../adapters/openai/agent.js';
import { opencode } from '../../adapters/opencode/agent.js';
import type { AdapterProgram } from '../kit/adapter-kit.js';
import { type BuiltinAgent, type CliAgent, isCliAgent } from '../kit/agent.js';
import type { AdapterFacts, CliFacts } from '../kit/facts.js';

/** In the order `bounce adapters` lists them; the CLIs among them in the order default detection considers them. */
const BUILTINS = [claude, codex, gemini, opencode, openai, anthropic, a2a, mock, human] as const;

type Builtin = (typeof BUILTINS)[number];
export type BuiltinName = Builtin['facts']['name'];
/** The built-in agents that run a CLI. */
export type CliName = Extract<Builtin, CliAgent>['facts']['name'];

export const BUILTIN_NAMES: readonly BuiltinName[] = BUILTINS.map((a) => a.facts.name);

/** The built-in adapters' facts in the order `bounce adapters` lists them. */
export const BUILTIN_ADAPTERS: readonly AdapterFacts[] = BUILTINS.map((a) => a.facts);

/** Each built-in's facts by name. */
export const ADAPTER_TABLE = Object.fromEntries(BUILTINS.map((a) => [a.facts.name, a.facts])) as {
  readonly [N in BuiltinName]: Extract<Builtin, BuiltinAgent<N>>['facts'];
};

const CLI_AGENTS = BUILTINS.filter((a): a is Extract<Builtin, CliAgent> => isCliAgent(a));

/** The CLI adapters, in the order default detection considers them (docs/adapters.md#default-agents-and-logins). */
export const DEFAULT_CLIS: readonly CliName[] = CLI_AGENTS.map((a) => a.facts.name);

export function isBuiltin(name: string): name is BuiltinName {
  return (BUILTIN_NAMES as readonly string[]).includes(name);
}

function agentOf(name: BuiltinName): BuiltinAgent {
  const agent = BUILTINS.find((a) => a.facts.name === name);
  if (!agent) throw new Error(`no built-in adapter ${name}`);
  return agent;
}

export function adapterInfo(name: string): AdapterFacts | undefined {
  return isBuiltin(name) ? agentOf(name).facts : undefined;
}

function cliAgent(name: CliName): CliAgent {
  const agent = agentOf(name);
  if (!isCliAgent(agent)) throw new Error(`${name} has no CLI`);
  return agent;
}

/** The CLI facts of a CLI adapter. */
export function cliFacts(name: CliName): CliFacts {
  return cliAgent(name).facts.cliProgram;
}

/** How a CLI adapter's login is asked, offline. */
export function cliLogin(name: CliName): CliAgent['login'] {
  return cliAgent(name).login;
}

/** The variables the built-in `name`'s own config names as key holders; none for most. */
export function configKeyEnvs(name: BuiltinName, env: NodeJS.ProcessEnv): string[] {
  return agentOf(name).configKeyEnvs?.(env) ?? [];
}

/** The built-in adapter called `name`, loaded the first time it is called or checked; asking for another name is a bug. */
export async function loadBuiltin(name: string): Promise<AdapterProgram> {
  if (!isBuiltin(name)) throw new Error(`no built-in adapter ${name}`);
  return (await agentOf(name).load()).adapter;
}

/** The CLI agent whose MCP client introduces itself as `clientName` (`initialize`'s `clientInfo.name`), or null: `bounce mcp`'s caller. */
export function cliOfMcpClient(clientName: string): CliName | null {
  const name = clientName.trim().toLowerCase();
  return CLI_AGENTS.find((a) => a.facts.cliProgram.mcpClientNames.includes(name))?.facts.name ?? null;
}
