/**
 * An A2A agent on HTTP, through the SDK's server and its express handlers: the agent card at
 * `/.well-known/agent-card.json` (public, as the protocol has it), JSON-RPC at `/` and
 * HTTP+JSON at `/rest`, both behind the bearer token when one is set. The card's interface
 * URLs are the address the caller used (its Host header), so a card read through a proxy
 * names the proxy. `bounce serve --a2a` serves bounce's agent with it; the tests serve theirs.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AgentCard } from '@a2a-js/sdk';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import { a2aCompat, a2aCompatExpress, a2aCore, a2aExpress, a2aServer, expressApp } from '../kit/a2a-sdk.js';

/** What the card says of the agent; its interfaces, version and security are filled in here. */
export type CardBody = Omit<AgentCard, 'supportedInterfaces' | 'securitySchemes' | 'securityRequirements'>;

export interface A2aListenOptions {
  card: CardBody;
  executor: AgentExecutor;
  host: string;
  /** 0: any free port. */
  port: number;
  /** The bearer token every call but the card's must carry; undefined: none asked for. */
  token?: string;
}

export interface A2aListening {
  /** The agent's base URL, as this process reached it (`http://host:port`). */
  url: string;
  server: Server;
  close(): Promise<void>;
}

type Next = (err?: unknown) => void;
type Middleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

/** The security the card declares when a token is asked for: one HTTP bearer scheme, required. */
const BEARER = 'bearer';

/**
 * The whole card for a caller that reached the agent at `base`. Both bindings are offered in
 * the protocol's version and, at the same URLs, in v0.3, which clients still on the older
 * protocol speak (Gemini CLI's remote agents among them): a request names its version in the
 * `A2A-Version` header, and one that names none is read as v0.3, as the protocol says.
 */
function fullCard(body: CardBody, base: string, token: boolean): AgentCard {
  const { A2A_PROTOCOL_VERSION } = a2aCore();
  const { duplicateInterfacesForLegacy } = a2aCompat();
  return {
    ...body,
    supportedInterfaces: duplicateInterfacesForLegacy(
      [
        { url: `${base}/`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
        { url: `${base}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      ],
      ['JSONRPC', 'HTTP+JSON'],
    ),
    securitySchemes: token
      ? {
          [BEARER]: {
            scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'the token of bounce serve --a2a', scheme: 'Bearer', bearerFormat: '' } },
          },
        }
      : {},
    securityRequirements: token ? [{ schemes: { [BEARER]: { list: [] } } }] : [],
  };
}

/** Whether the request carries the token (compared in constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  const given = Buffer.from(m?.[1]?.trim() ?? '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** Listens on host:port; resolves once the agent answers there. */
export async function listenA2a(opts: A2aListenOptions): Promise<A2aListening> {
  const { AgentCard: Codec } = a2aCore();
  const { DefaultRequestHandler, InMemoryTaskStore } = a2aServer();
  const { jsonRpcHandler, restHandler, UserBuilder } = a2aExpress();
  const token = opts.token;
  let base = '';
  const handler = new DefaultRequestHandler(fullCard(opts.card, base, Boolean(token)), new InMemoryTaskStore(), opts.executor);
  const app = expressApp();
  app.disable('x-powered-by');
  // The card travels as ProtoJSON, the protocol's JSON form, naming the address the caller used.
  const cardFor = (req: IncomingMessage): unknown => Codec.toJSON(fullCard(opts.card, baseOf(req, base), Boolean(token)));
  // A v0.3 caller gets the v0.3 card (with the v1.0 interfaces in it too); the SDK's router passes any other on.
  const { legacyAgentCardRouter } = a2aCompatExpress();
  app.use('/.well-known/agent-card.json', (req: IncomingMessage, res: ServerResponse, next: Next) => {
    const cardNow = async () => fullCard(opts.card, baseOf(req, base), Boolean(token));
    (legacyAgentCardRouter({ agentCardProvider: cardNow, cache: { maxAge: 0 } }) as unknown as Middleware)(req, res, next);
  });
  app.get('/.well-known/agent-card.json', (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-cache');
    res.end(JSON.stringify(cardFor(req)));
  });
  const guard = (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    if (!token || bearerMatches(req.headers.authorization, token)) return next();
    res.statusCode = 401;
    res.setHeader('www-authenticate', 'Bearer');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ error: { code: 401, message: 'a bearer token is required' } }));
  };
  app.use('/rest', guard, restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  app.use('/', guard, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  base = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`;
  return {
    url: base,
    server,
    close: () => closeServer(server),
  };
}

/** Stops listening and drops every connection (a stream still open included); resolves once closed. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** The base URL a request reached: its Host header, else the address listened on. */
function baseOf(req: IncomingMessage, fallback: string): string {
  const host = req.headers.host;
  const proto = req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return host && /^[A-Za-z0-9.[\]:-]+$/.test(host) ? `${proto}://${host}` : fallback;
}
