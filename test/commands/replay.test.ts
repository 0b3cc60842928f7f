/**
 * `bounce replay`: recorded runs (made over real HTTP against the scripted model server) run
 * again from their records with no request made, coming out byte for byte as recorded; a
 * changed prompt is caught as a drift.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { runMain } from '../support/run-main.js';
import { packageRoot } from '../../src/package.js';
import { yamlLib } from '../../src/yaml.js';
import type { DispatchRecord } from '../../src/store/record-schema.js';
import type { ReplayReport } from '../../src/commands/replay.js';

type Replayed = ReplayReport & { replay_id: string };
interface ReplayJson {
  exit_code: number;
  runs: [Replayed, ...Replayed[]];
  totals: Record<string, number>;
}

const DOC = '# Rollout plan\n\nWe ship the feature to every user on Monday.\n\nRollback is manual.\n\n## Risks\n\nNone are known.\n';

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

const live = (): NodeJS.ProcessEnv => cleanEnv({ OPENAI_BASE_URL: `${server.url}/v1` });
/** The replay's world: no base URL, so any request an agent made would go nowhere it could be answered. */
const offline = (): NodeJS.ProcessEnv => cleanEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
const runDir = (id: string): string => join(dir, 'runs', id);
const manifestOf = (id: string) => JSON.parse(readFileSync(join(runDir(id), 'run.json'), 'utf8'));
const recordsOf = (id: string): DispatchRecord[] =>
  manifestOf(id).pass_records.flatMap((p: { dispatches: { record: string }[] }) =>
    p.dispatches.map((d) => yamlLib().parse(readFileSync(join(runDir(id), d.record), 'utf8')) as DispatchRecord),
  );

/** A recorded run over HTTP: a transient error and a resend on pass 1, a repaired final pass. */
async function recorded(extra: string[] = []): Promise<string> {
  server.script([{ status: 503, message: 'overloaded' }, 'edit', 'leave-note', 'edit']);
  const r = await runMain(['refine', 'plan.md', '--reviewer', 'openai:mock-model', '--composer', 'openai:mock-model', '--passes', '2', '--json', ...extra], {
    cwd: dir,
    env: live(),
  });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).run_id;
}

async function replay(args: string[]): Promise<{ code: number; out: ReplayJson; stderr: string }> {
  const r = await runMain(['replay', ...args, '--json'], { cwd: dir, env: offline() });
  return { code: r.code, out: JSON.parse(r.stdout || 'null'), stderr: r.stderr };
}

describe('bounce replay', () => {
  it('runs a recorded run again from its records alone: same documents, notes, ledger and final text, no request, cost 0', async () => {
    const id = await recorded();
    const o = manifestOf(id);
    expect(o.pass_records.flatMap((p: { dispatches: { kind: string }[] }) => p.dispatches.map((d) => d.kind))).toEqual(['pass', 'retry', 'pass', 'repair']);
    const before = server.requests.length;
    const r = await replay([id]);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.length).toBe(before);
    const [one] = r.out.runs;
    expect(one).toMatchObject({ run: id, outcome: 'reproduced', status: 'converged', dispatches: 4, differences: [], drift: [] });
    const m = manifestOf(one.replay_id);
    expect(m.replay_of).toBe(id);
    expect(m.totals).toMatchObject({ cost_usd: 0, cost_source: 'replay', input_tokens: 0, output_tokens: 0 });
    for (const [i, p] of m.pass_records.entries()) {
      const q = o.pass_records[i];
      expect(readFileSync(join(runDir(one.replay_id), p.document), 'utf8')).toBe(readFileSync(join(runDir(id), q.document), 'utf8'));
      for (const k of ['notes_before', 'notes_after', 'added', 'resolved', 'acted', 'dismissed', 'repairs', 'retries'])
        expect([p.pass, k, p[k]]).toEqual([q.pass, k, q[k]]);
    }
    expect(readFileSync(join(runDir(one.replay_id), 'final.md'), 'utf8')).toBe(readFileSync(join(runDir(id), 'final.md'), 'utf8'));
    // Each record names the recorded dispatch it was answered from, in order, at no cost.
    const records = recordsOf(one.replay_id);
    expect(records.map((x) => x.response?.replay)).toEqual(recordsOf(id).map((x) => ({ of: x.request.id, run: id })));
    expect(records.map((x) => x.response?.metadata.cost_source)).toEqual(['replay', 'replay', 'replay', 'replay']);
    expect(records.map((x) => x.outcome.status)).toEqual(recordsOf(id).map((x) => x.outcome.status));
    const audit = await runMain(['audit', one.replay_id], { cwd: dir, env: offline() });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    const show = await runMain(['show', one.replay_id], { cwd: dir, env: offline() });
    expect(show.stdout).toContain(`replay    a replay of ${id}: every reply came from its records`);
    const report = await runMain(['report', one.replay_id], { cwd: dir, env: offline() });
    expect(report.code, report.stderr).toBe(0);
    expect(readFileSync(join(runDir(one.replay_id), 'report.html'), 'utf8')).toContain(`<span id="replay-of">a replay of ${id}`);
  });

  it('replays an edit-block run, whose replies are matched to fresh nonces', async () => {
    server.script(['edit-blocks', 'edit-blocks']);
    const r = await runMain(['refine', 'plan.md', '--reviewer', 'openai:mock-model', '--composer', 'openai:mock-model', '--edit-format', 'edits', '--json'], {
      cwd: dir,
      env: live(),
    });
    expect(r.code, r.stderr).toBe(0);
    const id = JSON.parse(r.stdout).run_id;
    const p = await replay([id]);
    expect(p.code, p.stderr).toBe(0);
    expect(p.out.runs[0].outcome).toBe('reproduced');
  });

  it('replays a run extended by resume --passes as it was made: its first passes under their own budget, then the extension', async () => {
    server.script(['edit', 'edit', 'leave-note', 'edit']);
    const first = await runMain(
      ['refine', 'plan.md', '--reviewer', 'openai:mock-model', '--composer', 'openai:mock-model', '--passes', '2', '--all-passes', '--json'],
      {
        cwd: dir,
        env: live(),
      },
    );
    expect(first.code, first.stderr).toBe(0);
    const id = JSON.parse(first.stdout).run_id;
    const extended = await runMain(['resume', id, '--passes', '4', '--json'], { cwd: dir, env: live() });
    expect(extended.code, extended.stderr).toBe(0);
    expect(manifestOf(id).extensions).toHaveLength(1);
    const r = await replay([id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.out.runs[0]).toMatchObject({ outcome: 'reproduced', dispatches: 4, differences: [], drift: [] });
    const m = manifestOf(r.out.runs[0].replay_id);
    expect(m.extensions.map((e: { passes: unknown }) => e.passes)).toEqual([{ from: 2, to: 4 }]);
    expect((await runMain(['audit', m.run_id], { cwd: dir, env: offline() })).code).toBe(0);
  });

  it('stops at a prompt that changed, with the pass, the attempt and a diff (exit 1); --accept-drift uses the recorded reply and marks it', async () => {
    const id = await recorded();
    const prompts = join(dir, 'prompts');
    cpSync(join(packageRoot(), 'prompts'), prompts, { recursive: true });
    const composer = join(prompts, 'composer.md');
    writeFileSync(composer, `${readFileSync(composer, 'utf8')}\nPrefer short sentences.\n`);
    const before = server.requests.length;
    const text = await runMain(['replay', id, '--prompts', prompts], { cwd: dir, env: offline() });
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(`the prompt of pass 2 (attempt: pass 0) differs from the one recorded in run ${id}`);
    expect(text.stderr).toMatch(/^\+Prefer short sentences\.$/m);
    const stopped = await replay([id, '--prompts', prompts]);
    expect(stopped.code).toBe(1);
    expect(stopped.out.runs[0]).toMatchObject({ outcome: 'drift', drift: [{ pass: 2, kind: 'pass', index: 0, accepted: false }] });
    // Pass 1's prompt did not change: it was answered; pass 2 stopped, and nothing was sent anywhere.
    expect(manifestOf(stopped.out.runs[0].replay_id).pass_records.map((p: { status: string }) => p.status)).toEqual(['completed', 'failed']);
    const accepted = await replay([id, '--prompts', prompts, '--accept-drift']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.out.runs[0].outcome).toBe('reproduced');
    expect(accepted.out.totals.accepted_drift).toBe(1);
    const drift = recordsOf(accepted.out.runs[0].replay_id).map((x) => x.response?.replay?.drift ?? false);
    // The repair prompt is its own template: only the composer's first prompt changed.
    expect(drift).toEqual([false, false, true, false]);
    expect(server.requests.length).toBe(before);
  });

  it('replays several runs, or a batch, as one with --json totals', async () => {
    const a = await recorded();
    const b = await recorded(['--name', 'second']);
    const r = await replay([a, b]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.out.totals).toMatchObject({ runs: 2, reproduced: 2, drift: 0, not_replayable: 0, dispatches: 8, cost_usd: 0 });
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'a.md'), DOC);
    writeFileSync(join(dir, 'docs', 'b.md'), DOC.replace('Monday', 'Friday'));
    const batch = await runMain(['refine', 'docs', '--reviewer', 'mock', '--composer', 'mock', '--json'], { cwd: dir, env: live() });
    expect(batch.code, batch.stderr).toBe(0);
    const batchId = JSON.parse(batch.stdout).batch_id;
    const rb = await replay(['--batch', batchId]);
    expect(rb.code, rb.stderr).toBe(0);
    expect(rb.out.totals).toMatchObject({ runs: 2, reproduced: 2 });
  });

  it('says why a run cannot be replayed (exit 2), and goes on with the others', async () => {
    const good = await recorded();
    const bad = await recorded(['--name', 'bad']);
    const reply = readdirSync(runDir(bad)).find((n) => n.endsWith('.reply.txt')) as string;
    rmSync(join(runDir(bad), reply));
    const r = await replay([bad, good]);
    expect(r.code).toBe(2);
    expect(r.out.runs.map((x: { outcome: string }) => x.outcome)).toEqual(['not-replayable', 'reproduced']);
    expect(r.out.runs[0].error).toMatch(new RegExp(`^run ${bad} cannot be replayed: the reply of dispatch \\w+ \\(pass 1\\) is missing: ${reply}: `));
    // A reply edited after the run is refused too: the replay answers only what was recorded.
    const edited = await recorded(['--name', 'edited']);
    const file = join(runDir(edited), readdirSync(runDir(edited)).find((n) => n.endsWith('.reply.txt')) as string);
    writeFileSync(file, `${readFileSync(file, 'utf8')}injected\n`);
    const e = await replay([edited]);
    expect(e.code).toBe(2);
    expect(e.out.runs[0].error).toContain('is not what its record says: it was changed after bounce wrote it');
    const m = manifestOf(good);
    writeFileSync(join(runDir(good), 'run.json'), JSON.stringify({ ...m, status: 'running' }));
    const running = await runMain(['replay', good], { cwd: dir, env: offline() });
    expect(running.code).toBe(2);
    expect(running.stderr).toContain(`run ${good} cannot be replayed: it is still running (or crashed)`);
  });
});
