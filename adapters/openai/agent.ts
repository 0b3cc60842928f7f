import type { BuiltinAgent } from '../../src/kit/agent.js';
import { OPENAI } from './facts.js';

/** Any OpenAI-compatible Chat Completions endpoint: its entry in src/adapters/builtins.ts. */
export const openai: BuiltinAgent<'openai'> = {
  facts: OPENAI,
  load: () => import('./program.js'),
};
