/**
 * What a cached reply is filed under: the agent's adapter, its model and the settings that
 * shape a reply, and the sha256 of the prompt with its frame nonces set aside. Two dispatches
 * with the same key would be asked the same thing of the same model; anything else that
 * differs (the role, the pass, the agent's name, its key variable, its deadline) does not
 * change the reply and is left out, so a renamed agent still finds its entries.
 */
import type { ResolvedAgent } from '../adapters/registry.js';
import { FRAME_NONCE } from '../engine/prompt.js';
import { sha256 } from '../store/hash.js';

/** The entry format and the key's recipe: a change to either starts a new set of entries. */
export const CACHE_FORMAT = 1;

/**
 * The agent settings a key holds, each of which can change a reply: which model answers
 * (`model`, `base_url`: another server is another model), how it samples (`temperature`),
 * how long it may write (`max_output_tokens`), the extra argv a CLI gets (`args`) and a mock's
 * script (`script`). Left out: `api_key_env` (whose key, not what it answers),
 * `max_budget_usd` (a cap: a reply it cuts is never accepted, so never cached), the timeout.
 */
export const KEY_SETTINGS = ['model', 'base_url', 'temperature', 'max_output_tokens', 'args', 'script'] as const;

/** Stands for the i-th nonce of a prompt in what the cache keeps; a reply holding the character is not cached. */
export const NONCE_MARK = '\u0000';
export const nonceSlot = (i: number): string => `${NONCE_MARK}nonce${i}${NONCE_MARK}`;

export interface CacheKey {
  /** sha256 in hex: the entry's file name. */
  key: string;
  /** The prompt's sha256 with its nonces set aside (recorded in the entry). */
  promptSha256: string;
  /** The prompt's frame nonces in order of first appearance: slot i stands for nonces[i]. */
  nonces: string[];
}

/** The distinct frame nonces of a prompt, in order of first appearance. */
export function promptNonces(prompt: string): string[] {
  const found = new Set<string>();
  for (const m of prompt.matchAll(FRAME_NONCE)) found.add(m[1] as string);
  return [...found];
}

/** `text` with each nonce replaced by its slot. */
export function setNoncesAside(text: string, nonces: readonly string[]): string {
  let out = text;
  nonces.forEach((n, i) => {
    out = out.split(n).join(nonceSlot(i));
  });
  return out;
}

/** `text` with each slot replaced by this prompt's nonce; a slot this prompt has no nonce for is left as it is. */
export function putNoncesBack(text: string, nonces: readonly string[]): string {
  if (!text.includes(NONCE_MARK)) return text;
  let out = text;
  nonces.forEach((n, i) => {
    out = out.split(nonceSlot(i)).join(n);
  });
  return out;
}

/** What of the agent goes into its key (KEY_SETTINGS, plus the adapter and, for `cmd:`, the program). */
export function keyedAgent(agent: ResolvedAgent): Record<string, unknown> {
  const settings = Object.fromEntries(KEY_SETTINGS.map((k) => [k, agent.options[k] ?? null]));
  return {
    adapter: agent.adapter,
    provider: agent.provider,
    ...(agent.adapter === 'cmd' ? { program: [agent.command, ...agent.args] } : {}),
    ...settings,
  };
}

export function cacheKey(agent: ResolvedAgent, prompt: string): CacheKey {
  const nonces = promptNonces(prompt);
  const promptSha256 = sha256(setNoncesAside(prompt, nonces));
  const key = sha256(JSON.stringify({ format: CACHE_FORMAT, agent: keyedAgent(agent), prompt_sha256: promptSha256 }));
  return { key, promptSha256, nonces };
}
