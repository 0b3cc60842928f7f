import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpencodeArgs, buildOpencodeEnv, opencodeModel, parseOpencodeOutput, SESSION_TITLE, textPassConfig } from '../../../adapters/opencode/program.js';
import { readOpencodeConfig } from '../../../adapters/opencode/config.js';
import { opencodeLogin } from '../../../adapters/opencode/login.js';
import { tempDir } from '../../support/cli.js';

describe('buildOpencodeArgs', () => {
  it('runs with JSON events and a given title (no title request), never --auto', () => {
    expect(buildOpencodeArgs({})).toEqual(['run', '--format', 'json', '--title', SESSION_TITLE]);
    expect(buildOpencodeArgs({ model: 'anthropic/claude-sonnet-4-5', args: ['--variant', 'high'] })).toEqual([
      'run',
      '--format',
      'json',
      '--title',
      SESSION_TITLE,
      '-m',
      'anthropic/claude-sonnet-4-5',
      '--variant',
      'high',
    ]);
  });
});

describe('buildOpencodeEnv', () => {
  it('denies every tool, disables the MCP servers, keeps the session in the temp dir; keys pass through the environment only', () => {
    const env = buildOpencodeEnv({ PATH: '/bin', OPENCODE: '1', ANTHROPIC_API_KEY: 'k' }, '/t/x', {
      mcpServers: ['spy'],
      permissions: [],
      agentPermissions: {},
      tools: [],
    });
    expect(env).toEqual({
      PATH: '/bin',
      ANTHROPIC_API_KEY: 'k',
      OPENCODE_CONFIG_CONTENT: JSON.stringify({ permission: { '*': 'deny' }, mcp: { spy: { enabled: false } } }),
      OPENCODE_DB: '/t/x/opencode.db',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_AUTOCOMPACT: '1',
      OPENCODE_DISABLE_PROJECT_CONFIG: '1',
      OPENCODE_DISABLE_CLAUDE_CODE: '1',
      OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
      OPENCODE_DISABLE_SHARE: '1',
    });
  });

  it("turns each of the user's rules into a denial and keeps the user's own inline config under them", () => {
    const user = JSON.stringify({ model: 'openai/gpt-5', permission: { read: 'allow' }, mcp: { inline: { type: 'local', command: ['x'] } } });
    const rules = { mcpServers: ['spy'], permissions: ['*', 'bash'], agentPermissions: { build: ['edit'] }, tools: ['write'] };
    expect(textPassConfig(rules, user)).toEqual({
      model: 'openai/gpt-5',
      permission: { '*': 'deny', bash: 'deny', read: 'deny' },
      mcp: { spy: { enabled: false }, inline: { enabled: false } },
      tools: { write: false },
      agent: { build: { permission: { edit: 'deny', '*': 'deny' } } },
    });
  });
});

const ev = (type: string, part: Record<string, unknown>) => JSON.stringify({ type, timestamp: 1, sessionID: 's', part });
const finish = (reason: string, cost = 0) =>
  ev('step_finish', { type: 'step-finish', reason, tokens: { input: 40, output: 10, reasoning: 2, cache: { read: 8, write: 1 } }, cost });

describe('parseOpencodeOutput', () => {
  it('reads the text parts and the step usage (cached tokens counted in the input)', () => {
    const out = [ev('step_start', {}), ev('text', { id: 'p1', text: 'Hello' }), finish('stop', 0.0012)].join('\n');
    expect(parseOpencodeOutput(out, '', 0, { model: 'a/b', agent_version: '1.18.33' })).toEqual({
      ok: true,
      reply: 'Hello',
      stop: 'complete',
      usage: { input_tokens: 49, output_tokens: 12, cache_read_tokens: 8, cache_write_tokens: 1, cost_usd: 0.0012, provider_reported: true },
      model: 'a/b',
      agent_version: '1.18.33',
    });
  });

  it('reports a finish for length as truncated, and a cost of 0 as unknown', () => {
    const r = parseOpencodeOutput([ev('text', { id: 'p', text: 'cut' }), finish('length')].join('\n'), '', 0);
    expect(r).toMatchObject({ ok: true, stop: 'truncated', usage: { cost_usd: null } });
  });

  it('an error event is a failure even with exit code 0', () => {
    const error = JSON.stringify({ type: 'error', error: { name: 'APIError', data: { message: 'invalid api key', statusCode: 401 } } });
    expect(parseOpencodeOutput(error, '', 0)).toMatchObject({ ok: false, error: { type: 'auth', status: 401 } });
    const overflow = JSON.stringify({ type: 'error', error: { name: 'ContextOverflowError', data: { message: 'prompt is too long' } } });
    expect(parseOpencodeOutput(`${overflow}\n${finish('stop')}`, '', 0)).toMatchObject({ ok: false, error: { type: 'config' } });
  });

  it('no step at all is a failure typed from what the CLI printed', () => {
    expect(parseOpencodeOutput('', 'Error: Unable to connect. ECONNREFUSED', 1)).toMatchObject({ ok: false, error: { type: 'network' } });
    expect(parseOpencodeOutput('', '', 0)).toMatchObject({ ok: false, error: { type: 'provider', message: 'opencode printed no result' } });
  });
});

describe("opencode's config and login, offline", () => {
  it('finds the model, MCP servers and key variables in the config files, and checks the provider credential', async () => {
    const home = tempDir('bounce-opencode-home-');
    mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'opencode', 'opencode.jsonc'),
      '{\n // mine\n "model": "stub/m",\n "provider": { "stub": { "options": { "apiKey": "{env:STUB_KEY}" } } },\n "mcp": { "spy": { "type": "local" } },\n}\n',
    );
    expect(readOpencodeConfig({ HOME: home })).toEqual({
      model: 'stub/m',
      providers: ['stub'],
      mcpServers: ['spy'],
      envRefs: ['STUB_KEY'],
      permissions: [],
      agentPermissions: {},
      tools: [],
    });
    expect(opencodeModel({}, 'stub/m')).toBe('stub/m');
    expect(opencodeModel({ args: ['-m', 'x/y'] }, 'stub/m')).toBe('x/y');
    expect(await opencodeLogin(null, { HOME: home })).toMatchObject({ loggedIn: true, source: 'opencode.json' });
    expect(await opencodeLogin('anthropic/claude', { HOME: home })).toMatchObject({ loggedIn: false, findings: [{ kind: 'credentials' }] });
    expect(await opencodeLogin('anthropic/claude', { HOME: home, ANTHROPIC_API_KEY: 'v' })).toMatchObject({ loggedIn: true, source: 'ANTHROPIC_API_KEY' });
    mkdirSync(join(home, '.local', 'share', 'opencode'), { recursive: true });
    writeFileSync(join(home, '.local', 'share', 'opencode', 'auth.json'), JSON.stringify({ anthropic: { type: 'oauth', refresh: 'SECRET' } }));
    const stored = await opencodeLogin('anthropic/claude', { HOME: home });
    expect(stored).toMatchObject({ loggedIn: true, auth: 'subscription', source: 'opencode auth login' });
    expect(JSON.stringify(stored)).not.toContain('SECRET');
    // A provider called like a property of every object is a provider with no credential, not a login.
    for (const provider of ['constructor', '__proto__', 'toString'])
      expect(await opencodeLogin(`${provider}/m`, { HOME: home })).toMatchObject({ loggedIn: null, findings: [{ kind: 'login_unverified' }] });
  });
});
