/** The smallest parts of an adapter's answer, shared by the toolkit's modules (adapter-kit re-exports them). */
import type { AdapterError, AdapterResponse } from '../contract/contract.js';

/** A failed answer of the given type. */
export function fail(type: AdapterError['type'], message: string, extra: Partial<AdapterError> = {}): AdapterResponse {
  return { ok: false, error: { type, message, ...extra } };
}

/** Milliseconds left until the request's deadline (never negative). */
export function msUntil(deadline: string): number {
  return Math.max(0, Date.parse(deadline) - Date.now());
}
