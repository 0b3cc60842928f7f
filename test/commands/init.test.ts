/**
 * `bounce init` in-process: the file it writes names the agents found, loads with the
 * config loader, and is never written over.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from '../../src/adapters/registry.js';
import { configText } from '../../src/commands/init.js';
import { loadConfig, parseConfig } from '../../src/config/load.js';
import { ROOT } from '../support/adapter-process.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { runMain } from '../support/run-main.js';

const FAKE_CLI = join(ROOT, 'test/fixtures/cli/fake-cli.mjs');
let dir: string;
let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => server.close());
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fresh = (): string => (dir = mkdtempSync(join(tmpdir(), 'bounce-init-')));
const base = { PATH: process.env.PATH ?? '', HOME: '/nonexistent', CODEX_HOME: '/nonexistent/codex', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };
const written = () => readFileSync(join(dir, 'bounce.config.yaml'), 'utf8');

describe('bounce init', () => {
  it('names the logged-in CLI for both roles, notes the one skipped, and the file loads', async () => {
    fresh();
    const env = {
      ...base,
      BOUNCE_CLAUDE_BIN: FAKE_CLI,
      BOUNCE_CODEX_BIN: FAKE_CLI,
      FAKE_CLI_AUTH: JSON.stringify({ loggedIn: true, authMethod: 'claude.ai' }),
      FAKE_CLI_LOGIN: 'none',
    };
    const r = await runMain(['init'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('wrote bounce.config.yaml: reviewer claude, composer claude\n');
    expect(r.stderr).toMatch(/^warning: codex skipped as a default agent: codex is not logged in/);
    const text = written();
    expect(text).toMatch(/^reviewer: claude$/m);
    expect(text).toMatch(/^# Not chosen: codex is not logged in/m);
    expect(text).toMatch(/^# {5}adapter: cmd:\.\/my-agent\.py$/m);
    const { config, path } = loadConfig(dir, {});
    expect(path).toBe(join(dir, 'bounce.config.yaml'));
    expect(config).toMatchObject({ reviewer: 'claude', composer: 'claude', agents: {} });
  });

  it('writes a local OpenAI-compatible server as the `local` agent', async () => {
    fresh();
    const r = await runMain(['init'], { cwd: dir, env: { ...base, PATH: '/nonexistent', OPENAI_BASE_URL: `${server.url}/v1` } });
    expect(r.code, r.stderr).toBe(0);
    const { config } = loadConfig(dir, {});
    expect(config.reviewer).toBe('local');
    const agent = resolveAgent('local', config, dir, dir);
    expect(agent).toMatchObject({ adapter: 'openai', options: { model: 'mock-model', base_url: `${server.url}/v1` } });
  });

  it('with nothing found, names no agent (mock commented out), so a CLI installed later is picked', async () => {
    fresh();
    const env = { ...base, PATH: `/nonexistent:${process.env.PATH?.split(':').find((p) => existsSync(join(p, 'node'))) ?? ''}` };
    const init = await runMain(['init'], { cwd: dir, env });
    expect(init).toMatchObject({ code: 0, stdout: 'wrote bounce.config.yaml: no agent found, none named (mock commented out)\n' });
    expect(written()).toContain('\n# reviewer: mock\n# composer: mock\n');
    const { config } = loadConfig(dir, {});
    expect([config.reviewer, config.composer]).toEqual([undefined, undefined]);
    writeFileSync(join(dir, 'doc.md'), '# Doc\n\nSome text.\n');
    // Nothing installed: refine says so, rather than "converging" with the mock agents.
    const none = await runMain(['refine', 'doc.md'], { cwd: dir, env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^bounce: no agent found: /);
    // A CLI installed since: refine picks it.
    const later = await runMain(['refine', 'doc.md', '--dry-run', '--json'], {
      cwd: dir,
      env: { ...env, BOUNCE_CLAUDE_BIN: FAKE_CLI, ANTHROPIC_API_KEY: 'sk-test-0000' },
    });
    expect(later.code, later.stderr).toBe(0);
    expect(JSON.parse(later.stdout).agents.reviewer).toMatchObject({ spec: 'claude' });
  });

  it('refuses to write over an existing file: exit 2, one line, the file untouched', async () => {
    fresh();
    writeFileSync(join(dir, 'bounce.config.yaml'), 'reviewer: mine\n');
    const r = await runMain(['init'], { cwd: dir, env: base });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bounce: bounce.config.yaml already exists here: edit it, or move it away to write a new one with bounce init\n');
    expect(written()).toBe('reviewer: mine\n');
  });

  it('quotes what YAML would misread', () => {
    fresh();
    const text = configText({ reviewer: 'yes', composer: 'a b', local: null, how: 'x', skipped: [] });
    expect(parseConfig(text, 'c.yaml')).toMatchObject({ reviewer: 'yes', composer: 'a b' });
  });
});
