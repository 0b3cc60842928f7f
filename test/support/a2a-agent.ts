/**
 * A remote agent for the a2a adapter's tests: an A2A agent on 127.0.0.1 through the SDK's
 * server (src/serve/a2a-http.ts), answering bounce's dispatches as the scripted model server
 * does (model-turn.ts), or stalling until cancelled, failing, or answering with a message.
 * It keeps every message it got, the task ids it was asked to cancel and the tokens it saw.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AgentCard, Message, Part } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { a2aCore, a2aExpress, a2aServer, expressApp } from '../../src/kit/a2a-sdk.js';
import { type A2aListening, type CardBody, closeServer, listenA2a } from '../../src/serve/a2a-http.js';
import { dataPart, partsText, textPart } from '../../adapters/a2a/wire.js';
import { readTurn, replyFor } from './model-turn.js';

export type AgentBehaviour = 'edit' | 'stall' | 'fail' | 'message' | 'no-artifact' | { reply: string };

export interface TestA2aAgent extends A2aListening {
  messages: Message[];
  cancelled: string[];
  behaviour: AgentBehaviour;
}

const nowIso = (): string => new Date().toISOString();

/**
 * `protocol: '0.3'`: an agent still on v0.3 of the protocol, as many deployed ones are: its card
 * is a v0.3 card whatever version is asked for, and it answers v0.3 JSON-RPC only.
 */
export async function startA2aAgent(opts: { token?: string; behaviour?: AgentBehaviour; name?: string; protocol?: '0.3' } = {}): Promise<TestA2aAgent> {
  const { TaskState } = a2aCore();
  const { AgentEvent } = a2aServer();
  const messages: Message[] = [];
  const cancelled: string[] = [];
  const waiting = new Map<string, () => void>();
  const status = (ctx: { taskId: string; contextId: string }, state: number, text?: string) =>
    AgentEvent.statusUpdate({
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      status: {
        state,
        message: text
          ? {
              messageId: `m-${Date.now()}`,
              contextId: ctx.contextId,
              taskId: ctx.taskId,
              role: 2,
              parts: [textPart(text)],
              metadata: undefined,
              extensions: [],
              referenceTaskIds: [],
            }
          : undefined,
        timestamp: nowIso(),
      },
      metadata: undefined,
    });
  const answer = (ctx: RequestContext, bus: ExecutionEventBus, parts: Part[]): void => {
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        artifact: { artifactId: 'a1', name: 'response', description: '', parts, metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
  };
  const agent: TestA2aAgent = { messages, cancelled, behaviour: opts.behaviour ?? 'edit' } as TestA2aAgent;
  const executor: AgentExecutor = {
    async execute(ctx, bus) {
      messages.push(ctx.userMessage);
      const b = agent.behaviour;
      if (b === 'message') {
        const turn = readTurn(partsText(ctx.userMessage.parts));
        const text = turn.document === null ? 'no document' : replyFor({ ...turn, document: turn.document }, 'edit').text;
        bus.publish(
          AgentEvent.message({
            messageId: 'reply-1',
            contextId: ctx.contextId,
            taskId: '',
            role: 2,
            parts: [textPart(text)],
            metadata: undefined,
            extensions: [],
            referenceTaskIds: [],
          }),
        );
        bus.finished();
        return;
      }
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: nowIso() },
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        }),
      );
      bus.publish(status(ctx, TaskState.TASK_STATE_WORKING, 'reading'));
      if (b === 'stall') {
        await new Promise<void>((resolve) => waiting.set(ctx.taskId, resolve));
        bus.publish(status(ctx, TaskState.TASK_STATE_CANCELED, 'cancelled'));
      } else if (b === 'fail') {
        bus.publish(status(ctx, TaskState.TASK_STATE_FAILED, 'the model is down'));
      } else if (b === 'no-artifact') {
        bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
      } else if (typeof b === 'object') {
        answer(ctx, bus, [textPart(b.reply)]);
      } else {
        const turn = readTurn(partsText(ctx.userMessage.parts));
        const text = turn.document === null ? 'no document' : replyFor({ ...turn, document: turn.document }, 'edit').text;
        answer(ctx, bus, [
          textPart(text, 'text/markdown'),
          dataPart({ response: { model: 'remote-model-1', agent_version: '0.9', metadata: { input_tokens: 100, output_tokens: 50, cost_usd: 0.01 } } }),
        ]);
      }
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      cancelled.push(taskId);
      const wake = waiting.get(taskId);
      if (wake) return wake();
      bus.finished();
    },
  };
  const cardBody = {
    name: opts.name ?? 'test reviewer',
    description: 'answers bounce dispatches',
    provider: undefined,
    version: '0.9',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
  const listening =
    opts.protocol === '0.3'
      ? await listenV03(cardBody, executor)
      : await listenA2a({
          card: cardBody,
          executor,
          host: '127.0.0.1',
          port: 0,
          ...(opts.token ? { token: opts.token } : {}),
        });
  return Object.assign(agent, listening);
}

/** A v0.3 agent on 127.0.0.1: the SDK's request handler behind its v0.3 JSON-RPC layer, and a v0.3 card (no `supportedInterfaces`). */
async function listenV03(body: CardBody, executor: AgentExecutor): Promise<A2aListening> {
  const { DefaultRequestHandler, InMemoryTaskStore } = a2aServer();
  const { jsonRpcHandler, UserBuilder } = a2aExpress();
  let base = '';
  const coreCard = (): AgentCard => ({
    ...body,
    supportedInterfaces: [{ url: `${base}/`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' }],
    securitySchemes: {},
    securityRequirements: [],
  });
  const handler = new DefaultRequestHandler(coreCard(), new InMemoryTaskStore(), executor);
  const app = expressApp();
  app.get('/.well-known/agent-card.json', (_req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        name: body.name,
        description: body.description,
        version: body.version,
        protocolVersion: '0.3.0',
        url: `${base}/`,
        preferredTransport: 'JSONRPC',
        capabilities: { streaming: true },
        defaultInputModes: body.defaultInputModes,
        defaultOutputModes: body.defaultOutputModes,
        skills: [],
      }),
    );
  });
  app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url: base,
    server,
    close: () => closeServer(server),
  };
}
