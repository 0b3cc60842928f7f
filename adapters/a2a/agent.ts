import type { BuiltinAgent } from '../../src/kit/agent.js';
import { A2A } from './facts.js';

/** A remote agent reached over A2A: its entry in src/adapters/builtins.ts. */
export const a2a: BuiltinAgent<'a2a'> = {
  facts: A2A,
  load: () => import('./program.js'),
};
