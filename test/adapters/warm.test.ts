/**
 * WarmStarts: a run's agent CLIs started ahead of the dispatch the engine knows is coming.
 * The CLI is the fake one (test/fixtures/cli/fake-cli.mjs), which logs each start's argv.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callAgent } from '../../src/adapters/call-agent.js';
import { EARLY_START_LIMIT_MS } from '../../src/kit/cli-run.js';
import type { AdapterRequest } from '../../src/contract/contract.js';
import { createProbe } from '../../src/kit/detect.js';
import { WarmStarts } from '../../src/adapters/warm.js';
import { adapterRequest, ROOT } from '../support/adapter-process.js';
import { waitFor } from '../support/wait-for.js';
import { newMarker, processesWith } from './cli-live-support.js';
import { specAgent } from '../support/test-agent.js';

const FAKE_CLI = join(ROOT, 'test/fixtures/cli/fake-cli.mjs');
const dir = mkdtempSync(join(tmpdir(), 'bounce-warm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const request = (): AdapterRequest => adapterRequest('Revise this.', {}, 60_000) as AdapterRequest;

/** The fake CLI as claude and codex, each start logged, every process marked. */
function setup(): { env: NodeJS.ProcessEnv; log: string; marker: string; starts: () => string[] } {
  const log = join(dir, `starts-${++n}.log`);
  const marker = newMarker();
  const env = {
    PATH: process.env.PATH ?? '',
    BOUNCE_CLAUDE_BIN: FAKE_CLI,
    BOUNCE_CODEX_BIN: FAKE_CLI,
    FAKE_CLI_LOG: log,
    FAKE_CLI_REPLY: 'revised',
    [marker]: '1',
  };
  const starts = (): string[] => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []);
  return { env, log, marker, starts };
}

/** The temporary folder of a codex start, read from its `-C <folder>/work`. */
const folderOf = (argv: string): string => dirname(argv.split(' ')[argv.split(' ').indexOf('-C') + 1] ?? '');

/** A pool with codex started ahead (its process up, its start logged); the start's folder. */
async function codexAhead() {
  const { env, marker, starts } = setup();
  const pool = new WarmStarts(env, createProbe());
  pool.start(specAgent('codex'));
  await waitFor(() => starts().length === 1 && processesWith(marker).length > 0, 5000, 'the CLI to be started ahead');
  const folder = folderOf(starts()[0] ?? '');
  expect(existsSync(folder)).toBe(true);
  return { env, marker, starts, pool, folder };
}

describe('WarmStarts', () => {
  it('a dispatch takes the CLI started ahead for its agent: one start in all, and the answer', async () => {
    for (const spec of ['claude', 'codex']) {
      const { env, starts } = setup();
      const pool = new WarmStarts(env, createProbe());
      pool.start(specAgent(spec));
      await waitFor(() => starts().length === 1, 5000, 'the CLI to be started ahead');
      const r = await callAgent(specAgent(spec), request(), { timeoutMs: 30_000, maxOutputBytes: 1_000_000, env, warm: pool });
      expect(r).toMatchObject({ ok: true, response: { reply: 'revised' } });
      expect(starts()).toHaveLength(1);
      pool.close();
    }
  });

  it('kills a start no dispatch took within the limit, and removes its folder', async () => {
    const { env, marker, starts, pool, folder } = await codexAhead();
    await waitFor(() => processesWith(marker).length === 0 && !existsSync(folder), EARLY_START_LIMIT_MS + 5000, 'the unused start to be killed');
    // A dispatch after that starts its own CLI.
    const r = await callAgent(specAgent('codex'), request(), { timeoutMs: 30_000, maxOutputBytes: 1_000_000, env, warm: pool });
    expect(r).toMatchObject({ ok: true });
    expect(starts()).toHaveLength(2);
    pool.close();
  });

  it('close kills what no dispatch took; a closed pool starts nothing', async () => {
    const { marker, starts, pool, folder } = await codexAhead();
    pool.close();
    await waitFor(() => processesWith(marker).length === 0 && !existsSync(folder), 5000, 'the start to be killed at close');
    pool.start(specAgent('claude'));
    expect(await pool.take(specAgent('claude'))).toBeNull();
    expect(starts()).toHaveLength(1);
  });

  it('starts nothing for an agent whose adapter cannot hold its prompt back (mock, cmd:), nor for other options', async () => {
    const { env, starts } = setup();
    const pool = new WarmStarts(env, createProbe());
    pool.start(specAgent('mock'));
    pool.start(specAgent('cmd:test/fixtures/adapters/echo-resolve.mjs'));
    expect(await pool.take(specAgent('mock'))).toBeNull();
    expect(await pool.take(specAgent('cmd:test/fixtures/adapters/echo-resolve.mjs'))).toBeNull();
    pool.start(specAgent('claude'));
    expect(await pool.take(specAgent('claude:opus'))).toBeNull();
    pool.close();
    expect(starts().length).toBeLessThanOrEqual(1);
  });
});
