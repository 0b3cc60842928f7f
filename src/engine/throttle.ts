import type { Clock } from './clock.js';

/**
 * One backoff per agent, shared by every run that uses it. A batch gives the same throttle
 * to all its runs: when one run's agent answers 429 (rate limited), every run waits out the
 * same pause before its next call to that agent, instead of each run finding the limit on
 * its own and retrying into it. A single run needs none (its own retry already waits).
 */
export class AgentThrottle {
  private readonly until = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Another run saw a rate limit: no call to `agent` starts before `ms` from now. */
  pause(agent: string, ms: number): void {
    const end = this.clock.now() + ms;
    if (end > (this.until.get(agent) ?? 0)) this.until.set(agent, end);
  }

  /** How long a call to `agent` must still wait, in ms (0: it may go now). */
  remaining(agent: string): number {
    return Math.max(0, (this.until.get(agent) ?? 0) - this.clock.now());
  }

  /**
   * Waits until calls to `agent` may go again; false if the signal aborted meanwhile. A pause
   * set while waiting (another 429) is waited out too.
   */
  async wait(agent: string, signal: AbortSignal): Promise<boolean> {
    for (let ms = this.remaining(agent); ms > 0; ms = this.remaining(agent)) {
      if (!(await this.clock.sleep(ms, signal))) return false;
    }
    return !signal.aborted;
  }
}
