/**
 * checkAgent: one check for every kind of agent, with a problem kind on each finding.
 * Built-ins are checked in-process; the CLI is a fake (test/fixtures/cli/fake-cli.mjs).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAgent } from '../../src/preflight/check-agent.js';
import { createProbe } from '../../src/kit/detect.js';
import { resolveAgent } from '../../src/adapters/registry.js';
import { parseConfig } from '../../src/config/load.js';
import { ROOT } from '../support/adapter-process.js';
import { specAgent } from '../support/test-agent.js';

const FAKE_CLI = join(ROOT, 'test/fixtures/cli/fake-cli.mjs');
const dir = mkdtempSync(join(tmpdir(), 'bounce-check-agent-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PATH = process.env.PATH ?? '';
const kinds = (items: { kind: string }[]): string[] => items.map((p) => p.kind);

describe('checkAgent: CLI adapters', () => {
  const claudeEnv = (extra: Record<string, string> = {}) => ({ PATH, BOUNCE_CLAUDE_BIN: FAKE_CLI, ...extra });

  it('claude: `claude auth status` decides; its method is recorded by name; an old CLI falls back to the environment', async () => {
    const status = (fields: Record<string, unknown>) => ({ FAKE_CLI_AUTH: JSON.stringify(fields) });
    const subscription = await checkAgent(specAgent('claude'), claudeEnv(status({ loggedIn: true, authMethod: 'claude.ai', subscriptionType: 'max' })));
    expect(subscription).toMatchObject({
      ok: true,
      version: '9.8.7',
      problems: [],
      warnings: [],
      resolved: { auth: 'subscription', auth_source: 'claude login' },
    });
    const none = await checkAgent(specAgent('claude'), claudeEnv(status({ loggedIn: false, authMethod: 'none' })));
    expect(none).toMatchObject({ ok: false, resolved: { auth: 'none' } });
    expect(none.problems).toEqual([
      {
        kind: 'credentials',
        message: 'claude is not logged in (`claude auth status`)',
        fix: 'run `claude` once and /login, or set ANTHROPIC_API_KEY (in CI: CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`)',
      },
    ]);
    // Without `auth status` (an older claude): a key variable is enough, else it cannot be verified.
    const old = await checkAgent(specAgent('claude'), claudeEnv());
    expect(old).toMatchObject({ ok: true, problems: [], resolved: { auth: 'unknown' } });
    expect(kinds(old.warnings)).toEqual(['login_unverified']);
    const withToken = await checkAgent(specAgent('claude'), claudeEnv({ CLAUDE_CODE_OAUTH_TOKEN: 'tok-123456' }));
    expect(withToken).toMatchObject({ ok: true, warnings: [], resolved: { auth: 'oauth_token', auth_source: 'CLAUDE_CODE_OAUTH_TOKEN' } });
    expect(JSON.stringify(withToken)).not.toContain('tok-123456');
  });

  it('claude: an ANTHROPIC_API_KEY beside a subscription login is a warning: the key takes over billing', async () => {
    const both = { loggedIn: true, authMethod: 'claude.ai', apiKeySource: 'ANTHROPIC_API_KEY', subscriptionType: null };
    const r = await checkAgent(specAgent('claude'), claudeEnv({ FAKE_CLI_AUTH: JSON.stringify(both), ANTHROPIC_API_KEY: 'sk-ant-BILLED-1' }));
    expect(r).toMatchObject({ ok: true, resolved: { auth: 'api_key', auth_source: 'ANTHROPIC_API_KEY' } });
    expect(r.warnings).toEqual([
      {
        kind: 'credentials',
        message: 'ANTHROPIC_API_KEY is set while claude is logged in with a subscription: the key takes over and its usage is billed to that API account',
        fix: 'unset ANTHROPIC_API_KEY to use the subscription, or log out of claude to keep paying by key',
      },
    ]);
    expect(JSON.stringify(r)).not.toContain('sk-ant-BILLED-1');
  });

  it('claude: not_found when the override is not executable, version when --version fails', async () => {
    const missing = await checkAgent(specAgent('claude'), { PATH, BOUNCE_CLAUDE_BIN: '/nonexistent/claude' });
    expect(missing).toMatchObject({ ok: false, version: null });
    expect(missing.problems).toEqual([
      { kind: 'not_found', message: 'BOUNCE_CLAUDE_BIN (/nonexistent/claude) is not an executable file', fix: 'fix it or unset it to use claude from PATH' },
    ]);
    const broken = await checkAgent(specAgent('claude'), claudeEnv({ FAKE_CLI_VERSION: 'fail' }));
    expect(kinds(broken.problems)).toEqual(['version']);
  });

  it('codex: no stored login and a custom provider without its key are credentials problems; CODEX_API_KEY counts', async () => {
    const home = join(dir, 'codex-home');
    rmSync(home, { recursive: true, force: true });
    const env = { PATH, BOUNCE_CODEX_BIN: FAKE_CLI, FAKE_CLI_NAME: 'codex', CODEX_HOME: home };
    const none = await checkAgent(specAgent('codex'), { ...env, FAKE_CLI_LOGIN: 'none' });
    expect(none).toMatchObject({ ok: false, version: '9.8.7', resolved: { auth: 'none' } });
    expect(none.problems).toMatchObject([{ kind: 'credentials', message: 'codex is not logged in (`codex login status`)' }]);
    // OPENAI_API_KEY alone is not read by codex exec: the fix says how to hand it over.
    const envKey = await checkAgent(specAgent('codex'), { ...env, FAKE_CLI_LOGIN: 'none', OPENAI_API_KEY: 'sk-123456' });
    expect(envKey.problems[0]?.fix).toMatch(/printenv OPENAI_API_KEY \| codex login --with-api-key/);
    expect(await checkAgent(specAgent('codex'), { ...env, FAKE_CLI_LOGIN: 'none', CODEX_API_KEY: 'sk-654321' })).toMatchObject({
      ok: true,
      resolved: { auth: 'api_key', auth_source: 'CODEX_API_KEY' },
    });
    expect(await checkAgent(specAgent('codex'), { ...env, FAKE_CLI_LOGIN: 'chatgpt' })).toMatchObject({
      ok: true,
      warnings: [],
      resolved: { auth: 'subscription' },
    });
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'config.toml'), 'model_provider = "p1"\n\n[model_providers.p1]\nenv_key = "P1_KEY"\n');
    const custom = await checkAgent(specAgent('codex'), env);
    expect(custom.problems).toEqual([{ kind: 'credentials', message: 'model provider p1 reads its key from P1_KEY, which is not set', fix: 'set P1_KEY' }]);
    expect(await checkAgent(specAgent('codex'), { ...env, P1_KEY: 'p1-key-1' })).toMatchObject({
      ok: true,
      resolved: { auth: 'api_key', auth_source: 'P1_KEY' },
    });
  });

  it('asks each program --version once per probe, and two probes share nothing', async () => {
    const log = join(dir, 'versions.log');
    const env = { PATH, BOUNCE_CLAUDE_BIN: FAKE_CLI, FAKE_CLI_LOG: log };
    const probe = createProbe();
    await Promise.all([checkAgent(specAgent('claude'), env, { probe }), checkAgent(specAgent('claude:other-model'), env, { probe })]);
    const lines = () => readFileSync(log, 'utf8').trim().split('\n').sort();
    expect(lines()).toEqual(['--version', 'auth status --json']);
    await checkAgent(specAgent('claude'), env, { probe: createProbe() });
    expect(lines()).toEqual(['--version', '--version', 'auth status --json', 'auth status --json']);
  });
});

describe('checkAgent: HTTP adapters and mock', () => {
  it('openai: a missing model is config, a remote endpoint without its key is credentials', async () => {
    const noModel = await checkAgent(specAgent('openai'), {});
    expect(kinds(noModel.problems)).toEqual(['config']);
    const config = parseConfig('agents:\n  remote: { adapter: openai, model: m, base_url: "https://models.example.com/v1" }\n', 'c.yaml');
    const remote = await checkAgent(resolveAgent('remote', config, ROOT, null), {});
    expect(remote.problems).toMatchObject([{ kind: 'credentials', message: expect.stringContaining('OPENAI_API_KEY is not set') }]);
  });

  it('anthropic: a key is required everywhere', async () => {
    expect(kinds((await checkAgent(specAgent('anthropic'), {})).problems)).toEqual(['credentials']);
    expect(await checkAgent(specAgent('anthropic'), { ANTHROPIC_API_KEY: 'sk-ant-123456' })).toMatchObject({ ok: true, problems: [], warnings: [] });
  });

  it('mock: a readable script is ok, an unreadable one is a config problem with its fix', async () => {
    expect(await checkAgent(specAgent('mock'), {})).toMatchObject({ ok: true, version: 'mock-1' });
    const bad = await checkAgent(specAgent(`mock:${join(ROOT, 'test/fixtures/mock/bad-script.yaml')}`), {});
    expect(bad.ok).toBe(false);
    expect(bad.problems).toMatchObject([
      { kind: 'config', message: expect.stringContaining('is unreadable'), fix: 'fix the script file (see docs/adapters.md#mock)' },
    ]);
  });
});

describe('checkAgent: cmd: programs', () => {
  const cmd = (name: string) => specAgent(`cmd:test/fixtures/adapters/${name}`);

  it('asks the program its own --check', async () => {
    expect(await checkAgent(cmd('echo-resolve.mjs'), { PATH })).toMatchObject({ ok: true, version: 'fixture-1', problems: [], warnings: [] });
    const creds = await checkAgent(cmd('check-credentials.mjs'), { PATH });
    expect(creds).toMatchObject({
      ok: false,
      version: 'fixture-2',
      problems: [{ kind: 'credentials', message: 'FIXTURE_KEY is not set', fix: 'set FIXTURE_KEY' }],
    });
  });

  it('reads plain-string problems (the first contract) as config problems', async () => {
    const old = await checkAgent(cmd('check-strings.mjs'), { PATH });
    expect(old).toMatchObject({ ok: false, version: 'fixture-3', problems: [{ kind: 'config', message: 'model is not set: set model' }] });
  });

  it('a program that does not answer --check is only a no_check warning', async () => {
    const r = await checkAgent(cmd('crash.mjs'), { PATH });
    expect(r).toMatchObject({ ok: true, problems: [] });
    expect(r.warnings).toEqual([{ kind: 'no_check', message: 'does not answer --check', fix: 'see docs/adapter-contract.md#--check' }]);
  });

  it('with askProgram false only checks that it is executable; a file that is not is a config problem', async () => {
    expect(await checkAgent(cmd('crash.mjs'), { PATH }, { askProgram: false })).toMatchObject({ ok: true, warnings: [] });
    const plain = join(dir, 'not-executable.mjs');
    writeFileSync(plain, 'process.exit(0)\n');
    const r = await checkAgent(specAgent(`cmd:${plain}`), { PATH });
    expect(r.problems).toMatchObject([{ kind: 'config', message: `adapter program ${plain} is not executable` }]);
  });

  it('a cmd: path that is a directory, missing, or a file without an x bit is refused by name', async () => {
    // A directory passes an execute test (its x bit means search; root passes any), and then failed at spawn with EACCES.
    const folder = join(dir, 'agent-folder');
    mkdirSync(folder, { recursive: true });
    const inFolder = await checkAgent(specAgent(`cmd:${folder}`), { PATH });
    expect(inFolder.ok).toBe(false);
    expect(inFolder.problems).toMatchObject([
      { kind: 'config', message: `adapter program ${folder} is a directory, not a program`, fix: expect.stringContaining('after cmd:') },
    ]);
    const missing = join(dir, 'no-such-adapter');
    const gone = await checkAgent(specAgent(`cmd:${missing}`), { PATH });
    expect(gone.problems).toMatchObject([{ kind: 'not_found', message: `adapter program not found: ${missing}` }]);
  });

  it('a bare program name that is not on PATH is not_found', async () => {
    const r = await checkAgent(specAgent('cmd:bounce-no-such-program'), { PATH });
    expect(r.problems).toMatchObject([{ kind: 'not_found', message: 'adapter program not found: bounce-no-such-program' }]);
  });
});
