/**
 * The response cache as a Dispatcher around the real one: a dispatch whose key (key.ts) has
 * an entry is answered from it, with no agent called; any other goes to the agent, and its
 * reply is kept in memory until the engine says whether its pass accepted it
 * (EngineDeps.accepted). Only then are the pass's replies written: the accepted one and the
 * ones before it that led to it (a reply repaired, an empty one resent), so that a later run
 * sent the same prompts is answered the same replies, and reaches the same outcome.
 */
import type { ResolvedAgent } from '../adapters/registry.js';
import type { AdapterSuccess } from '../contract/contract.js';
import type { DispatchResult, Dispatcher } from '../engine/deps.js';
import { CACHE_FORMAT, type CacheKey, cacheKey, NONCE_MARK, putNoncesBack, setNoncesAside } from './key.js';
import type { CacheEntry, ResponseCache } from './entries.js';

/** A hit spends nothing: no tokens, no cost (the entry's `of` names the dispatch that did). */
const FREE = { input_tokens: 0, output_tokens: 0, cost_usd: 0, provider_reported: false } as const;

interface Pending {
  key: CacheKey;
  of: string;
  run: string;
  adapter: string;
  response: AdapterSuccess;
}

export interface CachingDispatcher {
  dispatch: Dispatcher;
  accepted: (dispatchIds: readonly string[]) => void;
  /**
   * Whether the cache answers this agent this prompt (EngineDeps.cached). A yes holds the
   * entry for the dispatch that follows, so that dispatch is a hit even if the entry is
   * removed meanwhile (`bounce cache clear` in another process): one the budgets let through
   * as free never reaches the agent.
   */
  cached: (agent: ResolvedAgent, prompt: string) => boolean;
}

/**
 * `secrets`: the key values the run's agents may read; a reply holding one is not cached (an
 * entry outlives its run folder, which blanks them). `onError` hears a write that failed, once
 * per problem; the run goes on without that entry.
 */
export function cachingDispatcher(
  inner: Dispatcher,
  cache: ResponseCache,
  secrets: readonly string[],
  onError: (message: string) => void = () => {},
): CachingDispatcher {
  const pending = new Map<string, Pending>();
  // Entries a `cached` yes holds for their dispatch, by key.
  const held = new Map<string, CacheEntry>();
  const cached = (agent: ResolvedAgent, prompt: string): boolean => {
    const { key } = cacheKey(agent, prompt);
    const entry = held.get(key) ?? cache.read(key);
    if (entry) held.set(key, entry);
    return entry !== null;
  };
  const dispatch: Dispatcher = async (agent, request, opts) => {
    const started = Date.now();
    const key = cacheKey(agent, request.prompt);
    const entry = held.get(key.key) ?? cache.read(key.key);
    held.delete(key.key);
    if (entry) return hit(entry, key, opts.ready, started);
    const result = await inner(agent, request, opts);
    if (result.ok && !result.cache)
      pending.set(request.dispatch_id, { key, of: request.dispatch_id, run: request.run_id, adapter: agent.adapter, response: result.response });
    return result;
  };
  const accepted = (ids: readonly string[]): void => {
    // The latest reply to a prompt is its answer (an empty reply resent is the same prompt again).
    const byKey = new Map<string, Pending>();
    for (const id of ids) {
      const p = pending.get(id);
      pending.delete(id);
      if (p) byKey.set(p.key.key, p);
    }
    for (const p of byKey.values()) {
      const entry = entryOf(p);
      if (!entry || secrets.some((s) => JSON.stringify(entry).includes(JSON.stringify(s).slice(1, -1)))) continue;
      try {
        cache.write(entry);
      } catch (err) {
        onError(`could not write to the response cache ${cache.folder}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  return { dispatch, accepted, cached };
}

/** The entry for an accepted reply, or null when its reply cannot be kept faithfully (it holds the nonce mark). */
function entryOf(p: Pending): CacheEntry | null {
  if (p.response.reply.includes(NONCE_MARK)) return null;
  return {
    format: CACHE_FORMAT,
    key: p.key.key,
    created_at: new Date().toISOString(),
    of: p.of,
    run: p.run,
    adapter: p.adapter,
    prompt_sha256: p.key.promptSha256,
    response: { ...p.response, reply: setNoncesAside(p.response.reply, p.key.nonces) },
  };
}

/** A dispatch answered from an entry: once the engine has it on disk (`ready`), as an adapter would answer. */
async function hit(entry: CacheEntry, key: CacheKey, ready: Promise<void> | undefined, started: number): Promise<DispatchResult> {
  const sent = await (ready ?? Promise.resolve()).then(
    () => true,
    () => false,
  );
  const base = { stderr: '', exitCode: null, durationMs: Date.now() - started };
  if (!sent) return { ...base, stdout: '', ok: false, error: { type: 'interrupted', message: 'interrupted' } };
  const response: AdapterSuccess = { ...entry.response, reply: putNoncesBack(entry.response.reply, key.nonces), usage: { ...FREE } };
  return { ...base, stdout: `${JSON.stringify(response)}\n`, ok: true, response, cache: { hit: true, of: entry.of, run: entry.run } };
}
