/**
 * `bounce serve --a2a`: bounce as an A2A agent whose skill is refining a document under the
 * Bounce Protocol (src/request/a2a-task.ts), served through the SDK (src/serve/a2a-http.ts).
 * Loopback by default; any other address needs the token (BOUNCE_A2A_TOKEN), which every call
 * but the card's must carry as a bearer token. Runs until Ctrl-C or SIGTERM; the runs of
 * tasks still going then end interrupted, and `bounce resume` finishes them.
 */
import { SERVE_DEFAULTS } from '../config/defaults.js';
import { EXIT, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { isLoopback } from '../kit/endpoint.js';
import { intFlag, refineAgents, refineSettings } from '../request/refine-request.js';
import { refineExecutor } from '../request/a2a-task.js';
import { type CardBody, listenA2a } from '../serve/a2a-http.js';
import { SERVE_TOKEN_ENV } from '../serve/token.js';
import { VERSION } from '../version.js';

export interface ServeOptions {
  a2a?: boolean;
  port?: string;
  host?: string;
  config?: string;
  runsDir?: string;
  reviewer?: string;
  composer?: string;
}

/** What the agent card says of bounce: one skill, text in, the document and a summary out. */
export function bounceCard(): CardBody {
  return {
    name: 'bounce',
    description: 'Refines a document by bouncing it between a reviewer and a composer agent under the Bounce Protocol.',
    provider: undefined,
    version: VERSION,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    defaultInputModes: ['text/plain', 'text/markdown', 'application/json'],
    defaultOutputModes: ['text/markdown', 'application/json'],
    skills: [
      {
        id: 'refine',
        name: 'refine a document under the Bounce Protocol',
        description:
          'Send the document as a text part or a file part (and, optionally, a data part {"bounce": {"passes", "goal", "name"}}); bounce runs it with its configured agents, streams each pass as a status update, and returns the converged document and the run summary as artifacts.',
        tags: ['review', 'editing', 'bounce-protocol'],
        examples: ['Refine this RFC draft.'],
        inputModes: ['text/plain', 'text/markdown', 'application/json'],
        outputModes: ['text/markdown', 'application/json'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

export async function runServe(opts: ServeOptions, io: Io): Promise<number> {
  if (!opts.a2a) throw usageError('bounce serve needs a protocol to serve', 'pass --a2a', 'usage');
  const host = opts.host ?? SERVE_DEFAULTS.host;
  const port = intFlag('--port', opts.port, SERVE_DEFAULTS.port, 0, 65535);
  const token = io.env[SERVE_TOKEN_ENV]?.trim() || undefined;
  const address = host.includes(':') ? `[${host}]` : host;
  if (!URL.canParse(`http://${address}/`)) throw usageError(`--host ${host} is not a host name or address`, 'pass e.g. --host 127.0.0.1', 'usage');
  if (!token && !isLoopback(`http://${address}/`))
    throw usageError(
      `--host ${host} is not a loopback address and ${SERVE_TOKEN_ENV} is not set`,
      `set ${SERVE_TOKEN_ENV} to a token that callers send as a bearer token, or serve on 127.0.0.1`,
      'credentials',
    );
  // A bad config or an agent that cannot run is refused now, not at the first task.
  const agentFlags = { ...(opts.reviewer ? { reviewer: opts.reviewer } : {}), ...(opts.composer ? { composer: opts.composer } : {}) };
  const asRefine = { doc: '-', ...agentFlags, ...(opts.config ? { config: opts.config } : {}), ...(opts.runsDir ? { runsDir: opts.runsDir } : {}) };
  const settings = await refineSettings(asRefine, io);
  const { agents } = await refineAgents(asRefine, io, settings, '-');
  if (agents.reviewer.adapter === 'human' || agents.composer.adapter === 'human')
    throw usageError(
      'a served agent cannot wait on a person: the human agent needs a terminal',
      'pass --reviewer and --composer agents that run unattended',
      'usage',
    );
  const log = (line: string): void => void io.stderr.write(`${line}\n`);
  const executor = refineExecutor({
    cwd: io.cwd,
    env: io.env,
    ...agentFlags,
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.runsDir ? { runsDir: opts.runsDir } : {}),
    log,
  });
  let served: Awaited<ReturnType<typeof listenA2a>>;
  try {
    served = await listenA2a({ card: bounceCard(), executor, host, port, ...(token ? { token } : {}) });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw usageError(`port ${port} on ${host} is taken`, 'pass another --port (0 picks a free one)', 'usage');
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw usageError(`cannot listen on ${host}: no such address here`, 'pass an address of this machine, e.g. --host 127.0.0.1', 'usage');
    throw err;
  }
  io.stdout.write(`${served.url}\n`);
  log(
    `bounce serves A2A at ${served.url} (card: ${served.url}/.well-known/agent-card.json; ${token ? `bearer token from ${SERVE_TOKEN_ENV} required` : 'no token: loopback only'}); reviewer ${agents.reviewer.spec}, composer ${agents.composer.spec}; Ctrl-C stops it`,
  );
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await executor.stopAll();
  await served.close();
  log('stopped');
  return EXIT.interrupted;
}
