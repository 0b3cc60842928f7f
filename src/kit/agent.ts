/**
 * What one built-in agent brings to bounce: the shape of the entry each folder
 * `adapters/<name>/` exports from its `agent.ts`, and `src/adapters/builtins.ts` lists.
 */
import type { AdapterProgram } from './adapter-kit.js';
import type { AdapterFacts, CliAdapterFacts } from './facts.js';
import type { CliLogin } from './login.js';

export interface BuiltinAgent<N extends string = string> {
  facts: AdapterFacts<N>;
  /** Its program's module, loaded the first time the agent is called or checked (never at start-up). */
  load(): Promise<{ adapter: AdapterProgram }>;
  /** The variables its CLI's own config names as key holders (their values are blanked from what a run writes). */
  configKeyEnvs?(env: NodeJS.ProcessEnv): string[];
}

/** An agent that runs a CLI: one of the defaults bounce looks for, with its login asked offline. */
export interface CliAgent<N extends string = string> extends BuiltinAgent<N> {
  facts: CliAdapterFacts<N>;
  login: CliLogin;
}

export function isCliAgent(agent: BuiltinAgent): agent is CliAgent {
  return 'login' in agent;
}
