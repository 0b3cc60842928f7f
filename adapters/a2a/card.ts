/**
 * The agent card's check (`bounce check` on an a2a agent): the card read from the well-known
 * path must name an interface bounce can call (JSON-RPC or HTTP+JSON) at the agent's origin,
 * where the token may go; a card that asks for credentials needs the token set.
 */
import { z } from 'zod';
import type { CheckProblem, CheckResult } from '../../src/contract/contract.js';
import { displayUrl } from '../../src/kit/endpoint.js';

/** The transports the adapter speaks (the SDK's names); its gRPC needs packages bounce does not ship. */
export const CALLABLE_BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;

/** As much of a card as bounce reads; the rest is the agent's. */
const CardSchema = z
  .object({
    name: z.string().min(1),
    version: z.string().optional(),
    supportedInterfaces: z.array(z.object({ url: z.string(), protocolBinding: z.string(), protocolVersion: z.string().optional() }).passthrough()).min(1),
    capabilities: z.object({ streaming: z.boolean().optional() }).passthrough().optional(),
    defaultInputModes: z.array(z.string()).optional(),
    securityRequirements: z.array(z.unknown()).optional(),
  })
  .passthrough();

export interface CardCheck {
  problems: CheckProblem[];
  warnings: CheckProblem[];
  resolved: CheckResult['resolved'];
}

const sameOrigin = (url: string, origin: string): boolean => URL.canParse(url) && new URL(url).origin === origin;

/** The card's findings, for an agent at `origin` with or without its token. */
export function checkCard(raw: unknown, at: { origin: string; tokenSet: boolean; keyEnv: string }): CardCheck {
  const parsed = CardSchema.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    const message = `the agent card at ${at.origin} is not an A2A agent card: ${i?.path.join('.') || 'card'}: ${i?.message}`;
    return { problems: [{ kind: 'config', message, fix: 'point a2a: at an A2A agent (version 0.3 or 1.0 of the protocol)' }], warnings: [], resolved: {} };
  }
  const card = parsed.data;
  const problems: CheckProblem[] = [];
  const warnings: CheckProblem[] = [];
  const callable = card.supportedInterfaces.filter((i) => (CALLABLE_BINDINGS as readonly string[]).includes(i.protocolBinding.toUpperCase()));
  const here = callable.filter((i) => sameOrigin(i.url, at.origin));
  if (callable.length === 0) {
    problems.push({
      kind: 'config',
      message: `the agent card of ${card.name} offers no ${CALLABLE_BINDINGS.join(' or ')} interface (only ${card.supportedInterfaces.map((i) => i.protocolBinding).join(', ')})`,
      fix: 'give the agent a JSON-RPC or HTTP+JSON interface',
    });
  } else if (here.length === 0) {
    const elsewhere = callable[0]?.url ?? '';
    problems.push({
      kind: 'config',
      message: `the agent card of ${card.name} sends calls to ${displayUrl(elsewhere)}, another origin than ${at.origin}; the token is not sent there`,
      fix: 'name that URL (a2a:<url>) if you trust it',
    });
  }
  if ((card.securityRequirements?.length ?? 0) > 0 && !at.tokenSet)
    problems.push({
      kind: 'credentials',
      message: `the agent card of ${card.name} asks for credentials and ${at.keyEnv} is not set`,
      fix: `set ${at.keyEnv} to the agent's bearer token, or name the variable to read with api_key_env in an agents: entry of bounce.config.yaml`,
    });
  const modes = card.defaultInputModes ?? [];
  if (modes.length > 0 && !modes.some((m) => m === 'text' || m.startsWith('text/')))
    warnings.push({
      kind: 'config',
      message: `the agent card of ${card.name} lists no text input mode (${modes.join(', ')})`,
      fix: 'bounce sends the prompt as text: check the agent reads it',
    });
  // The SDK calls the first interface it can: the card's order, which puts the preferred one first.
  const chosen = here[0] ?? callable[0];
  return {
    problems,
    warnings,
    resolved: {
      card_name: card.name,
      card_version: card.version || null,
      interface: chosen ? `${chosen.protocolBinding} ${displayUrl(chosen.url)}` : null,
      // The protocol's version the calls go in (an interface that names none is v0.3's, as the protocol has it).
      protocol: chosen ? chosen.protocolVersion || '0.3' : null,
      streaming: card.capabilities?.streaming ?? false,
    },
  };
}
