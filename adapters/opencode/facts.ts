import type { CliAdapterFacts, CliFacts } from '../../src/kit/facts.js';

/** The CLI the opencode adapter runs. */
export const OPENCODE_CLI: CliFacts = {
  program: 'opencode',
  binEnv: 'BOUNCE_OPENCODE_BIN',
  npmPackage: 'opencode-ai',
  parentSessionEnvs: ['OPENCODE', 'OPENCODE_PID'],
  mcpClientNames: ['opencode'],
};

/** What bounce knows about the opencode adapter without loading its program (its row of `bounce adapters`). */
export const OPENCODE: CliAdapterFacts<'opencode'> = {
  name: 'opencode',
  description: 'opencode (opencode run), uses your opencode config and providers',
  kind: 'cli',
  provider: 'opencode',
  family: null,
  options: ['model', 'args'],
  defaultModel: null,
  defaultBaseUrl: null,
  baseUrlEnv: null,
  outputTokens: null,
  cliProgram: OPENCODE_CLI,
  defaultKeyEnv: null,
  // The providers' own variables opencode reads; a config's `{env:NAME}` references are added at run time.
  keyEnvs: ['OPENCODE_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'OPENROUTER_API_KEY'],
};
