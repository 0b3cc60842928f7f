/**
 * Who called: the agent an MCP client is, from the name it gives in `initialize`
 * (`clientInfo.name`, each CLI's own in its facts), and the refusal of a run that would have
 * that agent review or compose (an agent judging its own text through bounce is the
 * self-preference trap) unless the call says `allow_self: true`.
 */
import { cliOfMcpClient } from '../adapters/builtins.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import { usageError } from '../errors.js';

/** A check of the agents a run would call: refuses the caller's own agent unless allowed. */
export function refuseSelf(clientName: string | undefined, allowSelf: boolean): (agents: readonly ResolvedAgent[]) => void {
  const self = clientName === undefined ? null : cliOfMcpClient(clientName);
  return (agents) => {
    if (self === null || allowSelf) return;
    const own = agents.find((a) => a.adapter === self);
    if (!own) return;
    throw usageError(
      `agent ${own.spec} is ${self}, the MCP client calling bounce (${clientName}): it would review its own text`,
      'name other agents with reviewer and composer, or pass allow_self: true',
    );
  };
}
