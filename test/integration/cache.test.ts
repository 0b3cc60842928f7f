/**
 * The response cache across processes, as a user and a CI job meet it: the built CLI run
 * twice against the same input with the same cache folder makes no agent call the second time.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRecordFiles, readRecord } from '../../src/store/dispatch-record.js';
import { readManifest } from '../../src/store/manifest.js';
import { cleanEnv, runCli, tempDir } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

const DOC = `# Cache policy

Entries expire after ten minutes unless the origin sends a shorter max-age.

The cache key is the full URL including the query string.
`;

/** The run's dispatch records, in the order run.json lists them. */
function records(runDir: string) {
  return listRecordFiles(runDir).map((f) => ({ text: readFileSync(join(runDir, f), 'utf8'), record: readRecord(join(runDir, f)) }));
}

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

describe('the response cache across processes', () => {
  it('a second refine of the same document is answered from the cache: hits recorded, cost 0, audit passes', async () => {
    const cwd = tempDir('bounce-cache-');
    writeFileSync(join(cwd, 'doc.md'), DOC);
    const args = ['refine', 'doc.md', '--reviewer', 'mock', '--composer', 'mock', '--json', '--cache', 'responses'];
    const first = await runCli(args, { cwd });
    expect(first.code, first.stderr).toBe(0);
    const one = JSON.parse(first.stdout) as { run_id: string; run_dir: string; cache_hits: number };
    expect(one.cache_hits).toBe(0);
    const second = await runCli(args, { cwd });
    expect(second.code, second.stderr).toBe(0);
    const two = JSON.parse(second.stdout) as { run_dir: string; cache_hits: number; cost_usd: number; cost_source: string };
    expect(two).toMatchObject({ cache_hits: 2, cost_usd: 0, cost_source: 'cache' });
    expect(readFileSync(join(two.run_dir, 'final.md'), 'utf8')).toBe(readFileSync(join(one.run_dir, 'final.md'), 'utf8'));
    const firstIds = readManifest(one.run_dir).pass_records.flatMap((p) => p.dispatches.map((d) => d.id));
    const hits = records(two.run_dir);
    expect(hits).toHaveLength(2);
    for (const [i, { text, record }] of hits.entries()) {
      expect(text).toMatch(/cache:\n\s+hit: true\n/);
      expect(record.response?.cache).toEqual({ hit: true, of: firstIds[i], run: one.run_id });
      expect(record.response?.metadata).toMatchObject({ cost_usd: 0, cost_source: 'cache' });
    }
    const audit = await runCli(['audit', two.run_dir], { cwd });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    const stats = await runCli(['cache', 'stats', '--cache', 'responses', '--json'], { cwd });
    expect(JSON.parse(stats.stdout)).toMatchObject({ folder: join(cwd, 'responses'), entries: 2 });
    rmSync(cwd, { recursive: true, force: true });
  });

  it('a CI job that refines an unchanged docs folder twice makes zero model calls the second time', async () => {
    const cwd = tempDir('bounce-cache-ci-');
    mkdirSync(join(cwd, 'docs'));
    for (const name of ['a', 'b', 'c']) writeFileSync(join(cwd, 'docs', `${name}.md`), DOC.replace('Cache policy', `Cache policy ${name}`));
    // As a repository would set it: config `cache` names the folder CI keeps between jobs.
    writeFileSync(join(cwd, 'bounce.config.yaml'), 'cache: .bounce-cache\n');
    const env = cleanEnv({ OPENAI_BASE_URL: `${server.url}/v1` });
    const args = ['refine', 'docs/', '--reviewer', 'openai:mock-model', '--composer', 'openai:mock-model', '--json'];
    const calls = (): number => server.requests.filter((r) => r.scripted).length;
    const before = calls();
    const first = await runCli(args, { cwd, env });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).totals).toMatchObject({ documents: 3, converged: 3, cache_hits: 0 });
    const made = calls() - before;
    expect(made).toBeGreaterThanOrEqual(3);
    const second = await runCli(args, { cwd, env });
    expect(second.code, second.stderr).toBe(0);
    const totals = JSON.parse(second.stdout).totals;
    expect(totals).toMatchObject({ documents: 3, converged: 3, cost_usd: 0 });
    expect(totals.cache_hits).toBe(totals.dispatches);
    expect(calls() - before).toBe(made);
    expect(second.stderr).toMatch(/from the response cache/);
    // --no-cache: the same job calls the model again.
    const live = await runCli([...args, '--no-cache'], { cwd, env });
    expect(live.code, live.stderr).toBe(0);
    expect(calls() - before).toBe(2 * made);
    rmSync(cwd, { recursive: true, force: true });
  });
});
