import type { CliAdapterFacts, CliFacts } from '../../src/kit/facts.js';

/** The CLI the claude adapter runs. */
export const CLAUDE_CLI: CliFacts = {
  program: 'claude',
  binEnv: 'BOUNCE_CLAUDE_BIN',
  npmPackage: '@anthropic-ai/claude-code',
  parentSessionEnvs: ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_CHILD_SESSION', 'CLAUDE_CODE_EXECPATH'],
  mcpClientNames: ['claude-code'],
};

/** What bounce knows about the claude adapter without loading its program (its row of `bounce adapters`). */
export const CLAUDE: CliAdapterFacts<'claude'> = {
  name: 'claude',
  description: 'Claude Code CLI (claude -p), uses your Claude login',
  kind: 'cli',
  provider: 'anthropic',
  family: 'anthropic',
  options: ['model', 'max_output_tokens', 'max_budget_usd', 'args'],
  defaultModel: null,
  defaultBaseUrl: null,
  baseUrlEnv: 'ANTHROPIC_BASE_URL',
  outputTokens: 32_000,
  cliProgram: CLAUDE_CLI,
  defaultKeyEnv: null,
  keyEnvs: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
};
