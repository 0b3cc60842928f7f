/** The judge and the live gate end to end with the real Claude Code and Codex CLIs, against the scripted model server (./e2e-support.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, ROOT, tempDir } from '../support/cli.js';
import { CLAUDE_KEY, CODEX_KEY, server, dir, env, documentCalls, onlyRun, expectNoKeys } from './e2e-support.js';

describe('refine --judge with the real CLIs', () => {
  it('codex judges a claude/codex run blind, twice with the order swapped; both prefer the final document', async () => {
    const before = server.requests.length;
    // Pass 1 and 2 edit; then the judge: original first (final is B), then final first (final is A).
    server.script(['edit', 'edit', { reply: 'PREFER: B\nB states the launch day.' }, { reply: 'PREFER: A' }]);
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--judge', 'codex', '--require-judge', '--json'], {
      cwd: dir,
      env: env(),
      timeoutMs: 180_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.judge).toMatchObject({ agent: 'codex', prefers: 'final', agreed: true, error: null });
    // The scripted server answers codex as mock-model: the judge's family is the composer's, by the model's name.
    expect(out.judge.warning).toMatch(/the judge codex is of the mock model family, as the composer codex is/);
    const calls = documentCalls(before);
    expect(calls.map((c) => c.api)).toEqual(['anthropic', 'responses', 'responses', 'responses']);
    expect(calls[2]!.prompt).toContain('PREFER: TIE');
    const runDir = onlyRun();
    const m = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(m.side_dispatches).toHaveLength(2);
    expect(m.side_dispatches.every((d: { usage: { input_tokens: number } }) => d.usage.input_tokens > 0)).toBe(true);
    expect(m.totals.dispatches).toBe(4);
    const audit = await runCli(['audit', runDir], { cwd: dir, env: env() });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    expectNoKeys(runDir, [CLAUDE_KEY, CODEX_KEY]);
  });

  it('claude as the judge: a malformed reply is repaired once; disagreeing orders are a tie and --require-judge exits 1', async () => {
    server.script(['edit', 'edit', { reply: 'B, clearly.' }, { reply: 'PREFER: B' }, { reply: 'PREFER: B' }]);
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--judge', 'claude', '--require-judge', '--json'], {
      cwd: dir,
      env: env(),
      timeoutMs: 180_000,
    });
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'converged', exit_code: 1, error: { type: 'judge' } });
    expect(out.judge).toMatchObject({ prefers: 'tie', agreed: false });
    const m = JSON.parse(readFileSync(join(onlyRun(), 'run.json'), 'utf8'));
    expect(m.side_dispatches.map((d: { kind: string; status: string }) => `${d.kind}:${d.status}`)).toEqual([
      'pass:rejected',
      'repair:completed',
      'pass:completed',
    ]);
  });
});

describe('bounce check --live with the real CLIs', () => {
  it('passes claude on a conforming reply and fails codex on a misplaced note, with time and tokens', async () => {
    const fixture = readFileSync(join(ROOT, 'prompts/gate-fixture.md'), 'utf8');
    const conforming = fixture.replace('after a while.\n', 'after a while.\n[CLARIFY] After how long: (A) 7 days, as --keep 7 says, or (B) 30 days?\n');
    const cwd = tempDir('bounce-e2e-gate-');
    writeFileSync(join(cwd, 'bounce.config.yaml'), 'reviewer: claude\ncomposer: codex\n');
    // claude first (the config's order), then codex with the server's default edit: a note a blank line below its text.
    server.script([{ reply: conforming }, 'edit']);
    const r = await runCli(['check', '--live', '--json'], { cwd, env: env(), timeoutMs: 180_000 });
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout);
    const live = Object.fromEntries(out.agents.map((a: { agent: string; live: unknown }) => [a.agent, a.live]));
    expect(live.claude).toMatchObject({ ok: true, reason: null });
    expect(live.claude.tokens).toBeGreaterThan(0);
    expect(live.codex).toMatchObject({ ok: false });
    expect(live.codex.reason).toMatch(/misplaced/);
    expect(r.stdout + r.stderr).not.toContain(CLAUDE_KEY);
  });
});
