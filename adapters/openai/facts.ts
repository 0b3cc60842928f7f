import type { AdapterFacts } from '../../src/kit/facts.js';

/** What bounce knows about the openai adapter without loading its program (its row of `bounce adapters`). */
export const OPENAI: AdapterFacts<'openai'> = {
  name: 'openai',
  description: 'any OpenAI-compatible Chat Completions endpoint (Ollama, vLLM, llama.cpp, OpenRouter)',
  kind: 'http',
  provider: 'openai-compatible',
  family: null,
  options: ['model', 'base_url', 'api_key_env', 'max_output_tokens', 'temperature'],
  defaultModel: null,
  // Ollama's default port: a local server needs no configuration.
  defaultBaseUrl: 'http://127.0.0.1:11434/v1',
  baseUrlEnv: 'OPENAI_BASE_URL',
  outputTokens: null,
  cliProgram: null,
  defaultKeyEnv: 'OPENAI_API_KEY',
  keyEnvs: ['OPENAI_API_KEY'],
};
