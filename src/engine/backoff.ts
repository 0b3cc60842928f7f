/** Delay before transient retry `attempt` (1-based): exponential, honouring the server's Retry-After. */
export function backoffMs(attempt: number, retryAfterMs: number | undefined, baseMs: number, capMs = 60_000): number {
  const exponential = baseMs * 2 ** (attempt - 1);
  return Math.min(capMs, Math.max(exponential, retryAfterMs ?? 0));
}

/**
 * One turn of the event loop: what became due meanwhile runs first (a signal's handler, a
 * child process started by a callback, the microtasks of a call just made).
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Resolves after `ms`, or early (false) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
