/**
 * `bounce bench` with a real HTTP adapter (openai) against the scripted model server on
 * 127.0.0.1: a concrete provider and model, an output-token limit (configured) and usage
 * the server reports make the row live, so it is ranked, while the mock row beside it is not.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { runMain } from '../support/run-main.js';

const CORPUS = fileURLToPath(new URL('../../examples/corpus', import.meta.url));
let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer({ default: 'edit' });
});
afterAll(() => server.close());

describe('bounce bench with a live HTTP agent', () => {
  it('ranks the live pair in the leaderboard and keeps the mock pair out of it', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'corpus'));
    for (const name of ['cache-design', 'deploy-runbook'])
      for (const ext of ['.md', '.defects.yaml']) copyFileSync(join(CORPUS, `${name}${ext}`), join(dir, 'corpus', `${name}${ext}`));
    // A live row needs an output-token limit: the configured agent names one.
    writeFileSync(join(dir, 'bounce.config.yaml'), 'agents:\n  local:\n    adapter: openai\n    model: mock-model\n    max_output_tokens: 4096\n');
    const env = cleanEnv({ OPENAI_BASE_URL: `${server.url}/v1` });
    const live = 'local/local';
    const r = await runMain(['bench', '--corpus', 'corpus', '--pairs', `${live},openai:mock-model/openai:mock-model,mock/mock`, '--json'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.leaderboard).toEqual([live]);
    expect(out.pairs.map((p: { pair: string; evidence: string }) => [p.pair, p.evidence])).toEqual([
      [live, 'live'],
      // The same model with no output-token limit: real, but not live evidence.
      ['openai:mock-model/openai:mock-model', 'unverified'],
      ['mock/mock', 'mock'],
    ]);
    expect(out.pairs[1].reason).toBe('openai:mock-model: no positive output-token limit');
    expect(out.pairs[0]).toMatchObject({ status: 'run', converged: 2, defects: 7 });
    const table = await runMain(['bench', '--corpus', 'corpus', '--score-runs', ...out.pairs.map((p: { batch_id: string }) => p.batch_id)], { cwd: dir, env });
    const [ranked, others] = table.stdout.split('not live, never ranked');
    expect(ranked).toMatch(/^1\s+local\/local\s+live\s/m);
    expect(ranked).not.toContain('openai:mock-model');
    expect(others).toMatch(/^-\s+mock\/mock\s+mock\s/m);
  });
});
