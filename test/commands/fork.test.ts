/** `bounce fork`: a run that takes over the first passes of another and goes on live, with another composer over real HTTP. */
import { existsSync, readdirSync, readFileSync, rmSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { runMain } from '../support/run-main.js';

const DOC = '# Rollout plan\n\nWe ship the feature to every user on Monday.\n\nRollback is manual.\n';

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
const runIds = (): string[] => readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.'));

/** A mock run of `passes` passes that converges on its last (--all-passes), and its id. */
async function original(passes = 4): Promise<string> {
  const r = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock', '--passes', String(passes), '--all-passes', '--json'], {
    cwd: dir,
    env: env(),
  });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).run_id;
}

async function fork(args: string[]): Promise<{ code: number; out: Record<string, unknown>; stderr: string }> {
  const r = await runMain(['fork', ...args, '--json'], { cwd: dir, env: env() });
  return { code: r.code, out: r.stdout ? JSON.parse(r.stdout) : {}, stderr: r.stderr };
}

describe('bounce fork', () => {
  it('takes passes 1..K-1 from the original without sending them again and runs pass K on with another composer over HTTP', async () => {
    const id = await original(4);
    const before = server.requests.length;
    const f = await fork([id, '--from-pass', '3', '--composer', 'openai:mock-model']);
    expect(f.code, f.stderr).toBe(0);
    const forkId = f.out.run_id as string;
    expect(forkId).not.toBe(id);
    const m = manifestOf(forkId);
    const o = manifestOf(id);
    expect(m.forked_from).toEqual({ run: id, pass: 3, dir: join(dir, 'runs', id) });
    // Passes 1 and 2 are the original's, linked; 3 (mock reviewer) and 4 (the openai composer) ran.
    expect(m.pass_records.map((p: { pass: number; agent: string; copied_from?: unknown }) => [p.pass, p.agent, Boolean(p.copied_from)])).toEqual([
      [1, 'mock', true],
      [2, 'mock', true],
      [3, 'mock', false],
      [4, 'openai:mock-model', false],
    ]);
    for (const i of [0, 1]) {
      expect(m.pass_records[i].dispatches).toEqual(o.pass_records[i].dispatches);
      expect(readFileSync(join(dir, 'runs', forkId, m.pass_records[i].document))).toEqual(readFileSync(join(dir, 'runs', id, o.pass_records[i].document)));
    }
    // Only pass 4 went to the server; the fork's own records are its two live dispatches.
    expect(server.requests.slice(before).filter((q) => q.scripted)).toHaveLength(1);
    expect(m.totals.dispatches).toBe(2);
    expect(m.agents.composer).toMatchObject({ adapter: 'openai', spec: 'openai:mock-model' });
    const audit = await runMain(['audit', forkId], { cwd: dir, env: env() });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
  });
});
