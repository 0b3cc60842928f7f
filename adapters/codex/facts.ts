import type { CliAdapterFacts, CliFacts } from '../../src/kit/facts.js';

/** The CLI the codex adapter runs. */
export const CODEX_CLI: CliFacts = {
  program: 'codex',
  binEnv: 'BOUNCE_CODEX_BIN',
  npmPackage: '@openai/codex',
  parentSessionEnvs: [],
  mcpClientNames: ['codex-mcp-client'],
};

/** What bounce knows about the codex adapter without loading its program (its row of `bounce adapters`). */
export const CODEX: CliAdapterFacts<'codex'> = {
  name: 'codex',
  description: 'Codex CLI (codex exec), uses your Codex login and config',
  kind: 'cli',
  provider: 'openai',
  family: 'openai',
  options: ['model', 'args'],
  defaultModel: null,
  defaultBaseUrl: null,
  baseUrlEnv: null,
  outputTokens: null,
  cliProgram: CODEX_CLI,
  defaultKeyEnv: null,
  keyEnvs: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
};
