import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adapterRequest, runAdapterProgram } from '../../support/adapter-process.js';
import { cleanEnv, tempDir } from '../../support/cli.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import { runMain } from '../../support/run-main.js';

const KEY = { ANTHROPIC_API_KEY: 'sk-ant-test-cache' };
const STABLE = 'Protocol line.\nGoal line.\n';
const ROLE = 'Role: reviewer\nLens line.\n';
const REST = 'Pass 1 of 2\n<<<BOUNCE-DOCUMENT-c0ffee>>>\nDoc.\n<<<END-BOUNCE-DOCUMENT-c0ffee>>>\nReply.\n';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer({ cache: { read: 30, write: 12 } });
});
afterAll(async () => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

type Block = { type: string; text: string; cache_control?: { type: string } };
const contentOf = (i = 0): string | Block[] => (server.requests[i]!.body as { messages: { content: string | Block[] }[] }).messages[0]!.content;

describe('anthropic adapter: prompt caching (built program, real HTTP)', () => {
  it('cuts the prompt at stable_prefix_lines and marks each stable block with cache_control', async () => {
    const prompt = STABLE + ROLE + REST;
    const r = await runAdapterProgram('anthropic', adapterRequest(prompt, { base_url: server.url }, 10_000, { stable_prefix_lines: [2, 4] }), KEY);
    expect(r.json).toMatchObject({ ok: true, usage: { cache_read_tokens: 30 } });
    expect(contentOf()).toEqual([
      { type: 'text', text: STABLE, cache_control: { type: 'ephemeral' } },
      { type: 'text', text: ROLE, cache_control: { type: 'ephemeral' } },
      { type: 'text', text: REST },
    ]);
  });

  it('sends the prompt as one string when no stable prefix is named, or when it would be the whole prompt', async () => {
    const prompt = STABLE + REST;
    await runAdapterProgram('anthropic', adapterRequest(prompt, { base_url: server.url }), KEY);
    expect(contentOf(0)).toBe(prompt);
    await runAdapterProgram('anthropic', adapterRequest('One line.\n', { base_url: server.url }, 10_000, { stable_prefix_lines: [1] }), KEY);
    expect(contentOf(1)).toBe('One line.\n');
  });

  it('a refine with context marks the same prefix on every pass and records the cache tokens per dispatch', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'doc.md'), '# Plan\n\nShip on Monday.\n');
    writeFileSync(join(dir, 'spec.md'), `# Spec\n\n${'The release train leaves on Mondays. '.repeat(40)}\n`);
    const env = cleanEnv({ ...KEY, ANTHROPIC_BASE_URL: server.url });
    const r = await runMain(
      ['refine', 'doc.md', '-r', 'anthropic', '-c', 'anthropic', '-p', '4', '--all-passes', '--context', 'spec.md', '--goal', 'Agree with the spec.', '--json'],
      {
        cwd: dir,
        env,
      },
    );
    expect(r.code).toBe(0);
    const bodies = server.requests.filter((q) => q.api === 'anthropic').map((_, i) => contentOf(i) as Block[]);
    expect(bodies).toHaveLength(4);
    for (const blocks of bodies) {
      expect(blocks.map((b) => Boolean(b.cache_control))).toEqual([true, true, false]);
      expect(blocks[0]!.text).toContain('The release train leaves on Mondays.');
      expect(blocks[0]!.text).toContain('Agree with the spec.');
      expect(blocks[2]!.text).toContain('<<<BOUNCE-DOCUMENT-');
    }
    // The first block is the same for both roles, the first two for each role's passes.
    expect(new Set(bodies.map((b) => b[0]!.text)).size).toBe(1);
    expect(bodies[2]![1]!.text).toBe(bodies[0]![1]!.text);
    expect(bodies[3]![1]!.text).toBe(bodies[1]![1]!.text);
    expect(bodies[1]![1]!.text).not.toBe(bodies[0]![1]!.text);
    const runDir = JSON.parse(r.stdout).run_dir as string;
    const m = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    for (const p of m.pass_records) expect(p.dispatches[0].usage).toMatchObject({ cache_read_tokens: 30, cache_write_tokens: 12 });
    expect(m.totals).toMatchObject({ cache_read_tokens: 120, cache_write_tokens: 48 });
  });
});
