import { sleep } from './backoff.js';

/** Time as the engine sees it, so tests can make backoff instant. */
export interface Clock {
  now(): number;
  /** Resolves true after `ms`, or false as soon as the signal aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<boolean>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep };
