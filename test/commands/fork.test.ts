/** `bounce fork`: a run that takes over the first passes of another and goes on live, with another composer over real HTTP. */
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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

  it('refuses a pass the original has not completed, before anything is written (exit 2)', async () => {
    const id = await original(2);
    const f = await runMain(['fork', id, '--from-pass', '4'], { cwd: dir, env: env() });
    expect(f.code).toBe(2);
    expect(f.stderr).toContain(`--from-pass "4" is not a pass run ${id} can be forked from: passes 1 to 2 completed: pass --from-pass 1 to 3`);
    const p = await runMain(['fork', id, '--from-pass', '2', '--passes', '1'], { cwd: dir, env: env() });
    expect(p.code).toBe(2);
    expect(p.stderr).toContain('--passes 1 ends before pass 2, where the fork begins');
    expect(runIds()).toEqual([id]);
  });

  it('goes on from a converged original at the pass after its last, and a fork of a fork audits back to the first run', async () => {
    const id = await original(2);
    const f = await fork([id, '--from-pass', '3', '--passes', '4']);
    expect(f.code, f.stderr).toBe(0);
    const m = manifestOf(f.out.run_id as string);
    expect(m.pass_records.map((p: { pass: number }) => p.pass)).toEqual([1, 2, 3, 4]);
    const g = await fork([f.out.run_id as string, '--from-pass', '4', '--reviewer', 'openai:mock-model']);
    expect(g.code, g.stderr).toBe(0);
    const n = manifestOf(g.out.run_id as string);
    // Passes 1 and 2 still link to the first run's records; pass 3 to the first fork's.
    expect(n.pass_records.slice(0, 3).map((p: { copied_from: { run: string } }) => p.copied_from.run)).toEqual([id, id, f.out.run_id]);
    expect(n.forked_from).toMatchObject({ run: f.out.run_id, pass: 4 });
    const audit = await runMain(['audit', g.out.run_id as string], { cwd: dir, env: env() });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
  });

  it('audit fails when the original was changed since, or is gone, and passes again when the runs folder moved as a whole', async () => {
    const id = await original(4);
    const f = await fork([id, '--from-pass', '3']);
    expect(f.code, f.stderr).toBe(0);
    const forkId = f.out.run_id as string;
    const o = manifestOf(id);
    const record = join(dir, 'runs', id, o.pass_records[1].dispatches[0].record);
    const kept = readFileSync(record);
    writeFileSync(record, `${kept.toString('utf8')}# edited\n`);
    const changed = await runMain(['audit', forkId, '--json'], { cwd: dir, env: env() });
    expect(changed.code).toBe(1);
    expect(JSON.parse(changed.stdout).problems.map((p: { message: string }) => p.message)).toContain(
      `the record of copied dispatch ${o.pass_records[1].dispatches[0].id} (pass 2) is not the one the fork linked: run ${id} was changed since`,
    );
    writeFileSync(record, kept);
    // Gone: neither beside the fork nor where it was.
    renameSync(join(dir, 'runs', id), join(dir, 'elsewhere'));
    const gone = await runMain(['audit', forkId], { cwd: dir, env: env() });
    expect(gone.code).toBe(1);
    expect(gone.stdout).toContain(`problem: run ${id}, which this fork's passes up to 2 were copied from, is not found`);
    // A runs folder moved whole keeps the fork whole: the original is found beside it.
    renameSync(join(dir, 'elsewhere'), join(dir, 'runs', id));
    renameSync(join(dir, 'runs'), join(dir, 'moved'));
    const moved = await runMain(['audit', forkId, '--runs-dir', 'moved'], { cwd: dir, env: env() });
    expect(moved.code, moved.stdout + moved.stderr).toBe(0);
  });

  it("audit finds a hand edit of the fork's links in its run.json", async () => {
    const id = await original(4);
    const f = await fork([id, '--from-pass', '3']);
    const path = join(dir, 'runs', f.out.run_id as string, 'run.json');
    const m = JSON.parse(readFileSync(path, 'utf8'));
    m.forked_from.pass = 2;
    writeFileSync(path, JSON.stringify(m, null, 2));
    const audit = await runMain(['audit', f.out.run_id as string], { cwd: dir, env: env() });
    expect(audit.code).toBe(1);
    expect(audit.stdout).toContain("run.json's forked_from and copied passes are not what audit/binding.yaml binds");
  });

  it('show and the report name the fork point and the copied passes', async () => {
    const id = await original(4);
    const f = await fork([id, '--from-pass', '3']);
    const forkId = f.out.run_id as string;
    const show = await runMain(['show', forkId], { cwd: dir, env: env() });
    expect(show.code).toBe(0);
    expect(show.stdout.split('\n')[1]).toBe(`fork      forked from ${id} at pass 3 (passes 1 to 2 copied, run live from pass 3 on); totals are the fork's own`);
    expect(show.stdout).toContain(`pass 2  composer mock  completed  (copied from ${id})`);
    const report = await runMain(['report', forkId], { cwd: dir, env: env() });
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(join(dir, 'runs', forkId, 'report.html'), 'utf8');
    expect(html).toContain(`<span id="fork-point">forked from ${id} at pass 3 (passes 1 to 2 copied, run live from pass 3 on)</span>`);
    expect(html).toContain(`(copied from ${id})`);
  });
});

describe('bounce diff <runA> <runB>', () => {
  it('compares two runs: passes, cost, the notes whose fate differs and the final texts, as text and as --json', async () => {
    const id = await original(2);
    // The fork's composer answers the note (the mock one dismisses it): the two runs differ in its fate and their final texts.
    const sent = readFileSync(join(dir, 'runs', id, manifestOf(id).pass_records[0].document), 'utf8');
    // The mock reviewer of pass 1 raised a [CONTESTED] note; the fork's composer acts on it (it rewrites the paragraph above).
    const answered = sent.replace(/^([^\n]+)\n\[CONTESTED\].*\n/m, '$1 Only the web app is in scope.\n');
    expect(answered).not.toBe(sent);
    server.script([{ reply: answered }]);
    const f = await fork([id, '--from-pass', '2', '--composer', 'openai:mock-model']);
    expect(f.code, f.stderr).toBe(0);
    const forkId = f.out.run_id as string;
    const r = await runMain(['diff', id, forkId, '--json'], { cwd: dir, env: env() });
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c.a).toMatchObject({
      run_id: id,
      status: 'converged',
      passes: { run: 2, requested: 2 },
      agents: { composer: 'mock' },
      dispatches: 2,
      forked_from: null,
    });
    expect(c.b).toMatchObject({ run_id: forkId, agents: { composer: 'openai:mock-model' }, dispatches: 1, forked_from: { run: id, pass: 2 } });
    expect(c.same_input).toBe(true);
    expect(c.final.a).toBe(readFileSync(join(dir, 'runs', id, 'final.md'), 'utf8'));
    expect(c.final.b).toBe(readFileSync(join(dir, 'runs', forkId, 'final.md'), 'utf8'));
    expect(c.final.same).toBe(false);
    const note = '[CONTESTED] The opening is vague about scope. State what is in scope and what is not.';
    expect(c.notes).toEqual({ differing: [{ kind: 'CONTESTED', text: note, a: 'dismissed', b: 'acted' }], same: 0 });
    expect([c.a.notes, c.b.notes]).toEqual([
      { raised: 1, acted: 0, dismissed: 1, left: 0 },
      { raised: 1, acted: 1, dismissed: 0, left: 0 },
    ]);
    const text = await runMain(['diff', id, forkId], { cwd: dir, env: env() });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`# runs: ${id} vs ${forkId}`);
    expect(text.stdout).toMatch(/composer\s+mock\s+openai:mock-model/);
    expect(text.stdout).toContain(`# notes whose fate differs: ${c.notes.differing.length} (${c.notes.same} the same in both)`);
    expect(text.stdout).toContain(`  dismissed -> acted  ${note}`);
    expect(text.stdout).toContain(`# final: ${id}/final.md -> ${forkId}/final.md`);
    expect(text.stdout).toMatch(/^\+.* Only the web app is in scope\.$/m);
  });

  it('keeps the one-run diff: a second argument that is a pass number is a pass, and --json wants a second run', async () => {
    const id = await original(2);
    const pass = await runMain(['diff', id, '2'], { cwd: dir, env: env() });
    expect(pass.code).toBe(0);
    expect(pass.stdout).toMatch(/^# pass 2 composer mock/);
    const json = await runMain(['diff', id, '--json'], { cwd: dir, env: env() });
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('--json compares two runs: it takes a second run');
  });
});
