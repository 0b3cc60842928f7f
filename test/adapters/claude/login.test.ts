/**
 * A Claude Code login read offline (refine and resume) where that is certain, so the first
 * dispatch need not wait for `claude auth status`; in any doubt the CLI is asked.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProbe } from '../../../src/kit/detect.js';
import { claudeLogin, claudeStatusOffline, readClaudeStatus } from '../../../adapters/claude/login.js';
import { ROOT } from '../../support/adapter-process.js';

const root = mkdtempSync(join(tmpdir(), 'bounce-login-offline-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const SUBSCRIPTION = JSON.stringify({ claudeAiOauth: { accessToken: 'at', refreshToken: 'rt', expiresAt: 1 } });

/** A Claude config folder with these files, and the environment that points at it. */
function setup(files: Record<string, string>, vars: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const dir = join(root, `c${++n}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { HOME: root, CLAUDE_CONFIG_DIR: dir, ...vars };
}

const offline = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform = 'linux') => {
  const status = claudeStatusOffline(env, platform);
  return status === null ? null : readClaudeStatus(status, env);
};

describe('claudeStatusOffline', () => {
  it.each([
    ['one key variable, no stored login', {}, { ANTHROPIC_API_KEY: 'sk-ant-1' }, { loggedIn: true, auth: 'api_key', source: 'ANTHROPIC_API_KEY' }],
    ['a long-lived token, no stored login', {}, { CLAUDE_CODE_OAUTH_TOKEN: 'tok' }, { loggedIn: true, auth: 'oauth_token', source: 'CLAUDE_CODE_OAUTH_TOKEN' }],
    ['a stored subscription login', { '.credentials.json': SUBSCRIPTION }, {}, { loggedIn: true, auth: 'subscription', source: 'claude login' }],
    ['user settings without credentials', { 'settings.json': '{"model":"opus"}' }, { ANTHROPIC_API_KEY: 'sk-ant-1' }, { loggedIn: true, auth: 'api_key' }],
  ])('certain: %s', (_what, files, vars, expected) => {
    const state = offline(setup(files, vars));
    expect(state).toMatchObject({ ...expected, findings: [] });
  });

  it('a stored subscription and ANTHROPIC_API_KEY: the same takeover warning the CLI answer gives', () => {
    const env = setup({ '.credentials.json': SUBSCRIPTION }, { ANTHROPIC_API_KEY: 'sk-ant-1' });
    const fromCli = readClaudeStatus(JSON.stringify({ loggedIn: true, authMethod: 'claude.ai', apiKeySource: 'ANTHROPIC_API_KEY' }), env);
    expect(offline(env)).toEqual(fromCli);
    expect(fromCli.findings.map((f) => f.message)).toEqual([expect.stringContaining('the key takes over')]);
  });

  it.each([
    ['no credential at all', {}, {}, 'linux'],
    ['two key variables', {}, { ANTHROPIC_API_KEY: 'k', CLAUDE_CODE_OAUTH_TOKEN: 't' }, 'linux'],
    ['a provider switch', {}, { ANTHROPIC_API_KEY: 'k', CLAUDE_CODE_USE_BEDROCK: '1' }, 'linux'],
    ['an apiKeyHelper in user settings', { 'settings.json': '{"apiKeyHelper":"~/bin/key"}' }, {}, 'linux'],
    ['a key in the settings env', { 'settings.json': '{"env":{"ANTHROPIC_API_KEY":"k"}}' }, { CLAUDE_CODE_OAUTH_TOKEN: 't' }, 'linux'],
    ['a credentials file that says nothing clear', { '.credentials.json': '{}' }, {}, 'linux'],
    ['a long-lived token beside a stored subscription', { '.credentials.json': SUBSCRIPTION }, { CLAUDE_CODE_OAUTH_TOKEN: 't' }, 'linux'],
    ['macOS, where the login is in the Keychain', {}, { ANTHROPIC_API_KEY: 'k' }, 'darwin'],
  ] as const)('in doubt, the CLI is asked: %s', (_what, files, vars, platform) => {
    expect(claudeStatusOffline(setup(files, vars), platform)).toBeNull();
  });
});

describe('claudeLogin', () => {
  const FAKE_CLI = join(ROOT, 'test/fixtures/cli/fake-cli.mjs');
  it('reads the login offline only for a probe that allows it (refine, resume); bounce check asks the CLI', async () => {
    const log = join(root, 'auth.log');
    const env = {
      ...setup({}, { ANTHROPIC_API_KEY: 'sk-ant-1' }),
      FAKE_CLI_LOG: log,
      FAKE_CLI_AUTH: JSON.stringify({ loggedIn: true, authMethod: 'api_key', apiKeySource: 'ANTHROPIC_API_KEY' }),
    };
    const fast = await claudeLogin(FAKE_CLI, env, createProbe(undefined, { offlineLogins: true }));
    expect(existsSync(log)).toBe(false);
    const asked = await claudeLogin(FAKE_CLI, env, createProbe());
    expect(readFileSync(log, 'utf8').trim()).toBe('auth status --json');
    expect(fast).toEqual(asked);
  });
});

describe('refine starts its first dispatch without asking the CLI what it knows already', () => {
  it('no `auth status` with a key set, no `--version` once remembered; bounce check still asks both', async () => {
    const { runMain } = await import('../../support/run-main.js');
    const { cleanEnv, tempDir } = await import('../../support/cli.js');
    const cwd = tempDir();
    const doc = '# Plan\n\nShip on Monday.\n';
    writeFileSync(join(cwd, 'doc.md'), doc);
    const log = join(cwd, 'cli.log');
    const env = cleanEnv({
      ...setup({}, { ANTHROPIC_API_KEY: 'sk-ant-test-1234567' }),
      XDG_CACHE_HOME: join(cwd, 'cache'),
      BOUNCE_CLAUDE_BIN: join(ROOT, 'test/fixtures/cli/fake-cli.mjs'),
      FAKE_CLI_LOG: log,
      FAKE_CLI_REPLY: doc,
    });
    const calls = (): string[] =>
      readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ').slice(0, 2).join(' '));
    const refine = ['refine', 'doc.md', '--reviewer', 'claude', '--passes', '1', '--json'];
    const first = await runMain(refine, { cwd, env });
    expect(first.code, first.stderr).toBe(0);
    // With the key in force the dispatch runs Claude Code in its minimal mode.
    expect(calls()).toEqual(['--version', '--bare -p']);
    const second = await runMain(refine, { cwd, env });
    expect(second.code, second.stderr).toBe(0);
    expect(calls()).toEqual(['--version', '--bare -p', '--bare -p']);
    expect(JSON.parse(readFileSync(join(JSON.parse(second.stdout).run_dir, 'run.json'), 'utf8')).agents.reviewer).toMatchObject({
      version: '9.8.7',
      resolved: { auth: 'api_key', auth_source: 'ANTHROPIC_API_KEY' },
    });
    await runMain(['check'], {
      cwd,
      env: { ...env, FAKE_CLI_AUTH: JSON.stringify({ loggedIn: true, authMethod: 'api_key', apiKeySource: 'ANTHROPIC_API_KEY' }) },
    });
    expect(calls().slice(3).sort()).toEqual(['--version', 'auth status']);
  });
});
