/**
 * `bounce replay` of runs the real Claude Code and Codex CLIs made against the scripted model
 * server, replayed after the server is stopped with neither CLI on PATH: nothing starts, nothing
 * is sent, and the replay comes out byte for byte as recorded.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../support/cli.js';
import { dir, env, server } from './e2e-support.js';

describe('bounce replay of runs made by the real CLIs', () => {
  it('replays a claude/codex run with a repair, the server stopped and the CLIs gone: reproduced at no cost, audited', async () => {
    server.script(['edit', 'leave-note', 'edit']);
    const made = await runCli(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--json'], { cwd: dir, env: env(), timeoutMs: 120_000 });
    expect(made.code, made.stderr).toBe(0);
    const original = JSON.parse(made.stdout);
    const m = JSON.parse(readFileSync(join(original.run_dir, 'run.json'), 'utf8'));
    expect(m.agents.reviewer.adapter).toBe('claude');
    expect(m.pass_records[1].repairs).toBe(1);

    await server.close();
    // A PATH where `claude` and `codex` are programs that leave a mark if anything runs them.
    const bin = tempDir('bounce-no-clis-');
    const mark = join(bin, 'ran');
    for (const name of ['claude', 'codex']) {
      writeFileSync(join(bin, name), `#!/bin/sh\necho ${name} >> '${mark}'\nexit 1\n`);
      chmodSync(join(bin, name), 0o755);
    }
    mkdirSync(join(dir, 'replays'));
    // The run by its folder (--runs-dir is where the replay goes); no key, no base URL.
    const r = await runCli(['replay', original.run_dir, '--runs-dir', 'replays', '--json'], { cwd: dir, env: cleanEnv({ PATH: bin }), timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(mark)).toBe(false);
    const out = JSON.parse(r.stdout);
    expect(out.totals).toMatchObject({ runs: 1, reproduced: 1, dispatches: 3, cost_usd: 0 });
    const replay = out.runs[0];
    const rm = JSON.parse(readFileSync(join(replay.replay_dir, 'run.json'), 'utf8'));
    expect(rm.replay_of).toBe(original.run_id);
    expect(rm.totals).toMatchObject({ cost_usd: 0, cost_source: 'replay' });
    for (const [i, p] of rm.pass_records.entries())
      expect(readFileSync(join(replay.replay_dir, p.document), 'utf8')).toBe(readFileSync(join(original.run_dir, m.pass_records[i].document), 'utf8'));
    expect(readFileSync(join(replay.replay_dir, 'final.md'), 'utf8')).toBe(readFileSync(join(original.run_dir, 'final.md'), 'utf8'));
    const audit = await runCli(['audit', replay.replay_dir], { cwd: dir, env: cleanEnv({ PATH: bin }), timeoutMs: 60_000 });
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
  });
});
