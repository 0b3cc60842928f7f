/** `refine --alternate` in-process against the scripted model server over HTTP: who plays which pass, recorded, kept by resume. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { yamlLib } from '../../src/yaml.js';
import { cleanEnv, tempDir } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { runMain } from '../support/run-main.js';

const DOC = '# Rollout plan\n\nWe ship the feature to every user on Monday.\n\nRollback is manual.\n';
const AGENTS = ['--reviewer', 'openai:model-a', '--composer', 'openai:model-b'];

let server: ModelServer;
let dir: string;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'plan.md'), DOC);
});

const env = (): NodeJS.ProcessEnv => cleanEnv({ OPENAI_BASE_URL: `${server.url}/v1` });
const manifestOf = (id: string) => JSON.parse(readFileSync(join(dir, 'runs', id, 'run.json'), 'utf8'));
type Played = { pass: number; role: string; agent: string; dispatches: { record: string }[] };
const played = (id: string): string[] => manifestOf(id).pass_records.map((p: Played) => `${p.pass} ${p.role} ${p.agent}`);

describe('refine --alternate', () => {
  it("swaps the agents every two passes: each reviews the other's work, and the records and requests say who", async () => {
    const before = server.requests.length;
    const r = await runMain(['refine', 'plan.md', ...AGENTS, '--passes', '6', '--all-passes', '--alternate', '--json'], { cwd: dir, env: env() });
    expect(r.code, r.stderr).toBe(0);
    const id = JSON.parse(r.stdout).run_id;
    expect(played(id)).toEqual([
      '1 reviewer openai:model-a',
      '2 composer openai:model-b',
      '3 reviewer openai:model-b',
      '4 composer openai:model-a',
      '5 reviewer openai:model-a',
      '6 composer openai:model-b',
    ]);
    // What went over the wire: the model of each request, in pass order.
    const models = server.requests.slice(before).map((q) => (q.body as { model?: string }).model);
    expect(models).toEqual(['model-a', 'model-b', 'model-b', 'model-a', 'model-a', 'model-b']);
    const m = manifestOf(id);
    expect(m.policy.alternate).toBe(true);
    const third = m.pass_records[2] as Played;
    const record = yamlLib().parse(readFileSync(join(dir, 'runs', id, third.dispatches[0]!.record), 'utf8'));
    expect(record.request.target_agent).toBe('reviewer/openai:model-b');
    expect(record.response.agent).toBe('reviewer/openai:model-b');
    expect((await runMain(['audit', id], { cwd: dir, env: env() })).code).toBe(0);
    expect((await runMain(['show', id], { cwd: dir, env: env() })).stdout).toContain(
      "alternate the agents swap roles every two passes (each reviews the other's work)\n",
    );
  });

  it('is kept by resume --passes, and without it the agents keep their roles', async () => {
    const r = await runMain(['refine', 'plan.md', ...AGENTS, '--passes', '2', '--all-passes', '--alternate', '--json'], { cwd: dir, env: env() });
    const id = JSON.parse(r.stdout).run_id;
    expect((await runMain(['resume', id, '--passes', '4'], { cwd: dir, env: env() })).code).toBe(0);
    expect(played(id).slice(2)).toEqual(['3 reviewer openai:model-b', '4 composer openai:model-a']);
    const plain = await runMain(['refine', 'plan.md', ...AGENTS, '--passes', '4', '--all-passes', '--json', '--runs-dir', 'runs'], { cwd: dir, env: env() });
    const other = JSON.parse(plain.stdout).run_id;
    expect(played(other)).toEqual(['1 reviewer openai:model-a', '2 composer openai:model-b', '3 reviewer openai:model-a', '4 composer openai:model-b']);
  });
});
