/**
 * The BUILT gemini adapter (dist/adapters/gemini/program.js) against the REAL Gemini CLI (the
 * pinned one in test/agents), pointed at the scripted model server through
 * GOOGLE_GEMINI_BASE_URL. No real API, no real user config.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterRequest, runAdapterProgram, type AdapterRun } from '../../support/adapter-process.js';
import { agentBin } from '../../support/agents.js';
import { tempDir } from '../../support/cli.js';
import { cliHomeEnv, writeGeminiHome } from '../../support/cli-homes.js';
import { CONTESTED_NOTE, insertNote, startModelServer, type Behaviour, type ModelServer } from '../../support/model-server.js';
import { bouncePrompt, DOC, interruptedDispatch } from '../cli-live-support.js';

const KEY = 'gm-test-FAKEGEMINIKEY789';

describe('gemini adapter against the real Gemini CLI', () => {
  let server: ModelServer;
  let home: string;

  beforeAll(async () => {
    server = await startModelServer({ cache: { read: 7, write: 0 } });
    home = tempDir('bounce-gemini-home-');
    // A user's MCP server and hook, and a file in the folder bounce runs from: none may reach a text pass.
    writeGeminiHome(home, {
      mcpServers: { spy: { command: 'sh', args: ['-c', `touch ${join(home, 'mcp.ran')}`] } },
      hooks: { BeforeAgent: [{ hooks: [{ type: 'command', command: `touch ${join(home, 'hook.ran')}` }] }] },
    });
  });
  afterAll(async () => server?.close());

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...cliHomeEnv(home, server.url),
    GEMINI_API_KEY: KEY,
    BOUNCE_GEMINI_BIN: agentBin('gemini'),
    ...extra,
  });
  const stalled = (before: number): boolean => server.requests.slice(before).some((q) => q.behaviour === 'stall');
  async function dispatch(behaviours: Behaviour[], opts: { deadlineMs?: number; env?: Record<string, string> } = {}) {
    server.script(behaviours);
    const before = server.requests.length;
    const run: AdapterRun = await runAdapterProgram('gemini', adapterRequest(bouncePrompt(DOC), {}, opts.deadlineMs ?? 60_000), env(opts.env));
    expect(run.stdout + run.stderr).not.toContain(KEY);
    return { run, calls: server.requests.slice(before) };
  }

  it('returns the reply with usage, model and version, in one call with no tool, tree, MCP server or hook', async () => {
    const { run, calls } = await dispatch(['edit']);
    expect(run.json).toMatchObject({ ok: true, stop: 'complete', reply: insertNote(DOC, CONTESTED_NOTE), model: 'gemini-2.5-pro', agent_version: '0.61.0' });
    expect(run.json.usage).toMatchObject({ provider_reported: true, cost_usd: null, cache_read_tokens: 7 });
    expect(run.json.usage.input_tokens).toBeGreaterThan(7);
    // One model call: the model is always named, so no routing call comes first.
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse']);
    const body = calls[0]?.body as { tools?: Array<{ functionDeclarations?: unknown[] }> };
    expect((body.tools ?? []).flatMap((t) => t.functionDeclarations ?? [])).toEqual([]);
    expect(JSON.stringify(body)).not.toContain('Directory Structure');
    expect(calls[0]?.headers['x-goog-api-key']).toBe(KEY);
    expect(existsSync(join(home, 'mcp.ran'))).toBe(false);
    expect(existsSync(join(home, 'hook.ran'))).toBe(false);
    // The session Gemini CLI recorded (with the prompt) is removed with the adapter's folder.
    const projects = JSON.parse(readFileSync(join(home, '.gemini', 'projects.json'), 'utf8')).projects;
    expect(Object.keys(projects).filter((p) => p.includes('bounce-gemini-'))).toEqual([]);
    expect(readdirSync(join(home, '.gemini', 'tmp')).filter((n) => n.startsWith('bounce-gemini-'))).toEqual([]);
  });

  it('types a 500 as provider, a 401 as auth and a 429 as rate_limit, with no retry inside the CLI', async () => {
    const outage = await dispatch([{ status: 500, message: 'scripted outage' }]);
    expect(outage.run.json).toMatchObject({ ok: false, error: { type: 'provider', status: 500 } });
    expect(outage.calls).toHaveLength(1);
    const auth = await dispatch([{ status: 401, message: 'API key not valid' }]);
    expect(auth.run.json).toMatchObject({ ok: false, error: { type: 'auth', status: 401 } });
    const limited = await dispatch([{ status: 429, retryAfter: 1 }]);
    expect(limited.run.json).toMatchObject({ ok: false, error: { type: 'rate_limit', status: 429 } });
    expect(limited.calls).toHaveLength(1);
  });

  it('reports a stream that broke off as a failure, never as an empty reply', async () => {
    const { run } = await dispatch([{ streamError: 'scripted mid-stream failure' }]);
    expect(run.json).toMatchObject({ ok: false, error: { type: 'provider', message: expect.stringMatching(/finish reason|NO_FINISH_REASON/i) } });
  });

  it('takes the CLI down when the runner interrupts the adapter', async () => {
    server.script(['stall']);
    const before = server.requests.length;
    const { result, during, after } = await interruptedDispatch('gemini', env(), () => stalled(before));
    expect(result).toMatchObject({ ok: false, error: { type: 'interrupted' } });
    expect(during.length).toBeGreaterThan(1);
    expect(after).toEqual([]);
  });

  it('--check reports the version and the auth method by name, offline', async () => {
    const good = await runAdapterProgram('gemini', {}, env(), ['--check']);
    expect(good.json).toMatchObject({
      ok: true,
      version: '0.61.0',
      problems: [],
      resolved: { model: 'gemini-2.5-pro', auth_type: 'gemini-api-key', auth: 'api_key', auth_source: 'GEMINI_API_KEY' },
    });
    const bare = tempDir('bounce-gemini-bare-');
    mkdirSync(join(bare, '.gemini'));
    writeFileSync(join(bare, '.gemini', 'settings.json'), '{}');
    const none = await runAdapterProgram('gemini', {}, { HOME: bare, BOUNCE_GEMINI_BIN: agentBin('gemini') }, ['--check']);
    expect(none.json).toMatchObject({ ok: false, problems: [{ kind: 'credentials', fix: expect.stringContaining('GEMINI_API_KEY') }] });
    const missing = await runAdapterProgram('gemini', {}, { HOME: home, PATH: '/nonexistent' }, ['--check']);
    expect(missing.json).toMatchObject({
      ok: false,
      problems: [{ kind: 'not_found', message: 'gemini not found on PATH', fix: 'install it with npm i -g @google/gemini-cli or set BOUNCE_GEMINI_BIN' }],
    });
    expect(good.stdout).not.toContain(KEY);
  });
});
