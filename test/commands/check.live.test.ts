/** `bounce check --live` in-process, with mock agents (transport only): one passes the gate, one echoes the fixture and fails it. */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

let dir: string;
let cache: string;
beforeEach(() => {
  dir = tempDir();
  cache = tempDir('bounce-gate-cache-');
  writeFileSync(join(dir, 'echo.yaml'), 'steps:\n  default: { action: echo }\n');
  writeFileSync(
    join(dir, 'bounce.config.yaml'),
    ['reviewer: mock', 'composer: echoer', 'agents:', '  echoer: { adapter: mock, script: echo.yaml }', ''].join('\n'),
  );
});
const env = () => cleanEnv({ XDG_CACHE_HOME: cache });

describe('bounce check --live', () => {
  it('sends each agent the fixture, reports pass or fail with time, tokens and cost, and exits 1 on a failure', async () => {
    const r = await runMain(['check', '--live', '--json'], { cwd: dir, env: env() });
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout);
    const byAgent = Object.fromEntries(out.agents.map((a: { agent: string; live: unknown }) => [a.agent, a.live]));
    expect(byAgent.mock).toMatchObject({ agent: 'mock', ok: true, reason: null, cached: null });
    expect(byAgent.mock.duration_ms).toBeGreaterThanOrEqual(0);
    expect(byAgent.echoer).toMatchObject({ ok: false });
    expect(byAgent.echoer.reason).toMatch(/no note was added/);
    expect(out.ok).toBe(false);
  });

  it("prints a LIVE column and the failure as a problem; passes go into the day's cache", async () => {
    const r = await runMain(['check', '--live'], { cwd: dir, env: env() });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/AGENT +ADAPTER .*LIVE +TIME +TOKENS +COST/);
    expect(r.stdout).toMatch(/^mock +mock .* pass /m);
    expect(r.stdout).toMatch(/^echoer +mock .* fail /m);
    expect(r.stdout).toMatch(/problem: echoer: the live gate failed: no note was added/);
    expect(r.stderr).toMatch(/gate: mock passed \(/);
    const files = readdirSync(join(cache, 'bounce')).filter((f) => /^gate-\d{4}-\d\d-\d\d\.json$/.test(f));
    expect(files).toHaveLength(1);
    const kept = Object.values(JSON.parse(readFileSync(join(cache, 'bounce', files[0]!), 'utf8'))) as { agent: string }[];
    expect(kept.map((k) => k.agent)).toEqual(['mock']);
  });

  it('without --live nothing is sent and nothing cached', async () => {
    const r = await runMain(['check', '--json'], { cwd: dir, env: env() });
    expect(JSON.parse(r.stdout).agents.every((a: { live?: unknown }) => a.live === undefined)).toBe(true);
    expect(existsSync(join(cache, 'bounce'))).toBe(false);
  });
});
