/**
 * chooseAgents: the default CLIs are picked by their login, asked offline (the fake CLI
 * answers `claude auth status --json` and `codex login status`); what was skipped is data.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseAgents, skippedWarnings } from '../../src/adapters/choose.js';
import { CLAUDE_LOGIN_FIX } from '../../adapters/claude/login.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import { ROOT } from '../support/adapter-process.js';

const FAKE_CLI = join(ROOT, 'test/fixtures/cli/fake-cli.mjs');
const LOGGED_IN = JSON.stringify({ loggedIn: true, authMethod: 'claude.ai', subscriptionType: 'max' });
const LOGGED_OUT = JSON.stringify({ loggedIn: false, authMethod: 'none' });

const env = (extra: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  HOME: '/nonexistent',
  CODEX_HOME: '/nonexistent/codex',
  BOUNCE_CLAUDE_BIN: FAKE_CLI,
  BOUNCE_CODEX_BIN: FAKE_CLI,
  // Gemini CLI and opencode are not installed unless a test says so.
  BOUNCE_GEMINI_BIN: '/nonexistent/gemini',
  BOUNCE_OPENCODE_BIN: '/nonexistent/opencode',
  // Nothing answers here, so no local server is found either.
  OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
  ...extra,
});
const choose = (e: NodeJS.ProcessEnv, flags = {}, doc?: string) => chooseAgents({ flags, config: DEFAULT_CONFIG, configDir: null, cwd: ROOT, env: e, doc });
const specs = (c: Awaited<ReturnType<typeof choose>>) => [c.agents.reviewer.spec, c.agents.composer.spec];

describe('chooseAgents: the four CLIs in the order claude, codex, gemini, opencode', () => {
  // The fake CLI stands in for all four; a CLI pointed at a missing file is not installed.
  const four = (extra: Record<string, string>) => env({ BOUNCE_GEMINI_BIN: FAKE_CLI, BOUNCE_OPENCODE_BIN: FAKE_CLI, GEMINI_API_KEY: 'gm-key-1234', ...extra });
  const gone = '/nonexistent/cli';

  it('the first two installed CLIs take the two roles', async () => {
    expect(specs(await choose(four({ BOUNCE_CLAUDE_BIN: gone, BOUNCE_CODEX_BIN: gone })))).toEqual(['gemini', 'opencode']);
    expect(specs(await choose(four({ BOUNCE_CODEX_BIN: gone, FAKE_CLI_AUTH: LOGGED_IN })))).toEqual(['claude', 'gemini']);
    expect(specs(await choose(four({ BOUNCE_CLAUDE_BIN: gone, BOUNCE_GEMINI_BIN: gone, FAKE_CLI_LOGIN: 'chatgpt' })))).toEqual(['codex', 'opencode']);
  });

  it('CLIs with no login are left out while two others have one, and reported', async () => {
    const c = await choose(four({ FAKE_CLI_AUTH: LOGGED_OUT, FAKE_CLI_LOGIN: 'none' }));
    expect(specs(c)).toEqual(['gemini', 'opencode']);
    expect(c.skipped.map((s) => s.agent)).toEqual(['claude', 'codex']);
    expect(c.chosenBy.reviewer).toBe('default (claude and codex not logged in; opencode: login not verified)');
    expect(JSON.stringify(c)).not.toContain('gm-key-1234');
  });

  it('gemini with no auth method is left out for opencode alone', async () => {
    const c = await choose(four({ BOUNCE_CLAUDE_BIN: gone, BOUNCE_CODEX_BIN: gone, GEMINI_API_KEY: '' }));
    expect(specs(c)).toEqual(['opencode', 'opencode']);
    expect(c.skipped).toMatchObject([{ agent: 'gemini', why: 'not_logged_in', fix: expect.stringContaining('GEMINI_API_KEY') }]);
  });
});

describe('chooseAgents: default CLIs and their logins', () => {
  it('both logged in: claude reviews, codex composes, nothing skipped', async () => {
    const c = await choose(env({ FAKE_CLI_AUTH: LOGGED_IN, FAKE_CLI_LOGIN: 'chatgpt' }));
    expect(specs(c)).toEqual(['claude', 'codex']);
    expect(c.skipped).toEqual([]);
  });

  it('codex reports no login while claude has one: claude takes both roles and codex is reported skipped', async () => {
    const c = await choose(env({ FAKE_CLI_AUTH: LOGGED_IN, FAKE_CLI_LOGIN: 'none' }));
    expect(specs(c)).toEqual(['claude', 'claude']);
    expect(c.chosenBy.reviewer).toBe('default (codex not logged in)');
    expect(c.skipped).toEqual([
      {
        agent: 'codex',
        why: 'not_logged_in',
        reason: 'codex is not logged in (`codex login status`)',
        fix: 'run `codex login` (or set CODEX_API_KEY), or define a model provider in $CODEX_HOME/config.toml',
      },
    ]);
    expect(skippedWarnings(c.skipped)).toEqual([
      'warning: codex skipped as a default agent: codex is not logged in (`codex login status`): run `codex login` (or set CODEX_API_KEY), or define a model provider in $CODEX_HOME/config.toml',
    ]);
  });

  it('claude reports no login while codex has one (CODEX_API_KEY, as in CI): codex takes both roles', async () => {
    const c = await choose(env({ FAKE_CLI_AUTH: LOGGED_OUT, FAKE_CLI_LOGIN: 'none', CODEX_API_KEY: 'sk-ci-123456' }));
    expect(specs(c)).toEqual(['codex', 'codex']);
    expect(c.skipped.map((s) => s.agent)).toEqual(['claude']);
    expect(JSON.stringify(c)).not.toContain('sk-ci-123456');
  });

  it('neither logged in: both are kept (the check before the run names the login to fix)', async () => {
    const c = await choose(env({ FAKE_CLI_AUTH: LOGGED_OUT, FAKE_CLI_LOGIN: 'none' }));
    expect(specs(c)).toEqual(['claude', 'codex']);
    expect(c.skipped).toEqual([]);
  });

  it('named agents skip the detection', async () => {
    const c = await choose(env({ FAKE_CLI_AUTH: LOGGED_OUT }), { reviewer: 'mock', composer: 'mock' });
    expect(specs(c)).toEqual(['mock', 'mock']);
    expect(c.skipped).toEqual([]);
  });

  it('with nothing found, the message offers the mock agents and the exact command', async () => {
    const failure = await choose({ PATH: '/nonexistent', HOME: '/nonexistent', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, {}, 'notes.md').catch(
      (e: unknown) => e,
    );
    expect(failure).toMatchObject({ exitCode: 2, hint: expect.stringContaining('bounce refine notes.md --reviewer mock') });
  });
});

describe('chooseAgents: named agents come first', () => {
  const nothing = { PATH: '/nonexistent', HOME: '/nonexistent', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };

  it('a mistyped name alone is named, with the closest known one, even with no agent on the machine', async () => {
    const failure = await choose(nothing, { reviewer: 'claud' }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ exitCode: 2, message: 'unknown agent "claud"', hint: expect.stringMatching(/^did you mean claude\? /) });
  });

  it('a configured agent is among the names suggested', async () => {
    const config = { ...DEFAULT_CONFIG, agents: { localllama: { adapter: 'openai', model: 'llama3.1' } } };
    const failure = await chooseAgents({ flags: { composer: 'localllam' }, config, configDir: null, cwd: ROOT, env: nothing }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ hint: expect.stringMatching(/^did you mean localllama\? /) });
  });

  it('a reviewer named alone takes both roles, whatever is installed, and says so', async () => {
    for (const e of [nothing, env({ FAKE_CLI_AUTH: LOGGED_IN, FAKE_CLI_LOGIN: 'chatgpt' })]) {
      const c = await choose(e, { reviewer: 'mock' });
      expect(specs(c)).toEqual(['mock', 'mock']);
      expect(c.chosenBy).toEqual({ reviewer: 'flag', composer: 'same as the reviewer: no composer named' });
    }
  });

  it('a composer named alone takes both roles too', async () => {
    const c = await choose(nothing, { composer: 'mock' });
    expect(specs(c)).toEqual(['mock', 'mock']);
    expect(c.chosenBy).toEqual({ reviewer: 'same as the composer: no reviewer named', composer: 'flag' });
  });
});

describe('chooseAgents: a login that cannot be verified offline', () => {
  // Without FAKE_CLI_AUTH the fake claude has no `auth status`: its login cannot be verified offline.
  it('comes after a CLI whose login is verified', async () => {
    const c = await choose(env({ FAKE_CLI_LOGIN: 'chatgpt' }));
    expect(specs(c)).toEqual(['codex', 'claude']);
    expect(c.unverified).toMatchObject([{ agent: 'claude', why: 'login_unverified', reason: 'claude login cannot be verified offline' }]);
    expect(c.chosenBy.reviewer).toBe('default (claude: login not verified)');
    expect(skippedWarnings(c.skipped, c.unverified)).toEqual([
      `warning: claude chosen as a default agent, but claude login cannot be verified offline: ${CLAUDE_LOGIN_FIX}`,
    ]);
  });

  it('is not chosen at all while another CLI has a verified login and takes both roles', async () => {
    const c = await choose(env({ FAKE_CLI_LOGIN: 'chatgpt', BOUNCE_CLAUDE_BIN: '/nonexistent/claude' }));
    expect(specs(c)).toEqual(['codex', 'codex']);
    expect(c.unverified).toEqual([]);
  });
});
