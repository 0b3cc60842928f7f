import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanEnv, FIXTURES, tempDir } from '../support/cli.js';
import { runMain, runMainInterrupted } from '../support/run-main.js';
import { running } from '../adapters/host-support.js';
import { pass2PendingIn } from '../support/run-folders.js';

const DOC = `# Rollout plan

We ship the feature to every user on Monday.

Rollback is manual.
`;

/** `bounce refine` in-process: everything here but the adapters runs without a process. */

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'plan.md'), DOC);
});
afterEach(() => vi.unstubAllEnvs());

const runs = (): string[] => (existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.')) : []);
const manifest = (run: string) => JSON.parse(readFileSync(join(dir, 'runs', run, 'run.json'), 'utf8'));
const script = (name: string, body: string): string => {
  writeFileSync(join(dir, name), body);
  return name;
};
/** Pass 2's call is out (run.json lists it as pending), and hangs until the abort. */
const pass2Pending = (): boolean => pass2PendingIn(dir);
const adapter = (name: string) => `cmd:${join(FIXTURES, 'adapters', name)}`;

describe('bounce refine with mock agents', () => {
  it('converges in two passes and keeps every pass on disk', async () => {
    const r = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock'], { cwd: dir });
    expect(r.stderr).toContain('converged');
    expect(r.code).toBe(0);
    const [run] = runs();
    expect(run).toMatch(/^plan-\d{8}-\d{6}-[0-9A-Z]{6}$/);
    expect(r.stdout.trim()).toBe(join('runs', run!, 'final.md'));
    const files = readdirSync(join(dir, 'runs', run!));
    expect(files).toEqual(
      expect.arrayContaining([
        'original.md',
        'final.md',
        'run.json',
        'run.log',
        'pass-1-reviewer-mock.md',
        'pass-1-reviewer-mock.prompt.md',
        'pass-1-reviewer-mock.reply.txt',
        'pass-1-reviewer-mock.stderr.log',
        'pass-2-composer-mock.md',
      ]),
    );
    const m = manifest(run!);
    expect(m.status).toBe('converged');
    expect(m.totals.dispatches).toBe(2);
    expect(m.pass_records.map((p: { notes_after: number }) => p.notes_after)).toEqual([1, 0]);
    expect(m.evidence).toBe('mock');
    expect(readFileSync(join(dir, 'runs', run!, 'final.md'), 'utf8')).toBe(DOC);
    expect(readFileSync(join(dir, 'plan.md'), 'utf8')).toBe(DOC);
    expect(readFileSync(join(dir, 'runs', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('stops early when a pass leaves no notes', async () => {
    const s = script('s.yaml', 'steps:\n  "1": { action: echo }\n');
    const r = await runMain(['refine', 'plan.md', '--passes', '4', '--reviewer', `mock:${s}`, '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'converged', exit_code: 0, notes_left: 0, passes_run: 1 });
    expect(manifest(runs()[0]!).totals.dispatches).toBe(1);
  });

  it('runs every pass with --all-passes', async () => {
    const s = script('s.yaml', 'steps:\n  "1": { action: echo }\n');
    const r = await runMain(['refine', 'plan.md', '--passes', '3', '--all-passes', '--reviewer', `mock:${s}`, '--composer', 'mock', '--json'], { cwd: dir });
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'converged', passes_run: 3 });
  });

  it('repairs notes left on the final pass', async () => {
    const s = script('s.yaml', 'steps:\n  "2": { action: review }\n');
    const r = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', `mock:${s}`, '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const m = manifest(runs()[0]!);
    expect(m.pass_records[1].repairs).toBe(1);
    expect(m.totals.dispatches).toBe(3);
    const files = readdirSync(join(dir, 'runs', runs()[0]!));
    expect(files.some((f) => /^pass-2-composer-.*\.repair-1\.prompt\.md$/.test(f))).toBe(true);
    // Progress says why in a few words; the reason addressed to the agent stays in the repair prompt.
    expect(r.stderr).toMatch(/^pass 2: \d+ notes? left on the final pass; sending a repair request to mock:/m);
    expect(r.stderr).not.toContain('which must resolve every note');
  });

  it('fails with exit 1 and writes no output when the repair also leaves notes', async () => {
    const s = script('s.yaml', 'steps:\n  "2": { action: echo }\n  "2.repair": { action: echo }\n');
    const r = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', `mock:${s}`, '--out', 'out.md', '--json'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'not-converged', exit_code: 1, notes_left: 1, output: null });
    expect(existsSync(join(dir, 'out.md'))).toBe(false);
    expect(existsSync(join(dir, 'runs', runs()[0]!, 'final.md'))).toBe(false);
    expect(manifest(runs()[0]!).status).toBe('not-converged');
  });

  it('repairs a summary given instead of the document', async () => {
    const long = `# Spec\n\n${'This sentence describes one more requirement of the system in detail. '.repeat(20)}\n`;
    writeFileSync(join(dir, 'spec.md'), long);
    const s = script('s.yaml', 'steps:\n  "1": "In short, it is a spec."\n');
    const r = await runMain(['refine', 'spec.md', '--reviewer', `mock:${s}`, '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const m = manifest(runs()[0]!);
    expect(m.pass_records[0].repairs).toBe(1);
    expect(m.pass_records[0].dispatches.map((d: { status: string }) => d.status)).toEqual(['rejected', 'completed']);
  });

  it('takes the summary thresholds from the config', async () => {
    writeFileSync(join(dir, 'bounce.config.yaml'), 'summary_ratio: 0.9\nsummary_min_words: 3\n');
    const s = script('s.yaml', 'steps:\n  "1": "# Rollout plan\\n\\nShip Monday."\n');
    const r = await runMain(['refine', 'plan.md', '--reviewer', `mock:${s}`, '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const p1 = manifest(runs()[0]!).pass_records[0];
    expect(p1.repairs).toBe(1);
    expect(manifest(runs()[0]!).policy).toMatchObject({ summary_ratio: 0.9, summary_min_words: 3 });
  });

  it('resends an empty reply once', async () => {
    const s = script('s.yaml', 'steps:\n  "1": ""\n');
    const r = await runMain(['refine', 'plan.md', '--reviewer', `mock:${s}`, '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const p1 = manifest(runs()[0]!).pass_records[0];
    expect(p1.retries).toBe(1);
    expect(p1.dispatches.map((d: { kind: string }) => d.kind)).toEqual(['pass', 'retry']);
  });

  it('writes --out FILE and --out - and --in-place', async () => {
    const a = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock', '--out', 'refined.md'], { cwd: dir });
    expect(a.code).toBe(0);
    expect(a.stdout.trim()).toBe('refined.md');
    expect(readFileSync(join(dir, 'refined.md'), 'utf8')).toBe(DOC);
    const b = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock', '--out', '-'], { cwd: dir });
    expect(b.stdout).toBe(DOC);
    writeFileSync(join(dir, 'noted.md'), `${DOC}\n[CLARIFY] Which Monday? (A) the 3rd (B) the 10th\n`);
    const c = await runMain(['refine', 'noted.md', '--reviewer', 'mock', '--composer', 'mock', '--in-place'], { cwd: dir });
    expect(c.code).toBe(0);
    expect(readFileSync(join(dir, 'noted.md'), 'utf8')).not.toContain('[CLARIFY]');
  });

  it('reads stdin with -', async () => {
    const r = await runMain(['refine', '-', '--reviewer', 'mock', '--composer', 'mock', '--out', '-'], { cwd: dir, input: DOC });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(DOC);
    expect(runs()[0]).toMatch(/^stdin-/);
  });
});

describe('bounce refine with cmd: adapters that fail', () => {
  it('a crashing adapter ends with exit 3 and its stderr kept', async () => {
    const r = await runMain(['refine', 'plan.md', '--reviewer', adapter('crash.mjs'), '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('failed');
    expect(out.error.message).toContain('exited with code 7');
    const run = runs()[0]!;
    expect(readFileSync(join(dir, 'runs', run, 'pass-1-reviewer-crash.mjs.stderr.log'), 'utf8')).toContain('something went badly wrong');
    expect(manifest(run).status).toBe('failed');
  });

  it('an adapter that hangs is killed at its deadline with its children', async () => {
    const pidFile = join(dir, 'child.pid');
    // Adapters get this process's environment today and the command's env after issue 7: set both.
    vi.stubEnv('HANG_PID_FILE', pidFile);
    const r = await runMain(['refine', 'plan.md', '--reviewer', adapter('hang.mjs'), '--composer', 'mock', '--timeout', '1', '--json'], {
      cwd: dir,
      env: cleanEnv({ HANG_PID_FILE: pidFile }),
    });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).error.type).toBe('timeout');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await expect.poll(() => running(pid), { timeout: 300, interval: 20 }).toBe(false);
  });

  it('an adapter printing prose instead of JSON ends with exit 3', async () => {
    const r = await runMain(['refine', 'plan.md', '--reviewer', adapter('not-json.mjs'), '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).error.type).toBe('invalid_response');
    expect(readFileSync(join(dir, 'runs', runs()[0]!, 'pass-1-reviewer-not-json.mjs.reply.txt'), 'utf8')).toContain('Sure!');
  });

  it('a truncated reply fails the pass with exit 3 and advice', async () => {
    const s = script('s.yaml', 'steps:\n  "1": { reply: "# Rollout", stop: truncated }\n');
    const r = await runMain(['refine', 'plan.md', '--reviewer', `mock:${s}`, '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.error.type).toBe('truncated');
    expect(out.error.message).toContain('max_output_tokens');
  });

  it('a cmd: adapter that works converges', async () => {
    writeFileSync(join(dir, 'noted.md'), `${DOC}\n[CONTESTED] Monday is risky. Ship on Tuesday instead.\n`);
    const r = await runMain(['refine', 'noted.md', '--passes', '1', '--reviewer', adapter('echo-resolve.mjs'), '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const m = manifest(runs()[0]!);
    expect(m.agents.reviewer.evidence).toBe('external');
    expect(m.totals.cost_usd).toBeCloseTo(0.001);
  });

  it('with one pass and no composer named, no composer is looked for: the reviewer agent stands in', async () => {
    // A PATH with node alone: no agent CLI to find, and nothing listens on the default local port.
    const env = cleanEnv({ PATH: dirname(process.execPath), OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    const r = await runMain(['refine', 'plan.md', '--passes', '1', '--reviewer', 'mock', '--json'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const m = manifest(runs()[0]!);
    expect(m.agents.composer).toMatchObject({ spec: 'mock', chosen_by: 'unused (one pass)' });
    // With two passes the reviewer named alone composes too, and says so; nothing is looked for.
    const two = await runMain(['refine', 'plan.md', '--passes', '2', '--reviewer', 'mock', '--json'], { cwd: dir, env });
    expect(two.code, two.stderr).toBe(0);
    expect(two.stderr).toContain('reviewer: mock (flag), composer: mock (same as the reviewer: no composer named)');
    const second = runs()
      .map(manifest)
      .find((m) => m.passes.requested === 2);
    expect(second?.agents.composer).toMatchObject({ spec: 'mock', chosen_by: 'same as the reviewer: no composer named' });
  });

  it('a mistyped agent named alone is named in the error, not "no agent found"', async () => {
    const env = cleanEnv({ PATH: dirname(process.execPath), OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    const r = await runMain(['refine', 'plan.md', '--reviewer', 'claud'], { cwd: dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bounce: unknown agent "claud": did you mean claude\? /);
    expect(runs()).toEqual([]);
  });

  it('transient errors are retried and three in a row open the breaker', async () => {
    const s = script(
      's.yaml',
      'steps:\n  "1": { error: { type: provider, message: "upstream 500" } }\n  "1.retry": { error: { type: provider, message: "upstream 500" } }\n',
    );
    const r = await runMain(['refine', 'plan.md', '--reviewer', `mock:${s}`, '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).error.type).toBe('breaker');
    const m = manifest(runs()[0]!);
    expect(m.breaker).toMatchObject({ open: true, consecutive_failures: 3 });
    expect(m.totals.dispatches).toBe(3);
  });

  it('a rate limit followed by success converges', async () => {
    const s = script('s.yaml', 'steps:\n  "1": { error: { type: rate_limit, message: "slow down", retry_after_ms: 100 } }\n  "1.retry": { action: review }\n');
    const r = await runMain(['refine', 'plan.md', '--reviewer', `mock:${s}`, '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(manifest(runs()[0]!).breaker.consecutive_failures).toBe(0);
  });

  it('auth errors fail at once without retry', async () => {
    const s = script('s.yaml', 'steps:\n  "1": { error: { type: auth, message: "bad key" } }\n');
    const r = await runMain(['refine', 'plan.md', '--reviewer', `mock:${s}`, '--composer', 'mock', '--json'], { cwd: dir });
    expect(r.code).toBe(3);
    expect(manifest(runs()[0]!).totals.dispatches).toBe(1);
  });

  it('-q prints errors only: the error and the next step when a run fails, nothing when it converges', async () => {
    const s = script('s.yaml', 'steps:\n  "1": { error: { type: auth, message: "bad key" } }\n');
    const r = await runMain(['refine', 'plan.md', '--reviewer', `mock:${s}`, '--composer', 'mock', '-q'], { cwd: dir });
    expect(r.code).toBe(3);
    const id = runs()[0]!;
    expect(r.stderr).toBe(`bounce: failed: bad key\nnext: fix the cause above, then bounce resume ${id}\n`);
    const ok = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock', '-q'], { cwd: dir });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
  });
});

describe('an agent CLI too slow to answer --version', () => {
  it('fails the check naming the time it was given, not a reinstall, whether named or found by default', async () => {
    const env = cleanEnv({ BOUNCE_CLAUDE_BIN: join(FIXTURES, 'cli', 'fake-cli.mjs'), FAKE_CLI_VERSION: 'slow', BOUNCE_PROBE_TIMEOUT_S: '0.5' });
    const line = `claude is not ready: ${join(FIXTURES, 'cli', 'fake-cli.mjs')} did not answer \`--version\` within 0.5 s: try again when the machine is less busy, or give it longer with BOUNCE_PROBE_TIMEOUT_S=<seconds> (default 20)`;
    const named = await runMain(['refine', 'plan.md', '--reviewer', 'claude', '--composer', 'mock'], { cwd: dir, env });
    expect(named.code).toBe(2);
    expect(named.stderr).toContain(line);
    expect(named.stderr).not.toContain('reinstall');
    // Found by default: still the CLI the user has, so the same check speaks, rather than another agent.
    // (No role named: a composer named alone would take both roles and leave claude out.)
    const found = await runMain(['refine', 'plan.md'], { cwd: dir, env: { ...env, BOUNCE_CODEX_BIN: '/nonexistent/codex' } });
    expect(found.code).toBe(2);
    expect(found.stderr).toContain(line);
    expect(runs()).toEqual([]);
  });
});

describe('interrupting a run', () => {
  it('Ctrl-C while an agent check hangs ends at once with exit 130, the check process killed, no run folder', async () => {
    const pidFile = join(dir, 'check.pid');
    const env = cleanEnv({
      BOUNCE_CLAUDE_BIN: join(FIXTURES, 'cli', 'hang-on-version.sh'),
      HANG_PID_FILE: pidFile,
      ANTHROPIC_API_KEY: 'sk-ant-test-0123456789',
    });
    const r = await runMainInterrupted(
      ['refine', 'plan.md', '--reviewer', 'claude', '--composer', 'mock', '--json'],
      { cwd: dir, env },
      () => existsSync(pidFile),
      'the claude check to start',
    );
    expect(r.code).toBe(130);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', exit_code: 130, error: { type: 'interrupted' } });
    expect(runs()).toEqual([]);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await expect.poll(() => running(pid), { timeout: 2000, interval: 20 }).toBe(false);
  });

  it('aborting the signal gives exit 130 and an interrupted run with completed passes kept', async () => {
    const s = script('s.yaml', 'steps:\n  "2": { action: hang }\n');
    const r = await runMainInterrupted(
      ['refine', 'plan.md', '--reviewer', 'mock', '--composer', `mock:${s}`, '--json'],
      { cwd: dir },
      pass2Pending,
      "pass 2's call",
    );
    expect(r.code).toBe(130);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'interrupted', exit_code: 130 });
    const m = manifest(runs()[0]!);
    expect(m).toMatchObject({ status: 'interrupted', exit_code: 130 });
    expect(m.pass_records.map((p: { status: string }) => p.status)).toEqual(['completed', 'interrupted']);
    expect(m.pass_records[1].dispatches[0].status).toBe('error');
    expect(existsSync(join(dir, 'runs', runs()[0]!, 'pass-1-reviewer-mock.md'))).toBe(true);
    expect(existsSync(join(dir, 'runs', runs()[0]!, 'lock'))).toBe(false);
  });
});
