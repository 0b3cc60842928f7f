import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { AGENTS_BIN } from '../support/agents.js';
import { cleanEnv, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const NODE_DIR = dirname(process.execPath);
let dir: string;
let server: ModelServer;

/** A PATH holding only node and the named CLIs, so tests decide what is "installed". */
function pathWith(clis: string[]): string {
  const bin = tempDir('bounce-bin-');
  for (const cli of clis) symlinkSync(join(AGENTS_BIN, cli), join(bin, cli));
  return `${bin}:${NODE_DIR}`;
}

beforeAll(async () => {
  server = await startModelServer();
  dir = tempDir();
  writeFileSync(join(dir, 'doc.md'), '# Doc\n\nSome text to refine.\n');
  mkdirSync(join(dir, 'home'));
});
afterAll(async () => server?.close());
// src/kit/detect.ts caches each CLI's version per process, keyed by its name only, so
// a second run in one process would see the first one's PATH (issue 7, section 1, removes
// that cache). Each test gets fresh modules, as each `bounce` process does.
beforeEach(() => {
  vi.resetModules();
});

const env = (clis: string[], extra: NodeJS.ProcessEnv = {}) =>
  cleanEnv({
    PATH: pathWith(clis),
    HOME: join(dir, 'home'),
    CLAUDE_CONFIG_DIR: join(dir, 'home', '.claude'),
    CODEX_HOME: join(dir, 'home', '.codex'),
    ...extra,
  });

describe('choosing agents', () => {
  it('defaults to claude as reviewer and codex as composer when both are installed', async () => {
    const r = await runMain(['refine', 'doc.md', '--dry-run', '--json'], { cwd: dir, env: env(['claude', 'codex']) });
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan.agents.reviewer).toMatchObject({ spec: 'claude', chosen_by: 'default' });
    expect(plan.agents.composer).toMatchObject({ spec: 'codex', chosen_by: 'default' });
  });

  it('gives both roles to the only installed CLI', async () => {
    const r = await runMain(['refine', 'doc.md', '--dry-run', '--json'], { cwd: dir, env: env(['codex']) });
    const plan = JSON.parse(r.stdout);
    expect([plan.agents.reviewer.spec, plan.agents.composer.spec]).toEqual(['codex', 'codex']);
    expect(plan.agents.reviewer.chosen_by).toContain('only codex');
  });

  it('falls back to a local OpenAI-compatible server and its first model', async () => {
    const r = await runMain(['refine', 'doc.md', '--dry-run', '--json'], { cwd: dir, env: env([], { OPENAI_BASE_URL: `${server.url}/v1` }) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).agents.reviewer.spec).toBe('openai:mock-model');
  });

  it('uses the configured local agent on that server when it answers', async () => {
    const cfgDir = tempDir();
    writeFileSync(join(cfgDir, 'doc.md'), '# Doc\n\ntext\n');
    writeFileSync(join(cfgDir, 'bounce.config.yaml'), `agents:\n  ollama: { adapter: openai, model: mock-model-mini, base_url: "${server.url}/v1" }\n`);
    const r = await runMain(['refine', 'doc.md', '--dry-run', '--json'], { cwd: cfgDir, env: env([], { OPENAI_BASE_URL: `${server.url}/v1` }) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).agents.reviewer).toMatchObject({ spec: 'ollama', options: { model: 'mock-model-mini' } });
  });

  it('says what it looked for when no agent is found', async () => {
    const r = await runMain(['refine', 'doc.md'], { cwd: dir, env: env([], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /no agent found: looked for the claude, codex, gemini, opencode CLIs on PATH and an OpenAI-compatible server at http:\/\/127\.0\.0\.1:9\/v1/,
    );
    expect(r.stderr).toMatch(/npm i -g @anthropic-ai\/claude-code, or npm i -g @openai\/codex, or npm i -g @google\/gemini-cli, or npm i -g opencode-ai/);
  });

  it('flags override the config file', async () => {
    const cfgDir = tempDir();
    writeFileSync(join(cfgDir, 'doc.md'), '# Doc\n\ntext\n');
    writeFileSync(
      join(cfgDir, 'bounce.config.yaml'),
      'reviewer: local\ncomposer: local\nagents:\n  local: { adapter: openai, model: m1, base_url: "http://127.0.0.1:9/v1" }\n',
    );
    const r = await runMain(['refine', 'doc.md', '--dry-run', '--json', '--composer', 'mock'], { cwd: cfgDir, env: env([]) });
    const plan = JSON.parse(r.stdout);
    expect(plan.agents.reviewer).toMatchObject({ spec: 'local', adapter: 'openai', chosen_by: 'config', options: { model: 'm1' } });
    expect(plan.agents.composer).toMatchObject({ spec: 'mock', chosen_by: 'flag' });
  });
});

describe('bounce check and bounce adapters', () => {
  it('reports installed CLIs with versions; without a login, credentials are a problem with its fix (exit 1)', async () => {
    const r = await runMain(['check', '--json'], { cwd: dir, env: env(['claude', 'codex']) });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const out = JSON.parse(r.stdout);
    const claude = out.agents.find((a: { agent: string }) => a.agent === 'claude');
    expect(claude).toMatchObject({ found: true, source: 'default', credentials: 'problem' });
    expect(claude.version).toMatch(/2\.1\.197/);
    const table = await runMain(['check'], { cwd: dir, env: env(['claude', 'codex']) });
    expect(table.stdout).toMatch(/^AGENT\s+ADAPTER\s+SOURCE\s+FOUND\s+VERSION\s+CONFIG\s+CREDENTIALS/m);
    expect(table.stdout).toMatch(/problem: claude: .+: .+/);
  });

  it('a key in the environment a CI uses is a login: credentials ok, exit 0, the key never printed', async () => {
    const key = 'sk-ant-test-0123456789';
    const r = await runMain(['check', '--json'], {
      cwd: dir,
      env: { ...env(['claude', 'codex']), ANTHROPIC_API_KEY: key, CODEX_API_KEY: 'sk-codex-test-0123456789' },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const claude = JSON.parse(r.stdout).agents.find((a: { agent: string }) => a.agent === 'claude');
    expect(claude.credentials).toBe('ok');
    expect(r.stdout + r.stderr).not.toContain(key);
  });

  it('exits 1 naming each problem of a configured agent, with no API call', async () => {
    const cfgDir = tempDir();
    writeFileSync(
      join(cfgDir, 'bounce.config.yaml'),
      'reviewer: remote\nagents:\n  remote: { adapter: openai, model: m, base_url: "http://models.example.com/v1" }\n',
    );
    const before = server.requests.length;
    const r = await runMain(['check'], { cwd: cfgDir, env: env(['claude', 'codex']) });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/problem: remote: .*plain http/);
    expect(server.requests.length).toBe(before);
  });

  it('lists the adapters and their options', async () => {
    const r = await runMain(['adapters', '--json'], { cwd: dir, env: env([]) });
    const names = JSON.parse(r.stdout).adapters.map((a: { name: string }) => a.name);
    expect(names).toEqual(['claude', 'codex', 'gemini', 'opencode', 'openai', 'anthropic', 'a2a', 'mock', 'human', 'cmd:<program>']);
  });
});
