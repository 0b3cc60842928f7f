import type { CliAgent } from '../../src/kit/agent.js';
import { GEMINI } from './facts.js';
import { geminiLogin } from './login.js';

/** Gemini CLI (`gemini -p`): its entry in src/adapters/builtins.ts. */
export const gemini: CliAgent<'gemini'> = {
  facts: GEMINI,
  login: (_program, env) => geminiLogin(env),
  load: () => import('./program.js'),
};
