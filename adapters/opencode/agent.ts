import type { CliAgent } from '../../src/kit/agent.js';
import { readOpencodeConfig } from './config.js';
import { OPENCODE } from './facts.js';
import { opencodeLogin } from './login.js';

/** opencode (`opencode run`): its entry in src/adapters/builtins.ts. */
export const opencode: CliAgent<'opencode'> = {
  facts: OPENCODE,
  // As a default agent no model is named: the config's decides.
  login: (_program, env) => opencodeLogin(null, env),
  load: () => import('./program.js'),
  // The variables its config reads with `{env:NAME}`.
  configKeyEnvs: (env) => readOpencodeConfig(env).envRefs,
};
