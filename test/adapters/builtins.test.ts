import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ADAPTER_TABLE,
  adapterInfo,
  BUILTIN_ADAPTERS,
  BUILTIN_NAMES,
  cliFacts,
  cliLogin,
  configKeyEnvs,
  DEFAULT_CLIS,
  isBuiltin,
  loadBuiltin,
} from '../../src/adapters/builtins.js';
import { ROOT } from '../support/adapter-process.js';

const ADAPTERS = join(ROOT, 'adapters');

describe('the list of built-in agents', () => {
  it('has one entry per folder of adapters/, each folder with its program and facts', () => {
    const folders = readdirSync(ADAPTERS, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect([...BUILTIN_NAMES].sort()).toEqual(folders.sort());
    for (const name of BUILTIN_NAMES) {
      for (const file of ['program.ts', 'facts.ts', 'agent.ts']) expect(existsSync(join(ADAPTERS, name, file)), `${name}/${file}`).toBe(true);
    }
  });

  it('derives the table, the names and the lookups from the same entries', () => {
    expect(BUILTIN_ADAPTERS.map((a) => a.name)).toEqual([...BUILTIN_NAMES]);
    for (const facts of BUILTIN_ADAPTERS) {
      expect(ADAPTER_TABLE[facts.name as keyof typeof ADAPTER_TABLE]).toBe(facts);
      expect(adapterInfo(facts.name)).toBe(facts);
      expect(isBuiltin(facts.name)).toBe(true);
    }
    expect(isBuiltin('cmd')).toBe(false);
    expect(adapterInfo('constructor')).toBeUndefined();
  });

  it('takes the default CLIs from the list: the agents that run a CLI, in its order, each with a login', () => {
    expect(DEFAULT_CLIS).toEqual(['claude', 'codex', 'gemini', 'opencode']);
    expect(DEFAULT_CLIS).toEqual(BUILTIN_ADAPTERS.filter((a) => a.kind === 'cli').map((a) => a.name));
    for (const name of DEFAULT_CLIS) {
      expect(cliFacts(name)).toBe(ADAPTER_TABLE[name].cliProgram);
      expect(typeof cliLogin(name)).toBe('function');
    }
  });

  it("asks each agent's own config for key variables: codex's config.toml, opencode's {env:NAME}, nobody else's", () => {
    const home = mkdtempSync(join(tmpdir(), 'bounce-builtins-'));
    try {
      mkdirSync(join(home, '.codex'));
      writeFileSync(join(home, '.codex', 'config.toml'), '[model_providers.local]\nname = "local"\nenv_key = "LOCAL_CODEX_KEY"\n');
      mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
      writeFileSync(join(home, '.config', 'opencode', 'opencode.json'), '{ "provider": { "mine": { "options": { "apiKey": "{env:MINE_KEY}" } } } }');
      const env = { HOME: home, PATH: '' };
      const found = Object.fromEntries(BUILTIN_NAMES.map((name) => [name, configKeyEnvs(name, env)]));
      expect(found).toEqual({
        claude: [],
        codex: ['LOCAL_CODEX_KEY'],
        gemini: [],
        opencode: ['MINE_KEY'],
        openai: [],
        anthropic: [],
        a2a: [],
        mock: [],
        human: [],
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('loads each built-in program from its folder, named as in the list', async () => {
    for (const name of BUILTIN_NAMES) {
      const adapter = await loadBuiltin(name);
      expect(typeof adapter.dispatch, name).toBe('function');
      expect(typeof adapter.check, name).toBe('function');
    }
    await expect(loadBuiltin('nope')).rejects.toThrow('no built-in adapter nope');
  });
});
