/**
 * Polls `cond` until it holds and returns its value; throws after `timeoutMs`. For waiting
 * on something another process (or the code under test) does, instead of a fixed sleep.
 */
export async function waitFor<T>(cond: () => T | Promise<T>, timeoutMs: number, what = 'the condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await cond();
    if (value) return value as NonNullable<T>;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
