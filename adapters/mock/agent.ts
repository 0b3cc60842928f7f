import type { BuiltinAgent } from '../../src/kit/agent.js';
import { MOCK } from './facts.js';

/** Scripted replies for tests and dry pipelines: its entry in src/adapters/builtins.ts. */
export const mock: BuiltinAgent<'mock'> = {
  facts: MOCK,
  load: () => import('./program.js'),
};
