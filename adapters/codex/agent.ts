import type { CliAgent } from '../../src/kit/agent.js';
import { keyVariables, readCodexConfig } from './config.js';
import { CODEX } from './facts.js';
import { codexLogin } from './login.js';

/** Codex CLI (`codex exec`): its entry in src/adapters/builtins.ts. */
export const codex: CliAgent<'codex'> = {
  facts: CODEX,
  login: codexLogin,
  load: () => import('./program.js'),
  // Custom providers name their key variables in config.toml.
  configKeyEnvs: (env) => keyVariables(readCodexConfig(env)),
};
