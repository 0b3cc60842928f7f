import type { AdapterResponse } from '../contract/contract.js';

/** The version a person's replies are recorded with (the human agent, `bounce decide`'s decisions). */
export const HUMAN_VERSION = 'human-1';

/** A reply a person gave: complete, no tokens bounce can count, and no money (no price applies to a person). */
export function personReply(text: string): AdapterResponse {
  return {
    ok: true,
    reply: text,
    stop: 'complete',
    usage: { input_tokens: null, output_tokens: null, cost_usd: 0, provider_reported: false },
    model: null,
    agent_version: HUMAN_VERSION,
    tool_calls: 0,
  };
}
