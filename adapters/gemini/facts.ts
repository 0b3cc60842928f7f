import type { CliAdapterFacts, CliFacts } from '../../src/kit/facts.js';

/** The CLI the gemini adapter runs. */
export const GEMINI_CLI: CliFacts = {
  program: 'gemini',
  binEnv: 'BOUNCE_GEMINI_BIN',
  npmPackage: '@google/gemini-cli',
  parentSessionEnvs: ['GEMINI_CLI', 'GEMINI_CLI_IDE_SERVER_PORT', 'GEMINI_CLI_IDE_WORKSPACE_PATH', 'GEMINI_CLI_IDE_PID'],
  mcpClientNames: ['gemini-cli-mcp-client'],
};

/** What bounce knows about the gemini adapter without loading its program (its row of `bounce adapters`). */
export const GEMINI: CliAdapterFacts<'gemini'> = {
  name: 'gemini',
  description: 'Gemini CLI (gemini -p), uses your Gemini API key, Vertex AI or Google login',
  kind: 'cli',
  provider: 'google',
  family: 'google',
  options: ['model', 'args'],
  // Named on every call: with no model Gemini CLI first asks a router model which one to use (a second call).
  defaultModel: 'gemini-2.5-pro',
  defaultBaseUrl: null,
  baseUrlEnv: 'GOOGLE_GEMINI_BASE_URL',
  outputTokens: null,
  cliProgram: GEMINI_CLI,
  defaultKeyEnv: null,
  keyEnvs: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_CLOUD_ACCESS_TOKEN'],
};
