import { A2A } from '../../adapters/a2a/facts.js';

/** The variable `bounce serve --a2a` takes its bearer token from: the one the a2a adapter sends, so one bounce can call another with it. */
export const SERVE_TOKEN_ENV = A2A.defaultKeyEnv ?? 'BOUNCE_A2A_TOKEN';
