import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveAgent } from '../../src/adapters/registry.js';
import { secretNames, secretValues, withoutSecrets } from '../../src/adapters/secrets.js';
import { ConfigSchema } from '../../src/config/schema.js';

const home = mkdtempSync(join(tmpdir(), 'bounce-secrets-'));
writeFileSync(join(home, 'config.toml'), '[model_providers.local]\nname = "L"\nbase_url = "http://127.0.0.1:1/v1"\nenv_key = "LOCAL_CODEX_KEY"\n');
afterAll(() => rmSync(home, { recursive: true, force: true }));

const config = ConfigSchema.parse({
  agents: {
    router: { adapter: 'openai', model: 'm', base_url: 'https://r.example.com/v1', api_key_env: 'ROUTER_KEY' },
    mine: { adapter: 'cmd:/bin/true', api_key_env: 'MINE_KEY' },
  },
});
const agent = (spec: string) => resolveAgent(spec, config, home, home);

describe('secretValues', () => {
  const env = {
    CODEX_HOME: home,
    ROUTER_KEY: 'sk-router-1234',
    MINE_KEY: ' sk-mine-5678 ',
    ANTHROPIC_API_KEY: 'sk-ant-9999',
    CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat-0000',
    OPENAI_API_KEY: '',
    CODEX_API_KEY: '   ',
    LOCAL_CODEX_KEY: 'local-key-42',
    UNRELATED: 'not-a-key',
  };

  it("lists every set key variable of the run's agents and of every built-in, never a blank one", () => {
    const values = secretValues([agent('router'), agent('mock')], env);
    expect(values).toEqual(expect.arrayContaining(['sk-router-1234', 'sk-ant-9999', 'sk-ant-oat-0000']));
    expect(values).not.toContain('');
    expect(values).not.toContain('   ');
    expect(values).not.toContain('not-a-key');
    // MINE_KEY belongs to an agent that is not in this run; config.toml keys only with codex or cmd: agents.
    expect(values).not.toContain('sk-mine-5678');
    expect(values).not.toContain('local-key-42');
  });

  it("includes a cmd: agent's api_key_env (as set and trimmed) and codex's env_key variables", () => {
    const values = secretValues([agent('mine'), agent('codex')], env);
    expect(values).toEqual(expect.arrayContaining([' sk-mine-5678 ', 'sk-mine-5678', 'local-key-42']));
    // Longest first: replacing in this order never leaves part of a longer value behind.
    expect([...values].sort((a, b) => b.length - a.length)).toEqual(values);
    expect(secretNames([agent('codex')], env)).toEqual(
      expect.arrayContaining(['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY', 'CODEX_API_KEY', 'LOCAL_CODEX_KEY']),
    );
  });
});

describe('withoutSecrets (the environment of a check command)', () => {
  it("drops the agents' key variables and anything named like a credential, and keeps the rest", () => {
    const env = {
      PATH: '/usr/bin',
      HOME: '/home/me',
      LANG: 'C.UTF-8',
      VALE_STYLES_PATH: 'styles',
      ROUTER_KEY: 'sk-router-1234',
      ANTHROPIC_API_KEY: 'sk-ant-9999',
      GITHUB_TOKEN: 'ghp_x',
      PGPASSWORD: 'pw',
      AWS_SECRET_ACCESS_KEY: 's',
      npm_config__auth: 'a',
    };
    expect(withoutSecrets(env, [agent('router'), agent('mock')])).toEqual({ PATH: '/usr/bin', HOME: '/home/me', LANG: 'C.UTF-8', VALE_STYLES_PATH: 'styles' });
  });
});
