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
}

/** What bounce knows about a built-in adapter without loading it. The one owner of these facts. */
export interface AdapterFacts {
  name: BuiltinName;
  description: string;
  kind: AdapterKind;
  provider: string;
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

export const BUILTIN_NAMES = ['claude', 'codex', 'gemini', 'opencode', 'openai', 'anthropic', 'mock'] as const;
export type BuiltinName = (typeof BUILTIN_NAMES)[number];

/** The CLI adapters, in the order default detection considers them (docs/adapters.md#default-agents-and-logins). */
export const DEFAULT_CLIS = ['claude', 'codex', 'gemini', 'opencode'] as const;
export type CliName = (typeof DEFAULT_CLIS)[number];

export const ADAPTER_TABLE: Readonly<Record<BuiltinName, AdapterFacts>> = {
  claude: {
    name: 'claude',
    description: 'Claude Code CLI (claude -p), uses your Claude login',
    kind: 'cli',
    provider: 'anthropic',
    options: ['model', 'max_output_tokens', 'max_budget_usd', 'args'],
    defaultModel: null,
    defaultBaseUrl: null,
    baseUrlEnv: 'ANTHROPIC_BASE_URL',
    outputTokens: 32_000,
    cliProgram: {
      program: 'claude',
      binEnv: 'BOUNCE_CLAUDE_BIN',
      npmPackage: '@anthropic-ai/claude-code',
      parentSessionEnvs: ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_CHILD_SESSION', 'CLAUDE_CODE_EXECPATH'],
    },
    defaultKeyEnv: null,
    keyEnvs: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
  },
  codex: {
    name: 'codex',
    description: 'Codex CLI (codex exec), uses your Codex login and config',
    kind: 'cli',
    provider: 'openai',
    options: ['model', 'args'],
    defaultModel: null,
    defaultBaseUrl: null,
    baseUrlEnv: null,
    outputTokens: null,
    cliProgram: { program: 'codex', binEnv: 'BOUNCE_CODEX_BIN', npmPackage: '@openai/codex', parentSessionEnvs: [] },
    defaultKeyEnv: null,
    keyEnvs: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  },
  gemini: {
    name: 'gemini',
    description: 'Gemini CLI (gemini -p), uses your Gemini API key, Vertex AI or Google login',
    kind: 'cli',
    provider: 'google',
    options: ['model', 'args'],
    // Named on every call: with no model Gemini CLI first asks a router model which one to use (a second call).
    defaultModel: 'gemini-2.5-pro',
    defaultBaseUrl: null,
    baseUrlEnv: 'GOOGLE_GEMINI_BASE_URL',
    outputTokens: null,
    cliProgram: {
      program: 'gemini',
      binEnv: 'BOUNCE_GEMINI_BIN',
      npmPackage: '@google/gemini-cli',
      parentSessionEnvs: ['GEMINI_CLI', 'GEMINI_CLI_IDE_SERVER_PORT', 'GEMINI_CLI_IDE_WORKSPACE_PATH', 'GEMINI_CLI_IDE_PID'],
    },
    defaultKeyEnv: null,
    keyEnvs: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_CLOUD_ACCESS_TOKEN'],
  },
  opencode: {
    name: 'opencode',
    description: 'opencode (opencode run), uses your opencode config and providers',
    kind: 'cli',
    provider: 'opencode',
    options: ['model', 'args'],
    defaultModel: null,
    defaultBaseUrl: null,
    baseUrlEnv: null,
    outputTokens: null,
    cliProgram: { program: 'opencode', binEnv: 'BOUNCE_OPENCODE_BIN', npmPackage: 'opencode-ai', parentSessionEnvs: ['OPENCODE', 'OPENCODE_PID'] },
    defaultKeyEnv: null,
    // The providers' own variables opencode reads; a config's `{env:NAME}` references are added at run time.
    keyEnvs: ['OPENCODE_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'OPENROUTER_API_KEY'],
  },
  openai: {
    name: 'openai',
    description: 'any OpenAI-compatible Chat Completions endpoint (Ollama, vLLM, llama.cpp, OpenRouter)',
    kind: 'http',
    provider: 'openai-compatible',
    options: ['model', 'base_url', 'api_key_env', 'max_output_tokens', 'temperature'],
    defaultModel: null,
    // Ollama's default port: a local server needs no configuration.
    defaultBaseUrl: 'http://127.0.0.1:11434/v1',
    baseUrlEnv: 'OPENAI_BASE_URL',
    outputTokens: null,
    cliProgram: null,
    defaultKeyEnv: 'OPENAI_API_KEY',
    keyEnvs: ['OPENAI_API_KEY'],
  },
  anthropic: {
    name: 'anthropic',
    description: 'Anthropic Messages API with an API key',
    kind: 'http',
    provider: 'anthropic',
    options: ['model', 'base_url', 'api_key_env', 'max_output_tokens', 'temperature'],
    defaultModel: 'claude-sonnet-4-5',
    defaultBaseUrl: 'https://api.anthropic.com',
    baseUrlEnv: 'ANTHROPIC_BASE_URL',
    outputTokens: 16_000,
    cliProgram: null,
    defaultKeyEnv: 'ANTHROPIC_API_KEY',
    keyEnvs: ['ANTHROPIC_API_KEY'],
  },
  mock: {
    name: 'mock',
    description: 'scripted replies for tests and dry pipelines (mock evidence, never a live result)',
    kind: 'mock',
    provider: 'mock',
    options: ['script', 'model'],
    defaultModel: null,
    defaultBaseUrl: null,
    baseUrlEnv: null,
    outputTokens: null,
    cliProgram: null,
    defaultKeyEnv: null,
    keyEnvs: [],
  },
};

/** The built-in adapters in the order `bounce adapters` lists them. */
export const BUILTIN_ADAPTERS: readonly AdapterFacts[] = BUILTIN_NAMES.map((name) => ADAPTER_TABLE[name]);

export function adapterInfo(name: string): AdapterFacts | undefined {
  return (BUILTIN_NAMES as readonly string[]).includes(name) ? ADAPTER_TABLE[name as BuiltinName] : undefined;
}

/** The CLI facts of a CLI adapter (a bug to ask for another kind). */
export function cliFacts(name: CliName): CliFacts {
  const cli = ADAPTER_TABLE[name].cliProgram;
  if (!cli) throw new Error(`${name} has no CLI`);
  return cli;
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
