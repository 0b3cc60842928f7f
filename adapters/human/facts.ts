import type { AdapterFacts } from '../../src/kit/facts.js';

/** What bounce knows about the human adapter without loading its program (its row of `bounce adapters`). */
export const HUMAN: AdapterFacts<'human'> = {
  name: 'human',
  description: 'a person plays the pass: the document opens in $VISUAL or $EDITOR (or --human-file FILE is waited on); no price, no model family',
  kind: 'human',
  provider: 'human',
  family: null,
  // `script`: the file the person saves the pass's document in (--human-file); `model`: the person's name (human:<name>).
  options: ['script', 'model'],
  defaultModel: null,
  defaultBaseUrl: null,
  baseUrlEnv: null,
  outputTokens: null,
  cliProgram: null,
  defaultKeyEnv: null,
  keyEnvs: [],
};
