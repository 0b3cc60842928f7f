import type { BuiltinAgent } from '../../src/kit/agent.js';
import { HUMAN } from './facts.js';

/** A person as an agent (`--reviewer human`, `--composer human`): its entry in src/adapters/builtins.ts. */
export const human: BuiltinAgent<'human'> = {
  facts: HUMAN,
  load: () => import('./program.js'),
};
