import type { AdapterFacts } from '../../src/kit/facts.js';

/** What bounce knows about the anthropic adapter without loading its program (its row of `bounce adapters`). */
export const ANTHROPIC: AdapterFacts<'anthropic'> = {
  name: 'anthropic',
  description: 'Anthropic Messages API with an API key',
  kind: 'http',
  provider: 'anthropic',
  family: 'anthropic',
  options: ['model', 'base_url', 'api_key_env', 'max_output_tokens', 'temperature'],
  defaultModel: 'claude-sonnet-4-5',
  defaultBaseUrl: 'https://api.anthropic.com',
  baseUrlEnv: 'ANTHROPIC_BASE_URL',
  outputTokens: 16_000,
  cliProgram: null,
  defaultKeyEnv: 'ANTHROPIC_API_KEY',
  keyEnvs: ['ANTHROPIC_API_KEY'],
};
