/**
 * callAgent: built-in adapters run inside the runner (no adapter process), held to the
 * contract as a program's stdout is; any CLI they start is killed with its whole group at
 * the deadline or on abort. The CLI is a fake (test/fixtures/cli/fake-cli.mjs).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { callAgent } from '../../src/adapters/call-agent.js';
import type { AdapterRequest } from '../../src/contract/contract.js';
import { createProbe } from '../../src/kit/detect.js';
import type { CallOptions } from '../../src/contract/host.js';
import { adapterRequest, ROOT } from '../support/adapter-process.js';
import { failure, killAll, pidsIn, processListeners, running, success } from './host-support.js';
import { waitFor } from '../support/wait-for.js';
import { specAgent } from '../support/test-agent.js';

const FAKE_CLI = join(ROOT, 'test/fixtures/cli/fake-cli.mjs');
const MOCKS = join(ROOT, 'test/fixtures/mock');
const SECRET = 'sk-ant-FAKESECRET123456';
const dir = mkdtempSync(join(tmpdir(), 'bounce-call-agent-'));
const started: number[] = [];

afterEach(() => killAll(started.splice(0)));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A request as the runner sends it, with the deadline a minute away. */
const request = (prompt = 'Revise this.', extra: Partial<AdapterRequest> = {}): AdapterRequest => adapterRequest(prompt, {}, 60_000, extra) as AdapterRequest;

const OPTS: CallOptions = { timeoutMs: 30_000, maxOutputBytes: 1_000_000 };

/** The fake CLI as claude (or codex), with only PATH inherited. */
function fakeEnv(extra: Record<string, string> = {}, bin = 'BOUNCE_CLAUDE_BIN'): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', [bin]: FAKE_CLI, ...extra };
}

describe('callAgent: a built-in CLI adapter in-process', () => {
  it('answers through the fake CLI; its stderr is kept with ANSI stripped and the key blanked', async () => {
    const before = processListeners();
    const r = success(
      await callAgent(specAgent('claude'), request(), { ...OPTS, env: fakeEnv({ FAKE_CLI_REPLY: 'the document', ANTHROPIC_API_KEY: SECRET }) }),
    );
    expect(r.response).toMatchObject({ ok: true, reply: 'the document', stop: 'complete', model: 'fake-model', agent_version: '9.8.7' });
    expect(r.stderr).toBe('fake cli: key *** in use\n');
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(JSON.parse(r.stdout)).toEqual(r.response);
    expect(r.exitCode).toBeNull();
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(processListeners()).toEqual(before);
  });

  it('uses the env given as the whole environment: no PATH, no CLI found', async () => {
    const r = failure(await callAgent(specAgent('claude'), request(), { ...OPTS, env: {} }));
    expect(r.error).toEqual({
      type: 'config',
      message: 'claude not found on PATH: install it with npm i -g @anthropic-ai/claude-code or set BOUNCE_CLAUDE_BIN',
    });
  });

  it('two concurrent calls keep their own replies and stderr', async () => {
    const call = (reply: string, key: string) =>
      callAgent(specAgent('claude'), request(), { ...OPTS, env: fakeEnv({ FAKE_CLI_REPLY: reply, ANTHROPIC_API_KEY: key }) });
    const [a, b] = await Promise.all([call('reply A', 'key-aaaa-1'), call('reply B', 'key-bbbb-2')]);
    expect([success(a).response.reply, success(b).response.reply]).toEqual(['reply A', 'reply B']);
    expect([a.stderr, b.stderr]).toEqual(['fake cli: key *** in use\n', 'fake cli: key *** in use\n']);
  });

  it('at the deadline kills the CLI and the child it started, although both ignore SIGTERM', async () => {
    const pidFile = join(dir, 'deadline.pids');
    const before = processListeners();
    const r = failure(
      await callAgent(specAgent('claude'), request(), { ...OPTS, timeoutMs: 1000, env: fakeEnv({ FAKE_CLI_MODE: 'hang', FAKE_CLI_PIDS: pidFile }) }),
    );
    const pids = pidsIn(pidFile);
    started.push(...pids);
    expect(r.error.type).toBe('timeout');
    expect(r.error.message).toBe('claude did not answer within 1 s; its process tree was killed');
    expect(pids).toHaveLength(2);
    await waitFor(() => !pids.some(running), 10_000, 'the CLI group to die');
    expect(processListeners()).toEqual(before);
  });

  it('a child that escaped the CLI group (setsid) and holds stdout does not stretch the deadline', async () => {
    const pidFile = join(dir, 'escape.pids');
    const begun = Date.now();
    // The request's deadline (2 s) is the adapter's own; the runner's timeoutMs is far away.
    const r = failure(
      await callAgent(specAgent('claude'), request('Revise this.', { deadline: new Date(Date.now() + 2000).toISOString() }), {
        ...OPTS,
        env: fakeEnv({ FAKE_CLI_MODE: 'escape', FAKE_CLI_PIDS: pidFile }),
      }),
    );
    const pids = pidsIn(pidFile);
    started.push(...pids);
    expect(r.error.type).toBe('timeout');
    expect(r.error.message).toMatch(/^claude did not finish before the deadline/);
    expect(Date.now() - begun).toBeLessThan(4000);
    await waitFor(() => !running(pids[0] ?? 0), 10_000, 'the CLI to die');
  });

  it('an abort of the signal kills the CLI group and gives interrupted', async () => {
    const pidFile = join(dir, 'abort.pids');
    const controller = new AbortController();
    const pending = callAgent(specAgent('claude'), request(), {
      ...OPTS,
      signal: controller.signal,
      env: fakeEnv({ FAKE_CLI_MODE: 'hang', FAKE_CLI_PIDS: pidFile }),
    });
    await waitFor(() => pidsIn(pidFile).length === 2, 10_000, 'the fake CLI to start its child');
    const pids = pidsIn(pidFile);
    started.push(...pids);
    controller.abort();
    const r = failure(await pending);
    expect(r.error).toEqual({ type: 'interrupted', message: 'interrupted' });
    await waitFor(() => !pids.some(running), 10_000, 'the CLI group to die');
  });

  it('codex: one dispatch starts one CLI process; the version comes from the probe the check filled', async () => {
    const log = join(dir, 'codex.log');
    const env = fakeEnv({ FAKE_CLI_LOG: log, FAKE_CLI_REPLY: 'done', FAKE_CLI_NAME: 'codex' }, 'BOUNCE_CODEX_BIN');
    const probe = createProbe();
    await probe.version(FAKE_CLI, env);
    rmSync(log, { force: true });
    const r = success(await callAgent(specAgent('codex'), request(), { ...OPTS, env, probe }));
    expect(r.response).toMatchObject({ reply: 'done', agent_version: '9.8.7' });
    const starts = readFileSync(log, 'utf8').trim().split('\n');
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatch(/^exec --json /);
  });
});

describe('callAgent: the contract, deadlines and crashes (mock)', () => {
  const mock = (script: string) => specAgent(`mock:${join(MOCKS, script)}`);
  const scripted = (script: string): AdapterRequest => request('Revise this.', { options: mock(script).options });

  it('a response that breaks the contract is invalid_response', async () => {
    const r = failure(await callAgent(mock('invalid-json.yaml'), scripted('invalid-json.yaml'), OPTS));
    expect(r.error.type).toBe('invalid_response');
    expect(r.error.message).toMatch(/response breaks the adapter contract at top level/);
  });

  it('a response larger than maxOutputBytes is invalid_response', async () => {
    const r = failure(await callAgent(mock('big-reply.yaml'), scripted('big-reply.yaml'), { ...OPTS, maxOutputBytes: 1000 }));
    expect(r.error).toMatchObject({ type: 'invalid_response', message: expect.stringContaining('more than 1000 characters') });
  });

  it('a request that breaks the contract is a config failure value, not an exception', async () => {
    const bad = { ...request(), contract_version: 2 } as unknown as AdapterRequest;
    const r = failure(await callAgent(specAgent('mock'), bad, OPTS));
    expect(r.error.type).toBe('config');
    expect(r.error.message).toMatch(/^invalid adapter request: contract_version/);
  });

  it('a crash is a crash value with what the adapter wrote to stderr', async () => {
    const r = failure(await callAgent(mock('crash.yaml'), scripted('crash.yaml'), OPTS));
    expect(r.error).toEqual({ type: 'crash', message: `mock:${join(MOCKS, 'crash.yaml')} crashed: mock: crashing on purpose` });
    expect(r.stderr).toBe('mock: crashing on purpose\n');
  });

  it('a hang ends at the deadline as timeout, and on abort as interrupted', async () => {
    const t0 = Date.now();
    expect(failure(await callAgent(mock('hang.yaml'), scripted('hang.yaml'), { ...OPTS, timeoutMs: 200 })).error.type).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(2000);
    const controller = new AbortController();
    const pending = callAgent(mock('hang.yaml'), scripted('hang.yaml'), { ...OPTS, signal: controller.signal });
    controller.abort();
    expect(failure(await pending).error.type).toBe('interrupted');
  });

  it('the built-in mock answers in-process and leaves no listener on process', async () => {
    const before = processListeners();
    const doc = '<<<BOUNCE-DOCUMENT-ab12>>>\n# T\n\n[CONTESTED] x\n\nBody.\n<<<END-BOUNCE-DOCUMENT-ab12>>>';
    const r = success(await callAgent(specAgent('mock'), request(doc, { role: 'composer' }), OPTS));
    expect(r.response).toMatchObject({ reply: '# T\n\nBody.', agent_version: 'mock-1' });
    expect(processListeners()).toEqual(before);
  });
});

describe('callAgent: cmd: agents', () => {
  it('stay subprocesses behind the same contract', async () => {
    const doc = '<<<BOUNCE-DOCUMENT-ab12>>>\nKeep.\n[CONTESTED] drop\n<<<END-BOUNCE-DOCUMENT-ab12>>>';
    const r = success(await callAgent(specAgent('cmd:test/fixtures/adapters/echo-resolve.mjs'), request(doc), OPTS));
    expect(r.response).toMatchObject({ reply: 'Keep.', agent_version: 'fixture-1' });
    expect(r.exitCode).toBe(0);
  });
});

describe('callAgent: ready (the dispatch on disk before anything is sent)', () => {
  const deferred = (): { promise: Promise<void>; resolve: () => void; reject: () => void } => {
    let resolve: () => void = () => {};
    let reject: () => void = () => {};
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = () => rej(new Error('not recorded'));
    });
    return { promise, resolve, reject };
  };
  const starts = (log: string): string[] => {
    try {
      return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };

  it('a CLI adapter starts its CLI at once and sends the prompt once ready resolves', async () => {
    const log = join(dir, 'early.log');
    const gate = deferred();
    const pending = callAgent(specAgent('claude'), request(), { ...OPTS, ready: gate.promise, env: fakeEnv({ FAKE_CLI_REPLY: 'revised', FAKE_CLI_LOG: log }) });
    await waitFor(() => starts(log).some((a) => a.startsWith('-p')), 5000, 'the CLI to start before the prompt may go');
    gate.resolve();
    expect(success(await pending).response).toMatchObject({ reply: 'revised' });
  });

  it('when ready rejects, nothing is sent: an interrupted call whose CLI is gone', async () => {
    const log = join(dir, 'called-off.log');
    const gate = deferred();
    const pending = callAgent(specAgent('codex'), request(), {
      ...OPTS,
      ready: gate.promise,
      env: fakeEnv({ FAKE_CLI_REPLY: 'revised', FAKE_CLI_LOG: log }, 'BOUNCE_CODEX_BIN'),
    });
    await waitFor(() => starts(log).some((a) => a.startsWith('exec')), 5000, 'the CLI to start');
    gate.reject();
    expect(failure(await pending).error).toMatchObject({ type: 'interrupted' });
    expect(starts(log)).toHaveLength(1); // started once, never again
  });

  it('an adapter that does not start early (mock, cmd:) is not called before ready, nor at all when it rejects', async () => {
    for (const spec of ['mock', 'cmd:test/fixtures/adapters/echo-resolve.mjs']) {
      const gate = deferred();
      let settled = false;
      const pending = callAgent(specAgent(spec), request(), { ...OPTS, ready: gate.promise }).then((r) => {
        settled = true;
        return r;
      });
      for (let turn = 0; turn < 5; turn++) await new Promise((r) => setImmediate(r));
      expect(settled).toBe(false);
      gate.reject();
      expect(failure(await pending).error).toMatchObject({ type: 'interrupted' });
    }
  });
});
