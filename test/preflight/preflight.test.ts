/** preflight: each distinct agent the run uses is checked once, concurrently, in-process. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { preflight } from '../../src/preflight/preflight.js';
import { ROOT } from '../support/adapter-process.js';
import { specAgent } from '../support/test-agent.js';

const FAKE_CLI = join(ROOT, 'test/fixtures/cli/fake-cli.mjs');
const BAD_SCRIPT = `mock:${join(ROOT, 'test/fixtures/mock/bad-script.yaml')}`;
const dir = mkdtempSync(join(tmpdir(), 'bounce-preflight-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('preflight', () => {
  it('checks only the roles the run uses: with one pass the composer is never checked', async () => {
    const agents = { reviewer: specAgent('mock'), composer: specAgent(BAD_SCRIPT) };
    const r = await preflight(agents, {}, { roles: ['reviewer'] });
    expect(r.reviewer.version).toBe('mock-1');
    expect(r.composer).toEqual({ version: null, warnings: [], resolved: {} });
    await expect(preflight(agents, {})).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/^mock:.*bad-script\.yaml is not ready: mock script .* is unreadable/),
      hint: 'fix the script file (see docs/adapters.md#mock)',
    });
  });

  it('asks the CLI --version once for both roles, and prefixes warnings with the agent', async () => {
    const log = join(dir, 'versions.log');
    const env = { PATH: process.env.PATH ?? '', BOUNCE_CLAUDE_BIN: FAKE_CLI, FAKE_CLI_LOG: log };
    const r = await preflight({ reviewer: specAgent('claude'), composer: specAgent('claude:other') }, env);
    // One --version and one `auth status` for both roles.
    expect(readFileSync(log, 'utf8').trim().split('\n').sort()).toEqual(['--version', 'auth status --json']);
    expect(r.composer.version).toBe('9.8.7');
    expect(r.reviewer.warnings).toEqual([
      {
        kind: 'login_unverified',
        message: 'claude: claude login cannot be verified offline',
        fix: 'run `claude` once and /login, or set ANTHROPIC_API_KEY (in CI: CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`)',
      },
    ]);
  });

  it('a missing key is a credentials usage error naming the fix', async () => {
    await expect(preflight({ reviewer: specAgent('anthropic'), composer: specAgent('mock') }, {})).rejects.toMatchObject({
      exitCode: 2,
      code: 'credentials',
      message: 'anthropic is not ready: ANTHROPIC_API_KEY is not set (this adapter always needs a key)',
      hint: 'set ANTHROPIC_API_KEY, or name the variable to read with api_key_env in an agents: entry of bounce.config.yaml',
    });
  });
});
