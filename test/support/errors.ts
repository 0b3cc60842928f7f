import { expect } from 'vitest';
import { BounceError } from '../../src/errors.js';

/** Runs `f`, expects it to throw a BounceError (with `exitCode` when given), and returns it. */
export function bounceErrorOf(f: () => unknown, exitCode?: number): BounceError {
  let caught: unknown;
  try {
    f();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(BounceError);
  const err = caught as BounceError;
  if (exitCode !== undefined) expect(err.exitCode).toBe(exitCode);
  return err;
}

/** A usage, input or config error: exit 2. */
export const usageErrorOf = (f: () => unknown): BounceError => bounceErrorOf(f, 2);
