import type { AdapterKind } from '../vocabulary.js';
import type { AgentOptions } from '../contract/contract.js';

/** The CLI a built-in adapter runs, and how a user points bounce at another copy of it. */
export interface CliFacts {
  /** The program name looked up on PATH. */
  program: string;
  /** `BOUNCE_<CLI>_BIN`: a path or a name that replaces `program`. */
  binEnv: string;
  /** The npm package that installs it. */
  npmPackage: string;
  /** Variables a parent session of the same CLI sets: inherited, they make a nested run misbehave; never passed on. */
  parentSessionEnvs: readonly string[];
  /**
   * The names the CLI's MCP client gives in `initialize` (`clientInfo.name`): a `bounce mcp`
   * client by one of them is this agent, which `bounce_refine` does not run unless asked (src/mcp/).
   */
  mcpClientNames: readonly string[];
}

/**
 * What bounce knows about a built-in adapter without loading its program: its row of the
 * table `bounce adapters` prints. Each agent declares its own in `adapters/<name>/facts.ts`;
 * `src/adapters/builtins.ts` lists them.
 */
export interface AdapterFacts<N extends string = string> {
  name: N;
  description: string;
  kind: AdapterKind;
  provider: string;
  /**
   * Who makes the models it runs (`anthropic`, `openai`, `google`, ...), when the adapter alone
   * says so; null when the model's name decides (an OpenAI-compatible server, opencode).
   */
  family: string | null;
  /** Options the adapter reads; anything else in config is rejected. */
  options: readonly (keyof AgentOptions)[];
  /** The model used when none is configured; null: the adapter needs one (openai) or its CLI decides. */
  defaultModel: string | null;
  /** The endpoint used when neither base_url nor `baseUrlEnv` is set; null: not an HTTP adapter. */
  defaultBaseUrl: string | null;
  /** The variable that overrides `defaultBaseUrl`. */
  baseUrlEnv: string | null;
  /** Output budget in tokens when max_output_tokens is not set; null: the provider decides. */
  outputTokens: number | null;
  cliProgram: CliFacts | null;
  /** The variable named by api_key_env when that option is not set; null: the adapter takes no api_key_env. */
  defaultKeyEnv: string | null;
  /** Every variable the adapter (or its CLI) reads a credential from: their values are blanked from stderr. */
  keyEnvs: readonly string[];
}

/** The facts of an adapter that runs a CLI. */
export interface CliAdapterFacts<N extends string = string> extends AdapterFacts<N> {
  cliProgram: CliFacts;
}

/** `env` without the variables of a parent session of the CLI. */
export function withoutParentSession(cli: CliFacts, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of cli.parentSessionEnvs) delete out[name];
  return out;
}

/** The values of the adapter's credential variables, to blank out of what it passes on. */
export function secretsOf(facts: AdapterFacts, env: NodeJS.ProcessEnv, extraNames: readonly string[] = []): string[] {
  return [...facts.keyEnvs, ...extraNames].map((name) => env[name] ?? '').filter((v) => v.trim() !== '');
}
