/**
 * End to end: the built `bounce` drives the real Claude Code, Codex, Gemini CLI and opencode
 * (the pinned ones in test/agents), and the openai and anthropic adapters, against the
 * scripted model server on 127.0.0.1. Nothing here reaches a real provider.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { scriptedProviderToml } from '../support/codex-config.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { AGENTS_BIN } from '../support/agents.js';
import { cleanEnv, runCli, tempDir } from '../support/cli.js';
import { cliHomeEnv, OPENCODE_MODEL, writeGeminiHome, writeOpencodeConfig } from '../support/cli-homes.js';

const CLAUDE_KEY = 'sk-ant-test-E2ECLAUDEKEY789';
const CODEX_KEY = 'sk-test-E2ECODEXKEY321';
const OPENAI_KEY = 'sk-test-E2EOPENAIKEY654';
const GEMINI_KEY = 'gm-test-E2EGEMINIKEY147';
const OPENCODE_KEY = 'sk-test-E2EOPENCODEKEY258';
const OPENCODE = `opencode:${OPENCODE_MODEL}`;
const DOC = `# Launch checklist

We launch on Monday after the load test passes.

Support is staffed by two people during launch week.
`;

let server: ModelServer;
let home: string;
let dir: string;

beforeAll(async () => {
  server = await startModelServer();
  home = tempDir('bounce-e2e-home-');
  mkdirSync(join(home, 'codex'));
  writeFileSync(join(home, 'codex', 'config.toml'), scriptedProviderToml(server.url).join('\n'));
  writeGeminiHome(home);
  writeOpencodeConfig(join(home, '.config'), server.url);
});
afterAll(async () => server?.close());
beforeEach(() => {
  dir = tempDir('bounce-e2e-');
  writeFileSync(join(dir, 'launch.md'), DOC);
});

/** The real CLIs are found on PATH by name, as on a user's machine. */
function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return cleanEnv({
    PATH: `${AGENTS_BIN}:${process.env.PATH}`,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, 'claude'),
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: CLAUDE_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CODEX_HOME: join(home, 'codex'),
    BOUNCE_TEST_CODEX_KEY: CODEX_KEY,
    ...cliHomeEnv(home, server.url),
    GEMINI_API_KEY: GEMINI_KEY,
    BOUNCE_TEST_OPENCODE_KEY: OPENCODE_KEY,
    ...extra,
  });
}

const documentCalls = (since: number) => server.requests.slice(since).filter((r) => r.scripted);
const onlyRun = (): string => {
  const runs = readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.'));
  expect(runs).toHaveLength(1);
  return join(dir, 'runs', runs[0]!);
};

/** Live (non-zombie) processes whose environment carries `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, 'utf8'))) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(`${marker}=`)) found.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

function filesUnder(path: string): string[] {
  return statSync(path).isDirectory() ? readdirSync(path).flatMap((n) => filesUnder(join(path, n))) : [path];
}

function expectNoKeys(runDir: string, keys: string[]): void {
  for (const file of filesUnder(runDir)) {
    const text = readFileSync(file, 'utf8');
    for (const key of keys) expect(text.includes(key), `${key} leaked into ${file}`).toBe(false);
  }
}

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
  it('Ctrl-C while Claude Code waits on a stalled model: exit 130, run interrupted, no CLI process left', async () => {
    const marker = `BOUNCE_E2E_MARK_${process.pid}_${Date.now()}`;
    server.script(['stall']);
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'claude', '--composer', 'codex', '--json'], {
      cwd: dir,
      env: env({ [marker]: '1' }),
      timeoutMs: 120_000,
      onSpawn: (child) => {
        const poll = setInterval(() => {
          // Wait until the stalled request reached the server, then press Ctrl-C.
          if (server.requests.some((q) => q.scripted && q.behaviour === 'stall')) {
            clearInterval(poll);
            child.kill('SIGINT');
          }
        }, 50);
      },
    });
    expect(r.code, r.stderr).toBe(130);
    expect(JSON.parse(r.stdout).status).toBe('interrupted');
    expect(JSON.parse(readFileSync(join(onlyRun(), 'run.json'), 'utf8')).status).toBe('interrupted');
    await expect.poll(() => processesWith(marker), { timeout: 500, interval: 20 }).toEqual([]);
  });
});

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

  it("retries gemini's 429 after Retry-After, resends once after opencode's empty reply, then repairs the note it left", async () => {
    const before = server.requests.length;
    server.script([{ status: 429, retryAfter: 1 }, 'edit', 'empty', 'leave-note', 'edit']);
    const r = await refine('gemini', OPENCODE);
    expect(r.code, r.stderr).toBe(0);
    expect(documentCalls(before).map((c) => c.api)).toEqual(['gemini', 'gemini', 'chat', 'chat', 'chat']);
    expect(documentCalls(before)[4]!.prompt).toContain('REPAIR');
    const [p1, p2] = runJson().pass_records;
    expect(p1.dispatches.map((d: { kind: string; status: string }) => `${d.kind}:${d.status}`)).toEqual(['pass:error', 'retry:completed']);
    expect(p2).toMatchObject({ retries: 1, repairs: 1, notes_after: 0 });
    expect(readFileSync(join(onlyRun(), 'final.md'), 'utf8')).toBe(DOC);
  }, 240_000);

  it('a stream that broke off, which Gemini CLI reports with exit 0, is a failed call (retried), never an empty document', async () => {
    const before = server.requests.length;
    server.script([{ streamError: 'scripted mid-stream failure' }, 'edit', 'edit']);
    const r = await refine('gemini', OPENCODE);
    expect(r.code, r.stderr).toBe(0);
    expect(documentCalls(before)).toHaveLength(3);
    const p1 = runJson().pass_records[0];
    expect(p1.dispatches.map((d: { kind: string; status: string }) => `${d.kind}:${d.status}`)).toEqual(['pass:error', 'retry:completed']);
    expect(JSON.stringify(p1.dispatches[0])).toMatch(/provider/);
    expect(readFileSync(join(onlyRun(), 'final.md'), 'utf8')).toBe(DOC);
  }, 180_000);

  it("a hang past opencode's deadline is a timeout, and no CLI process is left", async () => {
    const marker = `BOUNCE_E2E_MARK_${process.pid}_${Date.now()}`;
    // Only the composer has a short deadline: gemini's pass may take its time on a busy machine.
    writeFileSync(join(dir, 'bounce.config.yaml'), `agents:\n  oc: { adapter: opencode, model: ${OPENCODE_MODEL}, timeout_s: 20 }\n`);
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

describe('bounce refine with the openai and anthropic adapters', () => {
  it('openai: converges against an OpenAI-compatible server on loopback without a key', async () => {
    const before = server.requests.length;
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'openai:mock-model', '--composer', 'openai:mock-model', '--json'], {
      cwd: dir,
      env: env({ OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(documentCalls(before).map((c) => c.api)).toEqual(['chat', 'chat']);
    const m = JSON.parse(readFileSync(join(onlyRun(), 'run.json'), 'utf8'));
    expect(m.totals.input_tokens).toBeGreaterThan(0);
    expect(m.agents.reviewer).toMatchObject({ adapter: 'openai', model: 'mock-model', usage_provider_reported: true });
  });

  it('openai: a key is sent to the server but never written to the run folder', async () => {
    const before = server.requests.length;
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'openai:mock-model', '--composer', 'openai:mock-model'], {
      cwd: dir,
      env: env({ OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: OPENAI_KEY }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(documentCalls(before)[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expectNoKeys(onlyRun(), [OPENAI_KEY]);
  });

  it('anthropic: converges through the Messages API', async () => {
    const before = server.requests.length;
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'anthropic:mock-model', '--composer', 'anthropic:mock-model', '--json'], {
      cwd: dir,
      env: env(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(documentCalls(before).map((c) => c.api)).toEqual(['anthropic', 'anthropic']);
    expectNoKeys(onlyRun(), [CLAUDE_KEY]);
  });

  it('refuses a plain-http remote endpoint before anything is sent (exit 2, no run folder)', async () => {
    const before = server.requests.length;
    const r = await runCli(['refine', 'launch.md', '--reviewer', 'openai:m', '--composer', 'openai:m'], {
      cwd: dir,
      env: env({ OPENAI_BASE_URL: 'http://models.example.com/v1', OPENAI_API_KEY: OPENAI_KEY }),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/plain http/);
    expect(r.stderr).not.toContain(OPENAI_KEY);
    expect(server.requests.length).toBe(before);
    expect(existsSync(join(dir, 'runs'))).toBe(false);
  });
});
