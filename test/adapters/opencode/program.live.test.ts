/**
 * The BUILT opencode adapter (dist/adapters/opencode/program.js) against the REAL opencode (the
 * pinned one in test/agents), through an OpenAI-compatible provider in a temporary
 * opencode.json that points at the scripted model server. No real API, no real user config.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterRequest, runAdapterProgram, type AdapterRun } from '../../support/adapter-process.js';
import { agentBin } from '../../support/agents.js';
import { tempDir } from '../../support/cli.js';
import { cliHomeEnv, OPENCODE_MODEL, writeOpencodeConfig } from '../../support/cli-homes.js';
import { CONTESTED_NOTE, insertNote, startModelServer, type Behaviour, type ModelServer } from '../../support/model-server.js';
import { bouncePrompt, DOC, interruptedDispatch } from '../cli-live-support.js';

const KEY = 'sk-test-FAKEOPENCODEKEY321';

describe('opencode adapter against the real opencode', () => {
  let server: ModelServer;
  let home: string;

  beforeAll(async () => {
    server = await startModelServer({ cache: { read: 7, write: 0 } });
    home = tempDir('bounce-opencode-home-');
    // The user's config allows every tool and has an MCP server: neither may reach a text pass.
    writeOpencodeConfig(join(home, '.config'), server.url, {
      model: OPENCODE_MODEL,
      permission: { '*': 'allow', bash: 'allow' },
      agent: { build: { permission: { read: 'allow' } } },
      mcp: { spy: { type: 'local', command: ['sh', '-c', `touch ${join(home, 'mcp.ran')}`] } },
    });
  });
  afterAll(async () => server?.close());

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...cliHomeEnv(home, server.url),
    BOUNCE_TEST_OPENCODE_KEY: KEY,
    BOUNCE_OPENCODE_BIN: agentBin('opencode'),
    ...extra,
  });
  const stalled = (before: number): boolean => server.requests.slice(before).some((q) => q.behaviour === 'stall');
  async function dispatch(behaviours: Behaviour[], opts: { deadlineMs?: number; env?: Record<string, string> } = {}) {
    server.script(behaviours);
    const before = server.requests.length;
    const run: AdapterRun = await runAdapterProgram('opencode', adapterRequest(bouncePrompt(DOC), {}, opts.deadlineMs ?? 60_000), env(opts.env));
    expect(run.stdout + run.stderr).not.toContain(KEY);
    return { run, calls: server.requests.slice(before) };
  }

  it('returns the reply with usage and version in one model call, with no tool and no MCP server', async () => {
    const { run, calls } = await dispatch(['edit']);
    expect(run.json).toMatchObject({ ok: true, stop: 'complete', reply: insertNote(DOC, CONTESTED_NOTE), model: OPENCODE_MODEL, agent_version: '1.18.33' });
    expect(run.json.usage).toMatchObject({ provider_reported: true, cost_usd: null, cache_read_tokens: 7 });
    expect(run.json.usage.input_tokens).toBeGreaterThan(7);
    // No second call to make up a session title (--title), no tool offered (every tool denied).
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /v1/chat/completions']);
    expect((calls[0]?.body as { tools?: unknown[] } | undefined)?.tools ?? []).toEqual([]);
    expect(calls[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(existsSync(join(home, 'mcp.ran'))).toBe(false);
    // The session (with the prompt) went to a throwaway database, not the user's.
    expect(existsSync(join(home, '.local', 'share', 'opencode', 'opencode.db'))).toBe(false);
  });

  it('reports a reply cut at the output cap as truncated, and types a 401 as auth', async () => {
    const cut = await dispatch(['truncate']);
    expect(cut.run.json).toMatchObject({ ok: true, stop: 'truncated', reply: DOC.slice(0, Math.floor(DOC.length / 2)) });
    const auth = await dispatch([{ status: 401, message: 'invalid api key' }]);
    expect(auth.run.json).toMatchObject({ ok: false, error: { type: 'auth', status: 401 } });
    expect(auth.calls).toHaveLength(1);
  });

  it('takes the CLI down when the runner interrupts the adapter', async () => {
    server.script(['stall']);
    const before = server.requests.length;
    const { result, during, after } = await interruptedDispatch('opencode', env(), () => stalled(before));
    expect(result).toMatchObject({ ok: false, error: { type: 'interrupted' } });
    expect(during.length).toBeGreaterThan(1);
    expect(after).toEqual([]);
  });

  it('--check reports the version, the model and where its credential comes from, offline', async () => {
    const good = await runAdapterProgram('opencode', {}, env(), ['--check']);
    expect(good.json).toMatchObject({ ok: true, version: '1.18.33', problems: [], resolved: { model: OPENCODE_MODEL, auth_source: 'opencode.json' } });
    const noKey = await runAdapterProgram('opencode', { model: 'anthropic/claude-sonnet-4-5' }, env(), ['--check']);
    expect(noKey.json).toMatchObject({ ok: false, problems: [{ kind: 'credentials', fix: expect.stringContaining('ANTHROPIC_API_KEY') }] });
    const missing = await runAdapterProgram('opencode', {}, { HOME: home, PATH: '/nonexistent' }, ['--check']);
    expect(missing.json).toMatchObject({ ok: false, problems: [{ kind: 'not_found', message: 'opencode not found on PATH' }] });
    expect(readdirSync(home)).not.toContain('opencode.db');
  });
});
