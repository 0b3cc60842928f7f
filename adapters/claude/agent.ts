import type { CliAgent } from '../../src/kit/agent.js';
import { CLAUDE } from './facts.js';
import { claudeLogin } from './login.js';

/** Claude Code (`claude -p`): its entry in src/adapters/builtins.ts. */
export const claude: CliAgent<'claude'> = {
  facts: CLAUDE,
  login: claudeLogin,
  load: () => import('./program.js'),
};
