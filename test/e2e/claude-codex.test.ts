/** End to end with the real Claude Code and Codex CLIs, against the scripted model server (./e2e-support.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../support/cli.js';
import { CLAUDE_KEY, CODEX_KEY, DOC, server, dir, env, documentCalls, onlyRun, processesWith, expectNoKeys } from './e2e-support.js';

describe('bounce refine with the real Claude Code and Codex CLIs', () => {
  it('picks claude and codex by default, converges in 2 calls, records usage, leaks no key', async () => {
    const before = server.requests.length;
    const r = await runCli(['refine', 'launch.md', '--json'], { cwd: dir, env: env(), timeoutMs: 120_000 });
    expect(r.stderr).toMatch(/reviewer: claude .*composer: codex/);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'converged', exit_code: 0, notes_left: 0, passes_run: 2, evidence: 'live' });
    const calls = documentCalls(before);
    expect(calls.map((c) => c.api)).toEqual(['anthropic', 'responses']);
    const runDir = onlyRun();
    expect(readFileSync(join(runDir, 'final.md'), 'utf8')).toBe(DOC);
    expect(readFileSync(join(runDir, 'pass-1-reviewer-claude.md'), 'utf8')).toContain('[CONTESTED]');
    const m = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(m.agents.reviewer).toMatchObject({ adapter: 'claude', evidence: 'live', usage_provider_reported: true });
    expect(m.agents.codex ?? m.agents.composer).toMatchObject({ adapter: 'codex' });
    expect(m.agents.reviewer.version).toMatch(/\d+\.\d+\.\d+/);
    expect(m.pass_records[0].usage.input_tokens).toBeGreaterThan(0);
    expect(m.pass_records[1].usage.output_tokens).toBeGreaterThan(0);
    expect(m.totals.dispatches).toBe(2);
    expectNoKeys(runDir, [CLAUDE_KEY, CODEX_KEY]);
    expect(r.stdout + r.stderr).not.toContain(CLAUDE_KEY);
  });

  it('refines two documents as a batch, two at once: each converges in its own run folder', async () => {
    const before = server.requests.length;
    writeFileSync(join(dir, 'other.md'), DOC.replace('Launch checklist', 'Rollback checklist'));
    const r = await runCli(['refine', 'launch.md', 'other.md', '--reviewer', 'claude', '--composer', 'codex', '--concurrency', '2', '--json'], {
      cwd: dir,
      env: env(),
      timeoutMs: 180_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'converged', exit_code: 0, concurrency: 2, totals: { documents: 2, converged: 2, dispatches: 4 } });
    expect(
      documentCalls(before)
        .map((c) => c.api)
        .sort(),
    ).toEqual(['anthropic', 'anthropic', 'responses', 'responses']);
    for (const run of out.runs) {
      expect(run.evidence).toBe('live');
      expect(readFileSync(run.output, 'utf8')).not.toContain('[CONTESTED]');
      expectNoKeys(run.run_dir, [CLAUDE_KEY, CODEX_KEY]);
    }
  });

  it('repairs a note the composer left on the final pass', async () => {
    const before = server.requests.length;
    server.script(['edit', 'leave-note']);
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--json'], { cwd: dir, env: env(), timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(documentCalls(before)).toHaveLength(3);
    const m = JSON.parse(readFileSync(join(onlyRun(), 'run.json'), 'utf8'));
    expect(m.pass_records[1]).toMatchObject({ repairs: 1, notes_after: 0 });
    expect(documentCalls(before)[2]!.prompt).toContain('REPAIR');
  });

  it('retries a 429 from the model after Retry-After, then converges', async () => {
    const before = server.requests.length;
    server.script([{ status: 429, retryAfter: 1 }, 'edit', 'edit']);
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--json'], { cwd: dir, env: env(), timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(documentCalls(before)).toHaveLength(3);
    const p1 = JSON.parse(readFileSync(join(onlyRun(), 'run.json'), 'utf8')).pass_records[0];
    expect(p1.dispatches.map((d: { kind: string; status: string }) => `${d.kind}:${d.status}`)).toEqual(['pass:error', 'retry:completed']);
  });

  it('repairs a summary the composer gave instead of the document', async () => {
    const long = `# Launch checklist\n\n${'Every team signs off on its part of the launch before the window opens. '.repeat(12)}\n`;
    writeFileSync(join(dir, 'launch.md'), long);
    const before = server.requests.length;
    server.script(['edit', 'summary', 'edit']);
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--json'], { cwd: dir, env: env(), timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(documentCalls(before)).toHaveLength(3);
    expect(documentCalls(before)[2]!.prompt).toContain('REPAIR');
    expect(readFileSync(join(onlyRun(), 'final.md'), 'utf8')).toBe(long);
  });

  it('resends once when the composer replies with nothing', async () => {
    const before = server.requests.length;
    server.script(['edit', 'empty', 'edit']);
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--json'], { cwd: dir, env: env(), timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const p2 = JSON.parse(readFileSync(join(onlyRun(), 'run.json'), 'utf8')).pass_records[1];
    expect(p2).toMatchObject({ retries: 1, repairs: 0 });
    expect(documentCalls(before)).toHaveLength(3);
  });

  it('in edit mode: claude adds a note and codex removes it with search/replace blocks, applied and recorded per block', async () => {
    const before = server.requests.length;
    server.script(['edit-blocks', 'edit-blocks']);
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--edit-format', 'edits', '--json'], {
      cwd: dir,
      env: env(),
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'converged', passes_run: 2 });
    const calls = documentCalls(before);
    expect(calls.map((c) => c.api)).toEqual(['anthropic', 'responses']);
    for (const c of calls) expect(c.prompt).toContain('<<<<<<< SEARCH');
    const runDir = onlyRun();
    expect(readFileSync(join(runDir, 'pass-1-reviewer-claude.reply.txt'), 'utf8')).toMatch(/^<<<<<<< SEARCH\n# Launch checklist\n=======\n/);
    expect(readFileSync(join(runDir, 'pass-1-reviewer-claude.md'), 'utf8')).toContain('[CONTESTED]');
    expect(readFileSync(join(runDir, 'final.md'), 'utf8')).toBe(DOC);
    const m = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(m.policy.reply_mode).toBe('edits');
    const records = m.pass_records.map((p: { dispatches: { record: string }[] }) => parseYaml(readFileSync(join(runDir, p.dispatches[0]!.record), 'utf8')));
    expect(records.map((rec: { request: { expected_output: { edit_format: string } } }) => rec.request.expected_output.edit_format)).toEqual([
      'edits',
      'edits',
    ]);
    expect(records.map((rec: { response: { edits: unknown } }) => rec.response.edits)).toEqual([
      { reply: 'blocks', blocks: [{ block: 1, applied: 'exact', line: 1, lines: 3 }] },
      { reply: 'blocks', blocks: [{ block: 1, applied: 'exact', line: 2, lines: 0 }] },
    ]);
    expect((await runCli(['audit', 'latest'], { cwd: dir, env: env() })).code).toBe(0);
  });

  it('opens the breaker after three failed calls in a row and exits 3; once the cause is gone, resume finishes the run', async () => {
    const before = server.requests.length;
    server.script([{ status: 500 }, { status: 500 }, { status: 500 }]);
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--json'], { cwd: dir, env: env(), timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(3);
    expect(JSON.parse(r.stdout).error.type).toBe('breaker');
    expect(documentCalls(before)).toHaveLength(3);
    const m = JSON.parse(readFileSync(join(onlyRun(), 'run.json'), 'utf8'));
    expect(m.breaker).toMatchObject({ open: true, consecutive_failures: 3 });
    // The model server answers again: the breaker starts closed and the run converges.
    const resume = await runCli(['resume', 'latest', '--json'], { cwd: dir, env: env(), timeoutMs: 120_000 });
    expect(resume.code, resume.stderr).toBe(0);
    expect(JSON.parse(resume.stdout)).toMatchObject({ status: 'converged', exit_code: 0 });
    const after = JSON.parse(readFileSync(join(onlyRun(), 'run.json'), 'utf8'));
    expect(after.breaker).toMatchObject({ open: false, consecutive_failures: 0, reopened: 1 });
    expect((await runCli(['audit', 'latest'], { cwd: dir, env: env() })).code).toBe(0);
  });
});

describe('a used-up quota', () => {
  it("codex's usage limit stops the run after one call: no retry, error type quota, exit 3", async () => {
    const before = server.requests.length;
    const reset = Math.floor(Date.now() / 1000 / 60) * 60 + 2 * 3600;
    const body = { error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: reset } };
    // Pass 1 (claude) edits; pass 2 (codex) meets the limit.
    server.script(['edit', { status: 429, body }]);
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--json'], { cwd: dir, env: env(), timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.error.type).toBe('quota');
    expect(out.error.message).toMatch(/hit your usage limit/);
    expect(documentCalls(before)).toHaveLength(2);
    expect(r.stdout + r.stderr).not.toContain(CODEX_KEY);
  });
});

describe('interrupting a run with the real CLIs', () => {
  /** Runs bounce with `marker` in its env and sends it `signal` once the stalled request reached the server. */
  const signalOnStall = (args: string[], marker: string, signal: NodeJS.Signals) =>
    runCli(args, {
      cwd: dir,
      env: env({ [marker]: '1' }),
      timeoutMs: 120_000,
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (server.requests.some((q) => q.scripted && q.behaviour === 'stall')) {
            clearInterval(poll);
            child.kill(signal);
          }
        }, 50);
      },
    });
  it('Ctrl-C while Claude Code waits on a stalled model: exit 130, run interrupted, no CLI process left', async () => {
    const marker = `BOUNCE_E2E_MARK_${process.pid}_${Date.now()}`;
    server.script(['stall']);
    const r = await signalOnStall(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--json'], marker, 'SIGINT');
    expect(r.code, r.stderr).toBe(130);
    expect(JSON.parse(r.stdout).status).toBe('interrupted');
    expect(JSON.parse(readFileSync(join(onlyRun(), 'run.json'), 'utf8')).status).toBe('interrupted');
    await expect.poll(() => processesWith(marker), { timeout: 500, interval: 20 }).toEqual([]);
  });

  it('kill -9 of bounce while Claude Code waits on a stalled model: no CLI process is left (its watchdog kills the group)', async () => {
    const marker = `BOUNCE_E2E_MARK_${process.pid}_${Date.now()}`;
    server.script(['stall']);
    const r = await signalOnStall(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex'], marker, 'SIGKILL');
    expect(r.signal, r.stderr).toBe('SIGKILL');
    // A bounded wait for the watchdog, not a measure of its speed.
    await expect.poll(() => processesWith(marker), { timeout: 10_000, interval: 50 }).toEqual([]);
  });
});
