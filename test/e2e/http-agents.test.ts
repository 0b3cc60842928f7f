/** End to end with the openai and anthropic adapters, over HTTP, against the scripted model server (./e2e-support.ts). */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { CLAUDE_KEY, OPENAI_KEY, server, dir, env, documentCalls, onlyRun, expectNoKeys } from './e2e-support.js';

describe('bounce refine with the openai and anthropic adapters', () => {
  it('openai: converges against an OpenAI-compatible server on loopback without a key', async () => {
    const before = server.requests.length;
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'openai:mock-model', '--composer', 'openai:mock-model', '--json'], {
      cwd: dir,
      env: env({ OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(documentCalls(before).map((c) => c.api)).toEqual(['chat', 'chat']);
    const m = JSON.parse(readFileSync(join(onlyRun(), 'run.json'), 'utf8'));
    expect(m.totals.input_tokens).toBeGreaterThan(0);
    expect(m.agents.reviewer).toMatchObject({ adapter: 'openai', model: 'mock-model', usage_provider_reported: true });
  });

  it('openai: a key is sent to the server but never written to the run folder', async () => {
    const before = server.requests.length;
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'openai:mock-model', '--composer', 'openai:mock-model'], {
      cwd: dir,
      env: env({ OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: OPENAI_KEY }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(documentCalls(before)[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expectNoKeys(onlyRun(), [OPENAI_KEY]);
  });

  it('anthropic: converges through the Messages API', async () => {
    const before = server.requests.length;
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'anthropic:mock-model', '--composer', 'anthropic:mock-model', '--json'], {
      cwd: dir,
      env: env(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(documentCalls(before).map((c) => c.api)).toEqual(['anthropic', 'anthropic']);
    expectNoKeys(onlyRun(), [CLAUDE_KEY]);
  });

  it('refuses a plain-http remote endpoint before anything is sent (exit 2, no run folder)', async () => {
    const before = server.requests.length;
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'openai:m', '--composer', 'openai:m'], {
      cwd: dir,
      env: env({ OPENAI_BASE_URL: 'http://models.example.com/v1', OPENAI_API_KEY: OPENAI_KEY }),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/plain http/);
    expect(r.stderr).not.toContain(OPENAI_KEY);
    expect(server.requests.length).toBe(before);
    expect(existsSync(join(dir, 'runs'))).toBe(false);
  });
});
