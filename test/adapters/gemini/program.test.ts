import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildGeminiArgs,
  buildGeminiEnv,
  forgetGeminiProject,
  geminiJson,
  NO_MCP_SERVER,
  parseGeminiOutput,
  TEXT_PASS_SETTINGS,
} from '../../../adapters/gemini/program.js';
import { geminiLogin } from '../../../adapters/gemini/login.js';
import { tempDir } from '../../support/cli.js';

const FIXED = ['-p', '', '--output-format', 'json'];
const ISOLATION = ['--approval-mode', 'default', '-e', 'none', '--allowed-mcp-server-names', NO_MCP_SERVER];

describe('buildGeminiArgs', () => {
  it('always names a model (the table default), headless with the prompt on stdin, no extension or MCP server', () => {
    expect(buildGeminiArgs({})).toEqual([...FIXED, '-m', 'gemini-2.5-pro', ...ISOLATION]);
  });

  it('takes the model, then the extra args last', () => {
    expect(buildGeminiArgs({ model: 'gemini-2.5-flash', args: ['--include-directories', '/x'] })).toEqual([
      ...FIXED,
      '-m',
      'gemini-2.5-flash',
      ...ISOLATION,
      '--include-directories',
      '/x',
    ]);
  });
});

describe('buildGeminiEnv', () => {
  it('drops a parent session, trusts the temp folder and moves the CLI temp files into it; keys pass through the environment only', () => {
    const env = buildGeminiEnv({ PATH: '/bin', GEMINI_CLI: '1', GEMINI_CLI_IDE_SERVER_PORT: '4000', GEMINI_API_KEY: 'k', TMPDIR: '/tmp' }, '/t/x/.tmp');
    expect(env).toEqual({ PATH: '/bin', GEMINI_API_KEY: 'k', GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_CLI_NO_RELAUNCH: 'true', TMPDIR: '/t/x/.tmp' });
  });

  it('writes workspace settings that turn off tools, the directory tree and retries, and hold no credential', () => {
    expect(TEXT_PASS_SETTINGS).toMatchObject({ tools: { core: [] }, context: { includeDirectoryTree: false }, general: { maxAttempts: 1 } });
    expect(JSON.stringify(TEXT_PASS_SETTINGS)).not.toMatch(/key|token|auth/i);
  });
});

describe('parseGeminiOutput', () => {
  const stats = (model: string, t: Record<string, number>) => ({ models: { [model]: { tokens: t } } });

  it('reads the reply and counts every prompt token, thoughts as output', () => {
    const out = JSON.stringify({ response: 'Hello', stats: stats('gemini-2.5-pro', { prompt: 100, cached: 30, candidates: 5, thoughts: 7 }) });
    expect(parseGeminiOutput(out, '', 0, 'gemini-2.5-pro', { agent_version: '0.61.0' })).toEqual({
      ok: true,
      reply: 'Hello',
      stop: 'complete',
      usage: { input_tokens: 100, output_tokens: 12, cache_read_tokens: 30, cache_write_tokens: null, cost_usd: null, provider_reported: true },
      model: 'gemini-2.5-pro',
      agent_version: '0.61.0',
    });
  });

  it('records a silent fallback to another model', () => {
    const out = JSON.stringify({ response: 'x', stats: stats('gemini-2.5-flash', { prompt: 1, candidates: 1 }) });
    expect(parseGeminiOutput(out, '', 0, 'gemini-2.5-pro')).toMatchObject({ ok: true, model: 'gemini-2.5-flash', fellBackTo: 'gemini-2.5-flash' });
  });

  it('reads the error object printed at the end of stderr and types it by its status', () => {
    const err = `Error when talking to Gemini API\n    at x (y.js:1:2)\n{\n  "session_id": "s",\n  "error": {\n    "type": "Error",\n    "message": "Rate limit reached. Please try again in 2s.",\n    "code": 429\n  }\n}\n`;
    expect(geminiJson('', err)).toMatchObject({ error: { code: 429 } });
    expect(parseGeminiOutput('', err, 173, 'gemini-2.5-pro')).toMatchObject({ ok: false, error: { type: 'rate_limit', status: 429, retry_after_ms: 2000 } });
    const outage = err.replace('Rate limit reached. Please try again in 2s.', 'scripted outage').replace('429', '500');
    expect(parseGeminiOutput('', outage, 244, 'gemini-2.5-pro')).toMatchObject({ ok: false, error: { type: 'provider', status: 500 } });
  });

  it("maps the CLI's own exit codes: 41 auth, 52 config", () => {
    const auth = JSON.stringify({ error: { type: 'Error', message: 'Invalid auth method selected.', code: 41 } });
    expect(parseGeminiOutput('', `\n${JSON.stringify(JSON.parse(auth), null, 2)}`, 41, 'm')).toMatchObject({ ok: false, error: { type: 'auth' } });
    expect(parseGeminiOutput('', 'boom', 52, 'm')).toMatchObject({ ok: false, error: { type: 'config' } });
    expect(parseGeminiOutput('', 'Unknown argument: frobnicate', 1, 'm')).toMatchObject({ ok: false, error: { type: 'config' } });
  });

  it('returns an empty response as an empty reply', () => {
    expect(parseGeminiOutput(JSON.stringify({ response: '', stats: {} }), '', 0, 'm')).toMatchObject({ ok: true, reply: '' });
    const noText = { models: { m: { api: { errorsByType: { NO_RESPONSE_TEXT: 1 } }, tokens: { prompt: 5 } } } };
    expect(parseGeminiOutput(JSON.stringify({ response: '', stats: noText }), '', 0, 'm')).toMatchObject({ ok: true, reply: '' });
  });

  it('a stream that broke off is a failure although the CLI exits 0', () => {
    const broken = { models: { m: { api: { errorsByType: { NO_FINISH_REASON: 1 } }, tokens: { prompt: 0 } } } };
    expect(parseGeminiOutput(JSON.stringify({ response: '', stats: broken }), '', 0, 'm')).toMatchObject({
      ok: false,
      error: { type: 'provider', message: expect.stringContaining('NO_FINISH_REASON') },
    });
  });
});

describe('forgetGeminiProject', () => {
  it("removes the session the CLI recorded for the adapter's folder and only that", () => {
    const home = tempDir('bounce-gemini-home-');
    const dir = join(home, '.gemini');
    const cwd = tempDir('bounce-gemini-');
    for (const id of ['mine', 'theirs']) for (const sub of ['tmp', 'history']) mkdirSync(join(dir, sub, id), { recursive: true });
    writeFileSync(join(dir, 'projects.json'), JSON.stringify({ projects: { [cwd]: 'mine', '/home/u/work': 'theirs' } }));
    forgetGeminiProject({ HOME: home }, cwd);
    expect(JSON.parse(readFileSync(join(dir, 'projects.json'), 'utf8'))).toEqual({ projects: { '/home/u/work': 'theirs' } });
    expect(() => readFileSync(join(dir, 'tmp', 'mine', 'x'))).toThrow();
    expect(readFileSync(join(dir, 'projects.json'), 'utf8')).not.toContain('mine');
  });

  it('never writes the registry through a symlink planted at the name its temporary file once had', () => {
    const home = tempDir('bounce-gemini-home-');
    const dir = join(home, '.gemini');
    const cwd = tempDir('bounce-gemini-');
    mkdirSync(dir);
    writeFileSync(join(dir, 'projects.json'), JSON.stringify({ projects: { [cwd]: 'mine' } }));
    const victim = join(home, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    symlinkSync(victim, join(dir, `projects.json.bounce-${process.pid}`));
    forgetGeminiProject({ HOME: home }, cwd);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(JSON.parse(readFileSync(join(dir, 'projects.json'), 'utf8'))).toEqual({ projects: {} });
  });
});

describe('geminiLogin', () => {
  it('reports the method by name and never a value', async () => {
    const home = tempDir('bounce-gemini-home-');
    expect(await geminiLogin({ HOME: home, GEMINI_API_KEY: 'secret-value' })).toMatchObject({ loggedIn: true, auth: 'api_key', source: 'GEMINI_API_KEY' });
    expect(await geminiLogin({ HOME: home })).toMatchObject({ loggedIn: false, findings: [{ kind: 'credentials' }] });
    expect(await geminiLogin({ HOME: home, GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_API_KEY: 'v' })).toMatchObject({
      loggedIn: true,
      source: 'GOOGLE_API_KEY',
    });
    mkdirSync(join(home, '.gemini'));
    writeFileSync(join(home, '.gemini', 'settings.json'), '{ // comments are allowed\n "security": { "auth": { "selectedType": "oauth-personal" } } }');
    writeFileSync(join(home, '.gemini', 'oauth_creds.json'), '{}');
    expect(await geminiLogin({ HOME: home })).toMatchObject({ loggedIn: true, auth: 'subscription', source: 'gemini login' });
    expect(JSON.stringify(await geminiLogin({ HOME: home, GEMINI_API_KEY: 'secret-value' }))).not.toContain('secret-value');
  });
});
