/**
 * `bounce grade --judge <agent>` end to end with the real Claude Code and Codex CLIs as the
 * grader, against the scripted model server (./e2e-support.ts): a claude/codex run is made,
 * then graded; each grading call is a side dispatch of its own, recorded and audited.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../support/cli.js';
import { CLAUDE_KEY, CODEX_KEY, server, dir, env, documentCalls, onlyRun, expectNoKeys } from './e2e-support.js';

const opts = () => ({ cwd: dir, env: env(), timeoutMs: 180_000 });
const manifest = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));

/** A claude/codex run (the server's default: the reviewer adds one note, the composer resolves it) and its findings' ids. */
async function refined(extra: string[] = []): Promise<{ runDir: string; ids: string[] }> {
  const r = await runCli(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--json', ...extra], opts());
  expect(r.code, r.stderr).toBe(0);
  const list = await runCli(['grade', 'latest', '--list', '--json'], opts());
  expect(list.code, list.stderr).toBe(0);
  const ids = JSON.parse(list.stdout).findings.map((f: { id: string }) => f.id);
  expect(ids).toHaveLength(1);
  return { runDir: onlyRun(), ids };
}

describe('bounce grade --judge with the real CLIs', () => {
  it('claude grades the findings of a claude/codex run: the verdict as agent:claude, the call recorded with its usage, audit passes', async () => {
    const { runDir, ids } = await refined();
    const [id] = ids as [string];
    const before = server.requests.length;
    server.script([{ reply: `${id}: accepted - the launch day needs a condition stated` }]);
    const r = await runCli(['grade', 'latest', '--judge', 'claude', '--json'], opts());
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      grader: 'agent:claude',
      given: { accepted: 1, rejected: 0 },
      graded: 1,
      reasons: { [id]: 'the launch day needs a condition stated' },
      error: null,
    });
    expect(out.usage.input_tokens).toBeGreaterThan(0);
    const calls = documentCalls(before);
    expect(calls.map((c) => c.api)).toEqual(['anthropic']);
    // The grader saw the pass's document and the finding by its id.
    expect(calls[0]!.prompt).toContain(id);
    expect(calls[0]!.turn?.document).toContain('[CONTESTED]');
    const m = manifest(runDir);
    expect(m.side_dispatches).toHaveLength(1);
    expect(m.side_dispatches[0]).toMatchObject({ role: 'grader', agent: 'claude', status: 'completed' });
    expect(m.side_dispatches[0].usage.input_tokens).toBeGreaterThan(0);
    expect(m.totals.dispatches).toBe(3);
    const graded = parseYaml(readFileSync(join(runDir, m.pass_records[0].dispatches[0].record), 'utf8'));
    expect(graded.outcome.grade).toEqual({
      grader: 'agent:claude',
      verdicts: [{ finding: id, verdict: 'accepted', reason: 'the launch day needs a condition stated' }],
      history: [],
    });
    const side = parseYaml(readFileSync(join(runDir, m.side_dispatches[0].record), 'utf8'));
    expect(side.request.target_agent).toBe('grader/claude');
    expect(side.response.metadata).toMatchObject({ usage_provider_reported: true });
    expect(side.response.metadata.input_tokens).toBeGreaterThan(0);
    const audit = await runCli(['audit', runDir], opts());
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    expectNoKeys(runDir, [CLAUDE_KEY, CODEX_KEY]);
  });

  it('codex grades a run codex judged: its malformed reply is repaired once; judge and grader records chain and audit passes', async () => {
    // Pass 1 and 2 edit; the judge prefers the final document in both orders.
    server.script(['edit', 'edit', { reply: 'PREFER: B' }, { reply: 'PREFER: A' }]);
    const { runDir, ids } = await refined(['--judge', 'codex']);
    const [id] = ids as [string];
    const before = server.requests.length;
    server.script([{ reply: `Grades:\n- ${id}: rejected` }, { reply: `${id}: rejected` }]);
    const r = await runCli(['grade', 'latest', '--judge', 'codex', '--json'], opts());
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ grader: 'agent:codex', given: { rejected: 1 }, error: null });
    const calls = documentCalls(before);
    expect(calls.map((c) => c.api)).toEqual(['responses', 'responses']);
    expect(calls[1]!.prompt).toMatch(/REPAIR: your previous reply was rejected[\s\S]*line 1 "Grades:" is not <finding id>: accepted\|rejected/);
    const m = manifest(runDir);
    expect(m.judge).toMatchObject({ prefers: 'final', agreed: true });
    expect(m.side_dispatches.map((d: { role: string; kind: string; status: string }) => `${d.role}:${d.kind}:${d.status}`)).toEqual([
      'judge:pass:completed',
      'judge:pass:completed',
      'grader:pass:rejected',
      'grader:repair:completed',
    ]);
    expect(m.totals.dispatches).toBe(6);
    const audit = await runCli(['audit', runDir], opts());
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    expectNoKeys(runDir, [CLAUDE_KEY, CODEX_KEY]);
  });

  it('claude still malformed after its repair: exit 3, the run ungraded and still audited', async () => {
    const { runDir, ids } = await refined();
    server.script([{ reply: 'They all look fine.' }, { reply: `${ids[0]}: maybe` }]);
    const r = await runCli(['grade', 'latest', '--judge', 'claude'], opts());
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^bounce: agent:claude gave no usable grades \(malformed\): .*still so after a repair/m);
    const m = manifest(runDir);
    expect(m.side_dispatches.map((d: { status: string }) => d.status)).toEqual(['rejected', 'rejected']);
    const graded = parseYaml(readFileSync(join(runDir, m.pass_records[0].dispatches[0].record), 'utf8'));
    expect(graded.outcome.grade).toBeNull();
    const audit = await runCli(['audit', runDir], opts());
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
  });
});
