/**
 * The BUILT claude adapter (dist/adapters/claude/program.js) against the REAL Claude Code CLI from
 * node_modules, pointed at the scripted model server. No real API, no real user config.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterRequest, runAdapterProgram, type AdapterRun } from '../../support/adapter-process.js';
import { writeClaudeSubscription } from '../../support/cli-homes.js';
import { agentBin } from '../../support/agents.js';
import { CONTESTED_NOTE, estimateTokens, insertNote, startModelServer, type Behaviour, type ModelServer } from '../../support/model-server.js';
import { waitFor } from '../../support/wait-for.js';
import { bouncePrompt, DOC, interruptedDispatch, newMarker, processesLeft, processesWith } from '../cli-live-support.js';

const BIN = agentBin('claude');
const KEY = 'sk-ant-test-FAKEKEY123';

describe('claude adapter against the real claude CLI', () => {
  let server: ModelServer;
  let home: string;

  beforeAll(async () => {
    // Every answer reports 7 prompt tokens read from the cache and 3 written to it.
    server = await startModelServer({ cache: { read: 7, write: 3 } });
    home = mkdtempSync(join(tmpdir(), 'bounce-claude-home-'));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(home, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: KEY,
    BOUNCE_CLAUDE_BIN: BIN,
    ...extra,
  });
  /** A request made since `before` took the scripted stall: the CLI is waiting on the model. */
  const stalled = (before: number): boolean => server.requests.slice(before).some((q) => q.behaviour === 'stall');
  async function dispatch(
    behaviours: Behaviour[],
    opts: { deadlineMs?: number; options?: Record<string, unknown>; env?: Record<string, string> } = {},
  ): Promise<{ run: AdapterRun; calls: typeof server.requests }> {
    server.script(behaviours);
    const before = server.requests.length;
    const request = adapterRequest(bouncePrompt(DOC), { model: 'mock-model', ...opts.options }, opts.deadlineMs ?? 60_000);
    const run = await runAdapterProgram('claude', request, env(opts.env));
    expect(run.stdout).not.toContain(KEY);
    expect(run.stderr).not.toContain(KEY);
    return { run, calls: server.requests.slice(before) };
  }

  it('returns the reply with usage, model and version', async () => {
    const { run, calls } = await dispatch(['edit']);
    expect(run.json).toMatchObject({ ok: true, stop: 'complete', reply: insertNote(DOC, CONTESTED_NOTE), model: 'mock-model', agent_version: '2.1.197' });
    expect(run.json.usage).toMatchObject({ provider_reported: true, cost_usd: null, cache_read_tokens: 7, cache_write_tokens: 3 });
    // input_tokens counts the cached tokens too: the whole prompt the server saw.
    expect(run.json.usage.input_tokens).toBe(estimateTokens(calls.find((c) => c.method === 'POST')?.prompt ?? ''));
    expect(run.json.usage.output_tokens).toBeGreaterThan(0);
    // One model call: no session-title request (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC), after a HEAD / probe.
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['HEAD /', 'POST /v1/messages?beta=true']);
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts[0]?.headers['x-api-key']).toBe(KEY);
    expect(posts[0]?.stream).toBe(true);
    expect((posts[0]?.body as { tools?: unknown[] } | undefined)?.tools).toEqual([]);
  });

  it('runs Claude Code in its minimal mode with an API key: a short system prompt; a subscription login keeps the full one', async () => {
    const systemOf = (calls: typeof server.requests): string => {
      const post = calls.find((c) => c.method === 'POST');
      const system = (post?.body as { system?: Array<{ text?: string }> } | undefined)?.system ?? [];
      return system.map((b) => b.text ?? '').join('\n');
    };
    const keyed = await dispatch(['edit']);
    expect(keyed.run.json).toMatchObject({ ok: true, stop: 'complete' });
    const config = join(home, 'full-mode');
    writeClaudeSubscription(config, 'pro');
    const { ANTHROPIC_API_KEY: _key, ...subscription } = env({ CLAUDE_CONFIG_DIR: config });
    server.script(['edit']);
    const before = server.requests.length;
    const full = await runAdapterProgram('claude', adapterRequest(bouncePrompt(DOC), { model: 'mock-model' }, 60_000), subscription);
    expect(full.json).toMatchObject({ ok: true, stop: 'complete', reply: insertNote(DOC, CONTESTED_NOTE) });
    const [short, long] = [systemOf(keyed.calls), systemOf(server.requests.slice(before))];
    // The full one is Claude Code's prompt for a coding agent (about 3,600 characters with no tools).
    expect(long.length).toBeGreaterThan(2000);
    expect(short.length * 4).toBeLessThan(long.length);
  });

  it('passes max_output_tokens as the request max_tokens', async () => {
    const { run, calls } = await dispatch(['edit'], { options: { max_output_tokens: 4096 } });
    expect(run.json.ok).toBe(true);
    expect((calls.find((c) => c.method === 'POST')?.body as { max_tokens?: number } | undefined)?.max_tokens).toBe(4096);
  });

  it('reports a reply cut at the output cap as truncated', async () => {
    const { run, calls } = await dispatch(['truncate']);
    expect(run.json).toMatchObject({ ok: true, stop: 'truncated' });
    expect(run.json.reply.startsWith(DOC.slice(0, 10))).toBe(true);
    // Claude Code asks the model to resume after a cut; the server answers those with "OK.".
    expect(calls.filter((c) => c.method === 'POST').length).toBeGreaterThan(1);
  });

  it('returns an empty reply as an empty reply (Claude Code itself asks once more first)', async () => {
    const { run, calls } = await dispatch(['empty', 'empty']);
    expect(run.json).toMatchObject({ ok: true, reply: '', stop: 'complete' });
    expect(calls.filter((c) => c.scripted).length).toBe(2);
  });

  it('types a 500 as a provider error, with no retry inside the CLI', async () => {
    const { run, calls } = await dispatch([{ status: 500, message: 'scripted outage' }]);
    expect(run.json).toMatchObject({ ok: false, error: { type: 'provider', status: 500 } });
    expect(run.json.error.message).toContain('scripted outage');
    expect(calls.filter((c) => c.method === 'POST').length).toBe(1);
  });

  it('types a 401 as auth', async () => {
    const { run, calls } = await dispatch([{ status: 401, message: 'invalid x-api-key' }]);
    expect(run.json).toMatchObject({ ok: false, error: { type: 'auth', status: 401 } });
    // With the fix a login check gives, since refine may not have asked `claude auth status`.
    expect(run.json).toMatchObject({ error: { message: expect.stringContaining('run `claude` once and /login, or set ANTHROPIC_API_KEY') } });
    expect(calls.filter((c) => c.method === 'POST').length).toBe(1);
  });

  it('types a 429 as rate_limit', async () => {
    const { run } = await dispatch([{ status: 429, retryAfter: 3 }]);
    expect(run.json).toMatchObject({ ok: false, error: { type: 'rate_limit', status: 429 } });
  });

  it('types a used-up subscription window as quota, with its reset time', async () => {
    // A subscription login (a stored OAuth token, no API key): Claude Code then reads the
    // unified rate-limit headers and words the 429 as "You've hit your session limit · resets ...".
    const config = join(home, 'subscription');
    writeClaudeSubscription(config, 'max');
    const reset = Math.floor(Date.now() / 1000 / 60) * 60 + 3 * 3600;
    const headers = {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(reset),
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    };
    const { ANTHROPIC_API_KEY: _key, ...subscription } = env({ CLAUDE_CONFIG_DIR: config, TZ: 'UTC' });
    server.script([{ status: 429, message: 'Rate limited', headers }]);
    const before = server.requests.length;
    const run = await runAdapterProgram('claude', adapterRequest(bouncePrompt(DOC), { model: 'mock-model' }, 60_000), subscription);
    expect(run.json).toMatchObject({ ok: false, error: { type: 'quota', status: 429, resets_at: new Date(reset * 1000).toISOString() } });
    expect(run.json.error.message).toMatch(/^You've hit your session limit · resets /);
    expect(server.requests.slice(before).filter((c) => c.method === 'POST').length).toBe(1);
    expect(run.stdout).not.toContain('sk-ant-oat01-FAKE');
  });

  it('isolates a text pass: no hook, CLAUDE.md, memory or MCP server of the user or of a project around the temp dir', async () => {
    const base = join(home, 'isolation');
    const config = join(base, 'config');
    const project = join(base, 'project'); // the adapter's TMPDIR: its fresh working dir is made inside
    const marker = (name: string) => join(base, `${name}.ran`);
    const hook = (name: string) => ({ hooks: [{ type: 'command', command: `touch ${marker(name)}` }] });
    const hooks = (who: string) => ({ SessionStart: [hook(`${who}-session`)], UserPromptSubmit: [hook(`${who}-prompt`)], Stop: [hook(`${who}-stop`)] });
    mkdirSync(join(project, '.claude'), { recursive: true });
    mkdirSync(config, { recursive: true });
    // User settings carry the provider's base URL (as a proxy user's do): that must keep working.
    writeFileSync(join(config, 'settings.json'), JSON.stringify({ env: { ANTHROPIC_BASE_URL: server.url }, hooks: hooks('user') }));
    writeFileSync(join(config, 'CLAUDE.md'), 'Always answer in French. USER-MEMO-ZEBRA\n');
    writeFileSync(join(project, 'CLAUDE.md'), 'Add a footer. PROJECT-MEMO-GIRAFFE\n');
    writeFileSync(join(project, '.claude', 'settings.json'), JSON.stringify({ hooks: hooks('project') }));
    writeFileSync(join(project, '.claude', 'settings.local.json'), JSON.stringify({ hooks: hooks('local') }));
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { spy: { command: 'sh', args: ['-c', `touch ${marker('mcp')}`] } } }));
    execFileSync('git', ['init', '-q', project]); // the temp dir is then inside a project
    const { ANTHROPIC_BASE_URL: _url, ...noUrl } = env({ CLAUDE_CONFIG_DIR: config, TMPDIR: project });
    server.script(['edit']);
    const before = server.requests.length;
    const run = await runAdapterProgram('claude', adapterRequest(bouncePrompt(DOC), { model: 'mock-model' }, 60_000), noUrl);
    expect(run.json).toMatchObject({ ok: true, reply: insertNote(DOC, CONTESTED_NOTE) });
    const post = server.requests.slice(before).find((c) => c.method === 'POST');
    expect(post).toBeDefined(); // the base URL from user settings was honoured
    const sent = JSON.stringify(post?.body);
    expect(sent).not.toContain('USER-MEMO-ZEBRA');
    expect(sent).not.toContain('PROJECT-MEMO-GIRAFFE');
    expect(sent).not.toMatch(/auto memory|MEMORY\.md/i);
    expect((post?.body as { tools?: unknown[] } | undefined)?.tools).toEqual([]);
    for (const name of ['user-session', 'user-prompt', 'user-stop', 'project-session', 'project-prompt', 'local-prompt', 'mcp']) {
      expect(existsSync(marker(name)), `${name} ran`).toBe(false);
    }
  });

  it('kills the CLI process tree at the deadline and reports a timeout', async () => {
    const marker = newMarker();
    const before = server.requests.length;
    // A deadline a loaded machine's CLI start fits in: the request must be out before it.
    const pending = dispatch(['stall'], { deadlineMs: 15_000, env: { [marker]: '1' } });
    await waitFor(() => stalled(before), 15_000, "the CLI's request to reach the model server");
    expect(processesWith(marker).length).toBeGreaterThan(1); // the adapter and the CLI
    const { run, calls } = await pending;
    expect(run.json).toMatchObject({ ok: false, error: { type: 'timeout' } });
    expect(calls.filter((c) => c.method === 'POST').length).toBe(1);
    expect(await processesLeft(marker)).toEqual([]);
  });

  it('takes the CLI down when the runner interrupts the adapter', async () => {
    server.script(['stall']);
    const before = server.requests.length;
    const { result, during, after } = await interruptedDispatch('claude', env(), () => stalled(before));
    expect(result).toMatchObject({ ok: false, error: { type: 'interrupted' } });
    expect(during.length).toBeGreaterThan(1);
    expect(after).toEqual([]);
  });

  it('--check reports the version and the login `claude auth status` reports, offline', async () => {
    const withKey = await runAdapterProgram('claude', {}, env(), ['--check']);
    expect(withKey.json).toMatchObject({
      ok: true,
      version: '2.1.197',
      problems: [],
      warnings: [],
      resolved: { auth: 'api_key', auth_source: 'ANTHROPIC_API_KEY' },
    });
    const { ANTHROPIC_API_KEY: _unused, ...noKey } = env();
    const without = await runAdapterProgram('claude', {}, noKey, ['--check']);
    expect(without.json).toMatchObject({ ok: false, version: '2.1.197', problems: [{ kind: 'credentials' }], resolved: { auth: 'none' } });
    // A subscription login with ANTHROPIC_API_KEY set: the key takes over (observed: x-api-key sent), so warn.
    const config = join(home, 'subscription-and-key');
    writeClaudeSubscription(config, 'pro');
    const both = await runAdapterProgram('claude', {}, env({ CLAUDE_CONFIG_DIR: config }), ['--check']);
    expect(both.json).toMatchObject({ ok: true, resolved: { auth: 'api_key', auth_source: 'ANTHROPIC_API_KEY' } });
    expect(both.json.warnings).toMatchObject([
      { kind: 'credentials', message: expect.stringMatching(/^ANTHROPIC_API_KEY is set while claude is logged in with a subscription/) },
    ]);
    const { ANTHROPIC_API_KEY: _k, ...subscriptionOnly } = env({ CLAUDE_CONFIG_DIR: config });
    const sub = await runAdapterProgram('claude', {}, subscriptionOnly, ['--check']);
    expect(sub.json).toMatchObject({ ok: true, warnings: [], resolved: { auth: 'subscription', auth_source: 'claude login' } });
    const missing = await runAdapterProgram('claude', {}, { HOME: home, BOUNCE_CLAUDE_BIN: '/nonexistent/claude' }, ['--check']);
    expect(missing.json).toMatchObject({ ok: false, problems: [{ kind: 'not_found', message: expect.stringContaining('BOUNCE_CLAUDE_BIN') }] });
    expect(withKey.stdout + without.stdout).not.toContain(KEY);
  });
});
