/**
 * `bounce check` in-process: the FOUND / CONFIG / CREDENTIALS columns come from the kinds
 * of the problems, and every problem and warning is printed with its fix.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../src/commands/check.js';
import { ROOT } from '../support/adapter-process.js';
import { memIo } from '../support/fake-run.js';
import { startModelServer } from '../support/model-server.js';

const FAKE_CLI = join(ROOT, 'test/fixtures/cli/fake-cli.mjs');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bounce-check-cmd-'));
  writeFileSync(
    join(dir, 'bounce.config.yaml'),
    [
      'reviewer: remote',
      'agents:',
      '  remote: { adapter: openai, model: m, base_url: "https://models.example.com/v1" }',
      `  keyed: { adapter: "cmd:${join(ROOT, 'test/fixtures/adapters/check-credentials.mjs')}" }`,
      `  silent: { adapter: "cmd:${join(ROOT, 'test/fixtures/adapters/crash.mjs')}" }`,
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = { PATH: process.env.PATH ?? '', HOME: '/nonexistent', BOUNCE_CLAUDE_BIN: FAKE_CLI, BOUNCE_CODEX_BIN: '/nonexistent/codex' };

describe('bounce check', () => {
  it('sorts findings into columns by kind and prints each fix', async () => {
    const io = memIo(dir, { env });
    expect(await runCheck({}, io)).toBe(1);
    const lines = io.out().split('\n');
    const row = (agent: string) => lines.find((l) => l.startsWith(`${agent} `))?.split(/\s{2,}/);
    // An HTTP agent whose server does not answer is not found; its missing key is still a problem.
    expect(row('remote')).toEqual(['remote', 'openai', 'configured', 'no', '-', 'ok', 'problem']);
    expect(row('keyed')).toEqual(['keyed', 'cmd', 'configured', 'yes', 'fixture-2', 'ok', 'problem']);
    // A program that does not answer --check: its credentials are unknown, not ok.
    expect(row('silent')).toEqual(['silent', 'cmd', 'configured', 'yes', '-', 'warning', 'unknown']);
    expect(row('claude')).toEqual(['claude', 'claude', 'default', 'yes', '9.8.7', 'ok', 'warning']);
    // A missing CLI: nothing is known of its credentials.
    expect(row('codex')).toEqual(['codex', 'codex', 'default', 'no', '-', 'unknown', 'unknown']);
    expect(lines).toContain(
      'problem: remote: OPENAI_API_KEY is not set (https://models.example.com/v1 is not a loopback endpoint): set OPENAI_API_KEY, or name the variable to read with api_key_env in an agents: entry of bounce.config.yaml',
    );
    expect(lines).toContain('problem: remote: https://models.example.com/v1 does not answer: start the server, or fix base_url in bounce.config.yaml');
    expect(lines).toContain('problem: keyed: FIXTURE_KEY is not set: set FIXTURE_KEY');
    expect(lines).toContain('warning: silent: does not answer --check: see docs/adapter-contract.md#--check');
    expect(lines).toContain(
      'warning: claude: claude login cannot be verified offline: run `claude` once and /login, or set ANTHROPIC_API_KEY (in CI: CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`)',
    );
    // A default CLI that is missing while another agent is usable is skipped, not a problem.
    expect(lines).toContain('skipped: codex: BOUNCE_CODEX_BIN (/nonexistent/codex) is not an executable file: fix it or unset it to use codex from PATH');
    expect(lines.at(-2)).toBe('next: fix the problems above; each names its fix');
    // Every problem line names a fix.
    for (const line of lines.filter((l) => l.startsWith('problem: '))) expect(line.split(': ').length, line).toBeGreaterThan(3);
  });

  it('with nothing installed: each missing CLI is a problem of unknown config, and the next step names every way to get an agent (exit 1)', async () => {
    const here = mkdtempSync(join(tmpdir(), 'bounce-check-none-'));
    try {
      const io = memIo(here, { env: { PATH: '/nonexistent', HOME: '/nonexistent' } });
      expect(await runCheck({}, io)).toBe(1);
      const lines = io.out().split('\n');
      expect(lines.find((l) => l.startsWith('claude '))?.split(/\s{2,}/)).toEqual(['claude', 'claude', 'default', 'no', '-', 'unknown', 'unknown']);
      expect(lines).toContain('problem: claude: claude not found on PATH: install it with npm i -g @anthropic-ai/claude-code or set BOUNCE_CLAUDE_BIN');
      const next = lines.at(-2) ?? '';
      expect(next).toMatch(/^next: no agent is ready: install one of the CLIs and log in \(npm i -g @anthropic-ai\/claude-code, /);
      for (const way of ['Ollama', '--reviewer openai:<model>', 'bounce refine <doc> --reviewer mock', 'bounce init']) expect(next).toContain(way);
      // The table, the details, the findings and the next step are blocks apart.
      expect(io.out()).toMatch(/\nopencode {2}opencode [^\n]*\n\ncodex: [^\n]*\n[\s\S]*config_dir=[^\n]*\n\nproblem: claude: [\s\S]*\n\nnext: /);
    } finally {
      rmSync(here, { recursive: true, force: true });
    }
  });

  it('a CLI whose login cannot be verified offline is not ready: exit 1, and the next step says so', async () => {
    const here = mkdtempSync(join(tmpdir(), 'bounce-check-unverified-'));
    try {
      // The fake claude has no `auth status` (its login cannot be verified offline); nothing else is installed.
      const io = memIo(here, {
        env: { ...env, PATH: dirname(process.execPath), BOUNCE_GEMINI_BIN: '/nonexistent/gemini', BOUNCE_OPENCODE_BIN: '/nonexistent/opencode' },
      });
      expect(await runCheck({ json: true }, io)).toBe(1);
      const out = JSON.parse(io.out()) as { ok: boolean; next: string };
      expect(out.ok).toBe(false);
      expect(out.next).toMatch(/^no login could be verified offline: log in as the warnings above say/);
    } finally {
      rmSync(here, { recursive: true, force: true });
    }
  });

  it('--json carries each problem as { kind, message, fix }', async () => {
    const io = memIo(dir, { env: { ...env, OPENAI_API_KEY: 'sk-123456', FIXTURE_KEY: 'x' } });
    await runCheck({ json: true }, io);
    const out = JSON.parse(io.out()) as { ok: boolean; agents: { agent: string; found: boolean | null; problems: unknown[]; warnings: unknown[] }[] };
    const by = Object.fromEntries(out.agents.map((a) => [a.agent, a]));
    expect(by.remote?.problems).toMatchObject([{ kind: 'unreachable' }]);
    expect(by.remote?.found).toBe(false);
    expect(by.codex?.problems).toEqual([
      { kind: 'not_found', message: 'BOUNCE_CODEX_BIN (/nonexistent/codex) is not an executable file', fix: 'fix it or unset it to use codex from PATH' },
    ]);
    expect(by.claude?.warnings).toMatchObject([{ kind: 'login_unverified' }]);
    expect(io.out()).not.toContain('sk-123456');
  });

  it('a CLI that does not answer --version in time is named as slow, not as broken; a bad BOUNCE_PROBE_TIMEOUT_S is named with its fix', async () => {
    const slow = memIo(dir, { env: { ...env, FAKE_CLI_VERSION: 'slow', BOUNCE_PROBE_TIMEOUT_S: '0.5' } });
    expect(await runCheck({}, slow)).toBe(1);
    const lines = slow.out().split('\n');
    const claude = lines.find((l) => l.startsWith('claude '))?.split(/\s{2,}/);
    expect(claude?.slice(0, 5)).toEqual(['claude', 'claude', 'default', 'yes', '-']);
    expect(lines).toContain(
      // A default CLI's problem is `skipped:` while a configured agent is usable (the `silent` one here).
      `skipped: claude: ${FAKE_CLI} did not answer \`--version\` within 0.5 s: try again when the machine is less busy, or give it longer with BOUNCE_PROBE_TIMEOUT_S=<seconds> (default 20)`,
    );
    expect(slow.out()).not.toContain('reinstall');
    const bad = memIo(dir, { env: { ...env, BOUNCE_PROBE_TIMEOUT_S: 'soon' } });
    expect(await runCheck({}, bad)).toBe(1);
    expect(bad.out().split('\n')).toContain(
      'skipped: claude: BOUNCE_PROBE_TIMEOUT_S is "soon", not a number of seconds: set it to a number above 0 and at most 86400 (e.g. 60), or unset it',
    );
  });

  it('an HTTP agent whose server answers is found; a config of mock agents only does not check the default CLIs', async () => {
    const server = await startModelServer();
    const here = mkdtempSync(join(tmpdir(), 'bounce-check-mock-'));
    try {
      writeFileSync(
        join(here, 'bounce.config.yaml'),
        ['reviewer: mock', 'composer: mock', 'agents:', `  local: { adapter: openai, model: mock-model, base_url: "${server.url}/v1" }`, ''].join('\n'),
      );
      const io = memIo(here, { env: { PATH: '/nonexistent', HOME: '/nonexistent' } });
      expect(await runCheck({}, io)).toBe(0);
      const lines = io.out().split('\n');
      const row = (agent: string) => lines.find((l) => l.startsWith(`${agent} `))?.split(/\s{2,}/);
      expect(row('mock')).toEqual(['mock', 'mock', 'configured', 'yes', 'mock-1', 'ok', '-']);
      expect(row('local')).toEqual(['local', 'openai', 'configured', 'yes', '-', 'ok', 'ok']);
      expect(row('claude')).toBeUndefined();
      expect(row('codex')).toBeUndefined();
      expect(io.out()).not.toMatch(/^problem:/m);
      // Only a HEAD reached the server: no model call, no key.
      expect(server.requests.map((r) => r.method)).toEqual(['HEAD']);
    } finally {
      await server.close();
      rmSync(here, { recursive: true, force: true });
    }
  });
});
