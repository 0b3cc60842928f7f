/**
 * The BUILT codex adapter (dist/adapters/codex/program.js) against the REAL Codex CLI from
 * node_modules, through a custom model provider in a temporary CODEX_HOME that points at
 * the scripted model server. No real API, no real user config.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterRequest, runAdapterProgram, type AdapterRun } from '../../support/adapter-process.js';
import { agentBin } from '../../support/agents.js';
import { scriptedProviderToml } from '../../support/codex-config.js';
import { CONTESTED_NOTE, insertNote, removeNotes, startModelServer, type Behaviour, type ModelServer } from '../../support/model-server.js';
import { waitFor } from '../../support/wait-for.js';
import { bouncePrompt, DOC, interruptedDispatch, newMarker, processesLeft, processesWith } from '../cli-live-support.js';

const BIN = agentBin('codex');
const KEY = 'sk-test-FAKECODEXKEY456';

describe('codex adapter against the real codex CLI', () => {
  let server: ModelServer;
  let home: string;

  beforeAll(async () => {
    // Every answer reports 7 prompt tokens read from the cache (the Responses API reports no writes).
    server = await startModelServer({ cache: { read: 7, write: 0 } });
    home = mkdtempSync(join(tmpdir(), 'bounce-codex-home-'));
    // No retry settings here: the adapter must turn the provider's retries off itself.
    writeFileSync(
      join(home, 'config.toml'),
      [
        ...scriptedProviderToml(server.url),
        // A user's MCP server: it must not start for a text pass.
        '[mcp_servers.spy]',
        'command = "sh"',
        `args = ["-c", "touch ${join(home, 'mcp.ran')}"]`,
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await server?.close();
    rmSync(home, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    HOME: home,
    CODEX_HOME: home,
    BOUNCE_TEST_CODEX_KEY: KEY,
    BOUNCE_CODEX_BIN: BIN,
    ...extra,
  });
  /** A request made since `before` took the scripted stall: the CLI is waiting on the model. */
  const stalled = (before: number): boolean => server.requests.slice(before).some((q) => q.behaviour === 'stall');
  async function dispatch(
    behaviours: Behaviour[],
    opts: { deadlineMs?: number; prompt?: string; env?: Record<string, string> } = {},
  ): Promise<{ run: AdapterRun; calls: typeof server.requests }> {
    server.script(behaviours);
    const before = server.requests.length;
    const run = await runAdapterProgram('codex', adapterRequest(opts.prompt ?? bouncePrompt(DOC), {}, opts.deadlineMs ?? 60_000), env(opts.env));
    expect(run.stdout).not.toContain(KEY);
    expect(run.stderr).not.toContain(KEY);
    return { run, calls: server.requests.slice(before) };
  }
  const posts = (calls: ModelServer['requests']) => calls.filter((c) => c.method === 'POST');

  it('returns the reply with usage, model and version; metadata warnings stay warnings', async () => {
    const { run, calls } = await dispatch(['edit']);
    expect(run.json).toMatchObject({ ok: true, stop: 'complete', reply: insertNote(DOC, CONTESTED_NOTE), model: 'mock-model', agent_version: '0.171.0' });
    expect(run.json.usage).toMatchObject({ provider_reported: true, cost_usd: null, cache_read_tokens: 7, cache_write_tokens: null });
    expect(run.json.usage.input_tokens).toBeGreaterThan(7);
    expect(run.json.usage.output_tokens).toBeGreaterThan(0);
    expect(run.stderr).toContain('codex warning: Model metadata');
    expect(run.stderr).not.toMatch(/unrecognized configuration/); // every -c the adapter sets is known to this codex
    expect(posts(calls).map((c) => c.path)).toEqual(['/v1/responses']);
    expect(posts(calls)[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(posts(calls)[0]?.stream).toBe(true);
    // No shell, web search or sub-agents offered to the model.
    const tools = ((posts(calls)[0]?.body as { tools?: Array<{ name?: string; type?: string }> } | undefined)?.tools ?? []).map((t) => t.name ?? t.type);
    expect(tools).not.toContain('exec_command');
    expect(tools).not.toContain('web_search');
    expect(tools).not.toContain('multi_agent_v1');
    expect(existsSync(join(home, 'mcp.ran'))).toBe(false);
  });

  it('reads a composer turn too', async () => {
    const noted = insertNote(DOC, CONTESTED_NOTE);
    const { run } = await dispatch(['edit'], { prompt: bouncePrompt(noted, 'composer', true) });
    expect(run.json).toMatchObject({ ok: true, reply: removeNotes(noted) });
  });

  it('reports response.incomplete as truncated, with the partial text', async () => {
    const { run, calls } = await dispatch(['truncate']);
    expect(run.json).toMatchObject({ ok: true, stop: 'truncated' });
    expect(run.json.reply).toBe(DOC.slice(0, Math.floor(DOC.length / 2)));
    expect(posts(calls).length).toBe(1);
  });

  it('returns an empty reply as an empty reply', async () => {
    const { run } = await dispatch(['empty']);
    expect(run.json).toMatchObject({ ok: true, reply: '', stop: 'complete', usage: { provider_reported: true } });
  });

  it('types a 500 as a provider error, with no retry inside the CLI', async () => {
    const { run, calls } = await dispatch([{ status: 500, message: 'scripted outage' }]);
    expect(run.json).toMatchObject({ ok: false, error: { type: 'provider', status: 500 } });
    expect(posts(calls).length).toBe(1);
  });

  it('types a 401 as auth', async () => {
    const { run, calls } = await dispatch([{ status: 401, message: 'invalid api key' }]);
    expect(run.json).toMatchObject({ ok: false, error: { type: 'auth', status: 401 } });
    expect(posts(calls).length).toBe(1);
  });

  it('types a 429 as rate_limit', async () => {
    const { run, calls } = await dispatch([{ status: 429, retryAfter: 1 }]);
    expect(run.json).toMatchObject({ ok: false, error: { type: 'rate_limit', status: 429 } });
    expect(posts(calls).length).toBe(1);
  });

  it("types a used-up plan as quota, with the reset time codex prints in the user's zone", async () => {
    const reset = Math.floor(Date.now() / 1000 / 60) * 60 + 4 * 86_400 + 20 * 3600;
    const body = { error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: reset } };
    const before = server.requests.length;
    server.script([{ status: 429, body }]);
    const run = await runAdapterProgram('codex', adapterRequest(bouncePrompt(DOC), {}, 60_000), env({ TZ: 'Europe/Paris' }));
    expect(run.json).toMatchObject({ ok: false, error: { type: 'quota', resets_at: new Date(reset * 1000).toISOString() } });
    expect(run.json.error.message).toMatch(/^You’ve hit your usage limit\. .* try again at /);
    expect(posts(server.requests.slice(before)).length).toBe(1);
  });

  it('types a refused connection as network, at once', async () => {
    const dead = mkdtempSync(join(tmpdir(), 'bounce-codex-dead-'));
    writeFileSync(
      join(dead, 'config.toml'),
      'model_provider = "dead"\nmodel = "m"\n[model_providers.dead]\nname = "Dead"\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "responses"\n',
    );
    const run = await runAdapterProgram('codex', adapterRequest(bouncePrompt(DOC), {}, 30_000), env({ CODEX_HOME: dead }));
    rmSync(dead, { recursive: true, force: true });
    expect(run.json).toMatchObject({ ok: false, error: { type: 'network' } });
    expect(run.ms).toBeLessThan(10_000);
  });

  it('kills the CLI process tree at the deadline and reports a timeout', async () => {
    const marker = newMarker();
    const before = server.requests.length;
    // A deadline a loaded machine's CLI start fits in: the request must be out before it.
    const pending = dispatch(['stall'], { deadlineMs: 15_000, env: { [marker]: '1' } });
    await waitFor(() => stalled(before), 15_000, "the CLI's request to reach the model server");
    // The adapter and the native codex: the npm launcher (codex.js, a Node process of its own on Node 20) is not started.
    const running = processesWith(marker);
    expect(running.length).toBeGreaterThanOrEqual(2);
    const cmdline = (pid: number): string => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        return ''; // a helper that is gone already
      }
    };
    expect(running.map(cmdline)).not.toContainEqual(expect.stringContaining('@openai/codex/bin/codex.js'));
    expect(running.map(cmdline)).toContainEqual(expect.stringMatching(/^\S*@openai\/codex-[\w-]+\/vendor\/\S+\/codex\0exec\0/));
    const { run, calls } = await pending;
    expect(run.json).toMatchObject({ ok: false, error: { type: 'timeout' }, agent_version: '0.171.0' });
    expect(posts(calls).length).toBe(1);
    expect(await processesLeft(marker)).toEqual([]);
  });

  it('takes the CLI down when the runner interrupts the adapter', async () => {
    server.script(['stall']);
    const before = server.requests.length;
    const { result, during, after } = await interruptedDispatch('codex', env(), () => stalled(before));
    expect(result).toMatchObject({ ok: false, error: { type: 'interrupted' } });
    expect(during.length).toBeGreaterThanOrEqual(2);
    expect(after).toEqual([]);
  });

  it('--check reports the version, the provider, how it authenticates and a missing provider key', async () => {
    const good = await runAdapterProgram('codex', {}, env(), ['--check']);
    expect(good.json).toMatchObject({
      ok: true,
      version: '0.171.0',
      problems: [],
      warnings: [],
      resolved: { model: 'mock-model', model_provider: 'bounce-test', auth: 'api_key', auth_source: 'BOUNCE_TEST_CODEX_KEY' },
    });
    const { BOUNCE_TEST_CODEX_KEY: _unused, ...noKey } = env();
    const without = await runAdapterProgram('codex', {}, noKey, ['--check']);
    expect(without.json).toMatchObject({ ok: false, problems: [{ kind: 'credentials', message: expect.stringContaining('BOUNCE_TEST_CODEX_KEY') }] });
    // The built-in provider with nothing stored: the real `codex login status` says so, offline.
    const bare = mkdtempSync(join(tmpdir(), 'bounce-codex-bare-'));
    const unlogged = await runAdapterProgram('codex', {}, { HOME: bare, CODEX_HOME: bare, BOUNCE_CODEX_BIN: BIN }, ['--check']);
    rmSync(bare, { recursive: true, force: true });
    expect(unlogged.json).toMatchObject({
      ok: false,
      problems: [{ kind: 'credentials', message: 'codex is not logged in (`codex login status`)' }],
      resolved: { auth: 'none' },
    });
    const missing = await runAdapterProgram('codex', {}, { HOME: home, PATH: '/nonexistent' }, ['--check']);
    expect(missing.json).toMatchObject({
      ok: false,
      problems: [{ kind: 'not_found', message: 'codex not found on PATH', fix: 'install it with npm i -g @openai/codex or set BOUNCE_CODEX_BIN' }],
    });
    expect(good.stdout + without.stdout).not.toContain(KEY);
  });
});
