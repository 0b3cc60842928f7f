import type { AdapterFacts } from '../../src/kit/facts.js';

/** What bounce knows about the a2a adapter without loading its program (its row of `bounce adapters`). */
export const A2A: AdapterFacts<'a2a'> = {
  name: 'a2a',
  description: 'a remote agent over the Agent2Agent protocol (A2A): a2a:<url> of its agent card (docs/a2a.md)',
  kind: 'http',
  provider: 'a2a',
  // Whatever model the remote agent runs, its card does not say.
  family: null,
  options: ['base_url', 'api_key_env'],
  defaultModel: null,
  defaultBaseUrl: null,
  baseUrlEnv: null,
  outputTokens: null,
  cliProgram: null,
  // One variable for both ends: the token this adapter sends, and the one `bounce serve --a2a` asks for.
  defaultKeyEnv: 'BOUNCE_A2A_TOKEN',
  keyEnvs: ['BOUNCE_A2A_TOKEN'],
};
