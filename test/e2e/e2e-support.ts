/**
 * What the end-to-end files share: the scripted model server (one per file, started by the
 * hooks this module registers when a test file imports it), the CLIs' homes pointed at it, a
 * fresh folder with the document per test, and helpers to look for leaked keys and processes.
 * The built `bounce` drives the real Claude Code, Codex, Gemini CLI and opencode (the pinned
 * ones in test/agents), and the openai and anthropic adapters. Nothing reaches a real provider.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { scriptedProviderToml } from '../support/codex-config.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { AGENTS_BIN } from '../support/agents.js';
import { cleanEnv, tempDir } from '../support/cli.js';
import { cliHomeEnv, OPENCODE_MODEL, writeGeminiHome, writeOpencodeConfig } from '../support/cli-homes.js';

export const CLAUDE_KEY = 'sk-ant-test-E2ECLAUDEKEY789';
export const CODEX_KEY = 'sk-test-E2ECODEXKEY321';
export const OPENAI_KEY = 'sk-test-E2EOPENAIKEY654';
export const GEMINI_KEY = 'gm-test-E2EGEMINIKEY147';
export const OPENCODE_KEY = 'sk-test-E2EOPENCODEKEY258';
export const OPENCODE = `opencode:${OPENCODE_MODEL}`;
export const DOC = `# Launch checklist

We launch on Monday after the load test passes.

Support is staffed by two people during launch week.
`;

export let server: ModelServer;
export let home: string;
export let dir: string;

beforeAll(async () => {
  server = await startModelServer();
  home = tempDir('bounce-e2e-home-');
  mkdirSync(join(home, 'codex'));
  writeFileSync(join(home, 'codex', 'config.toml'), scriptedProviderToml(server.url).join('\n'));
  writeGeminiHome(home);
  writeOpencodeConfig(join(home, '.config'), server.url);
});
afterAll(async () => server?.close());
beforeEach(() => {
  dir = tempDir('bounce-e2e-');
  writeFileSync(join(dir, 'launch.md'), DOC);
});

/** The real CLIs are found on PATH by name, as on a user's machine. */
export function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return cleanEnv({
    PATH: `${AGENTS_BIN}:${process.env.PATH}`,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, 'claude'),
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: CLAUDE_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CODEX_HOME: join(home, 'codex'),
    BOUNCE_TEST_CODEX_KEY: CODEX_KEY,
    ...cliHomeEnv(home, server.url),
    GEMINI_API_KEY: GEMINI_KEY,
    BOUNCE_TEST_OPENCODE_KEY: OPENCODE_KEY,
    ...extra,
  });
}

export const documentCalls = (since: number) => server.requests.slice(since).filter((r) => r.scripted);
export const onlyRun = (): string => {
  const runs = readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.'));
  expect(runs).toHaveLength(1);
  return join(dir, 'runs', runs[0]!);
};

/** Live (non-zombie) processes whose environment carries `marker`: one copy, in cli-live-support. */
export { processesWith } from '../adapters/cli-live-support.js';

export function filesUnder(path: string): string[] {
  return statSync(path).isDirectory() ? readdirSync(path).flatMap((n) => filesUnder(join(path, n))) : [path];
}

export function expectNoKeys(runDir: string, keys: string[]): void {
  for (const file of filesUnder(runDir)) {
    const text = readFileSync(file, 'utf8');
    for (const key of keys) expect(text.includes(key), `${key} leaked into ${file}`).toBe(false);
  }
}

export interface ProgramRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A real agent CLI run to its end in `cwd` with env(), stdin closed; killed (SIGKILL) after `timeoutMs`. */
export function runProgram(program: string, args: string[], cwd: string, timeoutMs: number): Promise<ProgramRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
