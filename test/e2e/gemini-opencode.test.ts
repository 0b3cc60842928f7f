/** End to end with the real Gemini CLI and opencode, against the scripted model server (./e2e-support.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { OPENCODE_MODEL } from '../support/cli-homes.js';
import {
  CLAUDE_KEY,
  CODEX_KEY,
  GEMINI_KEY,
  OPENCODE_KEY,
  OPENCODE,
  DOC,
  server,
  dir,
  env,
  documentCalls,
  onlyRun,
  processesWith,
  expectNoKeys,
} from './e2e-support.js';

describe('bounce refine with the real Gemini CLI and opencode', () => {
  const refine = (reviewer: string, composer: string, extra: string[] = []) =>
    runCli(['refine', 'launch.md', '--reviewer', reviewer, '--composer', composer, '--json', ...extra], { cwd: dir, env: env(), timeoutMs: 120_000 });
  const runJson = () => JSON.parse(readFileSync(join(onlyRun(), 'run.json'), 'utf8'));

  it('converges with gemini reviewing and opencode composing; no key in the run folder, nothing of the working directory in any prompt', async () => {
    writeFileSync(join(dir, 'payroll-ZEBRA-secrets.txt'), 'not for any model\n');
    const before = server.requests.length;
    const r = await refine('gemini', OPENCODE);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'converged', passes_run: 2, notes_left: 0, evidence: 'live' });
    expect(documentCalls(before).map((c) => c.api)).toEqual(['gemini', 'chat']);
    const m = runJson();
    expect(m.agents.reviewer).toMatchObject({ adapter: 'gemini', version: '0.61.0', usage_provider_reported: true });
    expect(m.agents.composer).toMatchObject({ adapter: 'opencode', version: '1.18.33' });
    expect(m.totals.dispatches).toBe(2);
    expect(readFileSync(join(onlyRun(), 'final.md'), 'utf8')).toBe(DOC);
    expectNoKeys(onlyRun(), [GEMINI_KEY, OPENCODE_KEY, CLAUDE_KEY, CODEX_KEY]);
    expect(r.stdout + r.stderr).not.toContain(GEMINI_KEY);
    for (const q of server.requests.slice(before)) {
      const sent = JSON.stringify(q.body);
      expect(sent).not.toContain('ZEBRA');
      expect(sent).not.toContain(dir);
    }
  }, 180_000);

  it('converges with each of them and Codex', async () => {
    const before = server.requests.length;
    const a = await refine('gemini', 'codex');
    expect(a.code, a.stderr).toBe(0);
    const b = await runCli(['refine', 'launch.md', '--reviewer', 'codex', '--composer', OPENCODE, '--json'], { cwd: dir, env: env(), timeoutMs: 120_000 });
    expect(b.code, b.stderr).toBe(0);
    expect(documentCalls(before).map((c) => c.api)).toEqual(['gemini', 'responses', 'responses', 'chat']);
  }, 240_000);

  // One run for the failures of both: each start of these CLIs costs seconds of CPU.
  it("retries a broken stream from gemini (exit 0 from Gemini CLI, never an empty document) and its 429 after Retry-After, resends once after opencode's empty reply, then repairs the note it left", async () => {
    const before = server.requests.length;
    server.script([{ streamError: 'scripted mid-stream failure' }, { status: 429, retryAfter: 1 }, 'edit', 'empty', 'leave-note', 'edit']);
    const r = await refine('gemini', OPENCODE);
    expect(r.code, r.stderr).toBe(0);
    expect(documentCalls(before).map((c) => c.api)).toEqual(['gemini', 'gemini', 'gemini', 'chat', 'chat', 'chat']);
    expect(documentCalls(before)[5]!.prompt).toContain('REPAIR');
    const [p1, p2] = runJson().pass_records;
    expect(p1.dispatches.map((d: { kind: string; status: string }) => `${d.kind}:${d.status}`)).toEqual(['pass:error', 'retry:error', 'retry:completed']);
    expect(p1.dispatches[0].reason).toMatch(/^provider: /);
    expect(p1.dispatches[1].reason).toMatch(/^rate_limit: /);
    expect(p2).toMatchObject({ retries: 1, repairs: 1, notes_after: 0 });
    expect(readFileSync(join(onlyRun(), 'final.md'), 'utf8')).toBe(DOC);
  }, 240_000);

  it("a hang past opencode's deadline is a timeout, and no CLI process is left", async () => {
    const marker = `BOUNCE_E2E_MARK_${process.pid}_${Date.now()}`;
    // Only the composer has a short deadline (gemini's pass may take its time on a busy machine); whether
    // opencode has sent its request by then or not, the hang is cut at the deadline and nothing is left.
    writeFileSync(join(dir, 'bounce.config.yaml'), `agents:\n  oc: { adapter: opencode, model: ${OPENCODE_MODEL}, timeout_s: 8 }\n`);
    server.script(['edit', 'stall']);
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'gemini', '--composer', 'oc', '--json'], {
      cwd: dir,
      env: env({ [marker]: '1' }),
      timeoutMs: 180_000,
    });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/timeout/);
    expect(runJson().pass_records[1].dispatches[0]).toMatchObject({ status: 'timeout' });
    await expect.poll(() => processesWith(marker), { timeout: 500, interval: 20 }).toEqual([]);
  }, 180_000);
});
