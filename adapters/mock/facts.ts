import type { AdapterFacts } from '../../src/kit/facts.js';

/** What bounce knows about the mock adapter without loading its program (its row of `bounce adapters`). */
export const MOCK: AdapterFacts<'mock'> = {
  name: 'mock',
  description: 'scripted replies for tests and dry pipelines (mock evidence, never a live result)',
  kind: 'mock',
  provider: 'mock',
  family: 'mock',
  options: ['script', 'model'],
  defaultModel: null,
  defaultBaseUrl: null,
  baseUrlEnv: null,
  outputTokens: null,
  cliProgram: null,
  defaultKeyEnv: null,
  keyEnvs: [],
};
