/**
 * `bounce serve --a2a` in this process, called by the A2A SDK's client on loopback: the card,
 * a task refined with the configured agents (pass events as status updates, the document and
 * the summary as artifacts), a task without a document, a cancelled task (its run interrupted
 * and finished by `bounce resume`), and the token off loopback.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message, Part, StreamResponse } from '@a2a-js/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { dataPart, partsText, textPart } from '../../adapters/a2a/wire.js';
import { a2aClient } from '../../src/kit/a2a-sdk.js';
import { startA2aAgent, type TestA2aAgent } from '../support/a2a-agent.js';
import { cleanEnv, tempDir } from '../support/cli.js';
import { memIo } from '../support/mem-io.js';
import { runMain } from '../support/run-main.js';
import { waitFor } from '../support/wait-for.js';

const DOC = '# Launch\n\nWe launch on Monday.\n[CONTESTED] Monday is a holiday; launch on Tuesday.\n';
const TOKEN = 'serve-test-token-0001';

interface Served {
  url: string;
  dir: string;
  stop(): Promise<{ code: number; stderr: string }>;
}

const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((s) => s()));
});

/** `bounce serve --a2a --port 0 <args>` in a fresh folder; resolves once it prints its URL. */
async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const dir = tempDir('bounce-serve-');
  const controller = new AbortController();
  const io = memIo(dir, { env: cleanEnv(env), signal: controller.signal });
  const { main } = await import('../../src/cli.js');
  const ended = main(['node', 'bounce', 'serve', '--a2a', '--port', '0', ...args], io);
  let code: number | null = null;
  void ended.then((c) => (code = c));
  await waitFor(() => /^http:\/\/\S+\n/.test(io.out()) || code !== null, 10_000, 'bounce serve to print its URL');
  if (code !== null) throw new Error(`bounce serve exited ${code}: ${io.err()}`);
  const stop = async () => {
    controller.abort();
    return { code: await ended, stderr: io.err() };
  };
  stops.push(stop);
  return { url: io.out().trim(), dir, stop };
}

function userMessage(parts: Part[]): Message {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    contextId: '',
    taskId: '',
    role: 1,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The SDK's client for the agent at `url` (its card read from the well-known path), sending `token` when given. */
async function clientFor(url: string, token?: string) {
  const { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } = a2aClient();
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
  return factory.createFromUrl(url);
}

interface TaskSeen {
  taskId: string | null;
  states: number[];
  lines: string[];
  artifacts: Map<string, Part[]>;
  runId: string | null;
}

/** Sends one message and reads the whole stream; `onEvent` sees each event as it comes. */
async function sendTask(url: string, parts: Part[], opts: { token?: string; onEvent?: (seen: TaskSeen) => void } = {}): Promise<TaskSeen> {
  const client = await clientFor(url, opts.token);
  const seen: TaskSeen = { taskId: null, states: [], lines: [], artifacts: new Map(), runId: null };
  const params = { tenant: '', message: userMessage(parts), configuration: undefined, metadata: undefined };
  for await (const event of client.sendMessageStream(params) as AsyncIterable<StreamResponse>) {
    const p = event.payload;
    if (p?.$case === 'task') seen.taskId = p.value.id;
    else if (p?.$case === 'statusUpdate') {
      seen.taskId ??= p.value.taskId;
      if (p.value.status) seen.states.push(p.value.status.state);
      const said = partsText(p.value.status?.message?.parts ?? []);
      if (said) seen.lines.push(said);
      const runId = (p.value.metadata as { run_id?: string } | undefined)?.run_id;
      if (runId) seen.runId = runId;
    } else if (p?.$case === 'artifactUpdate' && p.value.artifact) seen.artifacts.set(p.value.artifact.artifactId, p.value.artifact.parts);
    opts.onEvent?.(seen);
  }
  return seen;
}

const summaryOf = (seen: TaskSeen) => {
  const part = seen.artifacts.get('summary')?.[0];
  return part?.content?.$case === 'data' ? (part.content.value as { status: string; run_id: string; notes_left: number }) : null;
};

describe('bounce serve --a2a', () => {
  it('serves a card with the refine skill, and a task refines its document: a status update per pass, the document and the summary as artifacts', async () => {
    const { TaskState } = (await import('../../src/kit/a2a-sdk.js')).a2aCore();
    const served = await serve(['--reviewer', 'mock', '--composer', 'mock']);
    const card = (await (await fetch(`${served.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as {
      name: string;
      skills: Array<{ id: string }>;
      supportedInterfaces: Array<{ url: string; protocolBinding: string; protocolVersion: string }>;
    };
    expect(card.name).toBe('bounce');
    expect(card.skills.map((s) => s.id)).toEqual(['refine']);
    expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`)).toEqual([
      `JSONRPC 1.0 ${served.url}/`,
      `HTTP+JSON 1.0 ${served.url}/rest`,
      `JSONRPC 0.3 ${served.url}/`,
      `HTTP+JSON 0.3 ${served.url}/rest`,
    ]);
    // A caller that names no version is on v0.3, and gets the v0.3 card.
    const old = (await (await fetch(`${served.url}/.well-known/agent-card.json`)).json()) as {
      url: string;
      preferredTransport: string;
      protocolVersion: string;
    };
    expect(old).toMatchObject({ url: `${served.url}/`, preferredTransport: 'JSONRPC', protocolVersion: '0.3' });

    const seen = await sendTask(served.url, [{ ...textPart(DOC, 'text/markdown'), filename: 'launch.md' }, dataPart({ bounce: { passes: 2 } })]);
    expect(seen.states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(seen.lines).toEqual(
      expect.arrayContaining([
        'refining launch',
        'pass 1/2: reviewer mock, 1 note in',
        expect.stringMatching(/^pass 2\/2: composer mock/),
        expect.stringMatching(/^run \S+ converged$/),
      ]),
    );
    const doc = seen.artifacts.get('document');
    expect(doc?.[0]?.content?.$case === 'text' && doc[0].content.value).not.toContain('[CONTESTED]');
    const summary = summaryOf(seen);
    expect(summary).toMatchObject({ status: 'converged', run_id: seen.runId });
    // The run is a run like any other, in the folder bounce serve was started in.
    expect(existsSync(join(served.dir, 'runs', summary!.run_id, 'run.json'))).toBe(true);
    const stopped = await served.stop();
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/run \S+ converged/);
  });

  it("takes a task from a client on v0.3 of the protocol (as Gemini CLI's remote agents are), through the SDK's v0.3 transport", async () => {
    const { TaskState } = (await import('../../src/kit/a2a-sdk.js')).a2aCore();
    const { LegacyJsonRpcTransport } = await import('@a2a-js/sdk/compat/v0_3/client');
    const served = await serve(['--reviewer', 'mock']);
    const transport = new LegacyJsonRpcTransport({ endpoint: `${served.url}/` });
    const states: number[] = [];
    let document = '';
    const params = { tenant: '', message: userMessage([textPart(DOC)]), configuration: undefined, metadata: undefined };
    for await (const event of transport.sendMessageStream(params)) {
      const p = event.payload;
      if (p?.$case === 'statusUpdate' && p.value.status) states.push(p.value.status.state);
      if (p?.$case === 'artifactUpdate' && p.value.artifact?.artifactId === 'document') document = partsText(p.value.artifact.parts);
    }
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(document).toContain('We launch on');
    expect(document).not.toContain('[CONTESTED]');
  });

  it('rejects a task that carries no document, and one whose bounce options are wrong, saying what to send', async () => {
    const { TaskState } = (await import('../../src/kit/a2a-sdk.js')).a2aCore();
    const served = await serve(['--reviewer', 'mock']);
    const none = await sendTask(served.url, [dataPart({ bounce: { passes: 2 } })]);
    expect(none.states.at(-1)).toBe(TaskState.TASK_STATE_REJECTED);
    expect(none.lines.at(-1)).toBe('the task carries no document: send it as a text part or a file part');
    const bad = await sendTask(served.url, [textPart(DOC), dataPart({ bounce: { passes: 'two' } })]);
    expect(bad.states.at(-1)).toBe(TaskState.TASK_STATE_REJECTED);
    expect(bad.lines.at(-1)).toMatch(/^the task's bounce options are not valid: passes: .*; send passes, goal or name$/);
  });

  it('a cancelled task stops its run, which ends interrupted, and bounce resume, as the message gives it, finishes it', async () => {
    const { TaskState } = (await import('../../src/kit/a2a-sdk.js')).a2aCore();
    let remote: TestA2aAgent | null = await startA2aAgent({ behaviour: 'stall' });
    stops.push(() => remote?.close() ?? Promise.resolve());
    // Runs kept elsewhere than ./runs: the message's command says where.
    const served = await serve(['--reviewer', `a2a:${remote.url}`, '--runs-dir', 'served-runs']);
    const client = await clientFor(served.url);
    let taskId: string | null = null;
    const task = sendTask(served.url, [{ ...textPart(DOC), filename: 'launch.md' }], { onEvent: (s) => (taskId ??= s.taskId) });
    // Once the reviewer's dispatch is out (the remote agent holds it), the caller cancels.
    await waitFor(() => taskId !== null && (remote?.messages.length ?? 0) > 0, 10_000, "the reviewer's dispatch to reach the remote agent");
    await client.cancelTask({ tenant: '', id: taskId!, metadata: undefined });
    const seen = await task;
    expect(seen.states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    const said = /^cancelled: run (\S+) is interrupted; bounce (resume \1 --runs-dir served-runs) finishes it$/.exec(seen.lines.at(-1) ?? '');
    expect(said, seen.lines.at(-1)).not.toBeNull();
    const runId = seen.runId!;
    const manifest = JSON.parse(readFileSync(join(served.dir, 'served-runs', runId, 'run.json'), 'utf8')) as { status: string };
    expect(manifest.status).toBe('interrupted');
    // The remote agent was asked to stop its task too.
    await waitFor(() => (remote?.cancelled.length ?? 0) > 0, 5_000, 'the remote cancel');

    remote.behaviour = 'edit';
    const resumed = await runMain([...said![2]!.split(' '), '--quiet'], { cwd: served.dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(served.dir, 'served-runs', runId, 'run.json'), 'utf8')).status).toBe('converged');
    await remote.close();
    remote = null;
  });

  it('stopped (Ctrl-C) with a task in progress: the run ends interrupted, the task cancelled, and the exit is 130', async () => {
    const { TaskState } = (await import('../../src/kit/a2a-sdk.js')).a2aCore();
    const remote = await startA2aAgent({ behaviour: 'stall' });
    stops.push(() => remote.close());
    const served = await serve(['--reviewer', `a2a:${remote.url}`]);
    let taskId: string | null = null;
    const task = sendTask(served.url, [textPart(DOC)], { onEvent: (s) => (taskId ??= s.taskId) });
    await waitFor(() => taskId !== null && remote.messages.length > 0, 10_000, "the reviewer's dispatch to reach the remote agent");
    const stopped = await served.stop();
    expect(stopped.code).toBe(130);
    const seen = await task.catch(() => null);
    // The stream may close with the server before the last update reaches the client; the run folder says what happened.
    if (seen?.states.length) expect(seen.states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    const line = /task \S+: run (\S+) interrupted/.exec(stopped.stderr);
    expect(line, stopped.stderr).not.toBeNull();
    expect(JSON.parse(readFileSync(join(served.dir, 'runs', line![1]!, 'run.json'), 'utf8')).status).toBe('interrupted');
  });

  it('off loopback it needs the token; with one set, every call but the card must carry it', async () => {
    const dir = tempDir('bounce-serve-');
    const open = await runMain(['serve', '--a2a', '--host', '0.0.0.0', '--reviewer', 'mock'], { cwd: dir });
    expect(open.code).toBe(2);
    expect(open.stderr.trim()).toBe(
      'bounce: --host 0.0.0.0 is not a loopback address and BOUNCE_A2A_TOKEN is not set: set BOUNCE_A2A_TOKEN to a token that callers send as a bearer token, or serve on 127.0.0.1',
    );
    expect(open.stderr).not.toContain(TOKEN);

    const served = await serve(['--reviewer', 'mock'], { BOUNCE_A2A_TOKEN: TOKEN });
    const card = (await (await fetch(`${served.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as {
      securityRequirements: unknown[];
    };
    expect(card.securityRequirements).toHaveLength(1);
    const bare = await fetch(`${served.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}',
    });
    expect(bare.status).toBe(401);
    const wrong = await fetch(`${served.url}/`, { method: 'POST', headers: { authorization: 'Bearer nope', 'content-type': 'application/json' }, body: '{}' });
    expect(wrong.status).toBe(401);
    const seen = await sendTask(served.url, [textPart(DOC)], { token: TOKEN });
    expect(summaryOf(seen)?.status).toBe('converged');
  });

  it('refuses a missing --a2a, a taken port and an agent that needs a person, each in one line with its fix', async () => {
    const dir = tempDir('bounce-serve-');
    const bare = await runMain(['serve'], { cwd: dir });
    expect(bare.code).toBe(2);
    expect(bare.stderr.trim()).toBe('bounce: bounce serve needs a protocol to serve: pass --a2a');
    const served = await serve(['--reviewer', 'mock']);
    const port = new URL(served.url).port;
    const taken = await runMain(['serve', '--a2a', '--port', port, '--reviewer', 'mock'], { cwd: dir });
    expect(taken.code).toBe(2);
    expect(taken.stderr.trim()).toBe(`bounce: port ${port} on 127.0.0.1 is taken: pass another --port (0 picks a free one)`);
    const human = await runMain(['serve', '--a2a', '--port', '0', '--reviewer', 'human'], { cwd: dir });
    expect(human.code).toBe(2);
    expect(human.stderr).toContain('a served agent cannot wait on a person');
  });
});
