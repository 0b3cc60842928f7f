import type { BuiltinAgent } from '../../src/kit/agent.js';
import { ANTHROPIC } from './facts.js';

/** The Anthropic Messages API: its entry in src/adapters/builtins.ts. */
export const anthropic: BuiltinAgent<'anthropic'> = {
  facts: ANTHROPIC,
  load: () => import('./program.js'),
};
