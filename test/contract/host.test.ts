import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../src/contract/contract.js';
import { callAdapter, checkAdapter, fromResponse, MAX_STDERR_BYTES, stripAnsi, terminalLine, type CallOptions } from '../../src/contract/host.js';
import type { ResolvedAgent } from '../../src/adapters/registry.js';
import { adapterRequest, ROOT } from '../support/adapter-process.js';
import { testAgent } from '../support/test-agent.js';
import { failure, running, success } from '../adapters/host-support.js';

let dir: string;
const leftovers: number[] = [];

const USAGE = { input_tokens: 10, output_tokens: 20, cost_usd: 0.5, provider_reported: true };

/** Tiny adapter programs, one file each (test/fixtures/host/). */
const FIXTURES = join(ROOT, 'test/fixtures/host');

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'bounce-host-')));
});

afterEach(() => {
  // A failed test must not leave a sleeper behind.
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A `cmd` agent running one of the fixture programs with node. */
function agent(script: string, extraArgs: string[] = [], options: AgentOptions = {}, spec = 'fx'): ResolvedAgent {
  return testAgent({ spec, command: process.execPath, args: [join(FIXTURES, script), ...extraArgs], options });
}

function shellAgent(script: string, extraArgs: string[]): ResolvedAgent {
  return testAgent({ spec: 'fx', command: '/bin/sh', args: [join(FIXTURES, script), ...extraArgs] });
}

const request = (prompt = 'Revise this.') => adapterRequest(prompt, { model: 'm-1' }, 60_000);

const OPTS: CallOptions = { timeoutMs: 30_000, maxOutputBytes: 1_000_000 };
const BASE = { stdout: '', stderr: '', exitCode: 0, durationMs: 0 };

/** A SIGKILL already sent still has to be delivered: wait a bounded while for the process to go. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (!running(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !running(pid);
}

function pidsFrom(file: string): number[] {
  const pids = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
  leftovers.push(...pids);
  return pids;
}

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
}

describe('callAdapter: responses', () => {
  it('a valid success: the request reaches stdin, the response is parsed', async () => {
    const result = success(await callAdapter(agent('echo.mjs'), request('Héllo ✓ "quoted"\nsecond line'), OPTS));
    expect(result.exitCode).toBe(0);
    expect(result.response.model).toBe('m-1');
    expect(result.response.usage).toEqual(USAGE);
    expect(result.response.agent_version).toBe('fx-1');
    expect(result.response.stop).toBe('complete');
    const seen = JSON.parse(result.response.reply) as { prompt: string; role: string; argv: string[] };
    expect(seen.prompt).toBe('Héllo ✓ "quoted"\nsecond line');
    expect(seen.role).toBe('reviewer');
    expect(seen.argv).toEqual([]);
    expect(result.stdout).toContain('"ok":true');
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('passes extra arguments after the agent args', async () => {
    const result = success(await callAdapter(agent('echo.mjs', ['--a']), request(), OPTS, ['--b']));
    expect((JSON.parse(result.response.reply) as { argv: string[] }).argv).toEqual(['--a', '--b']);
  });

  it('with env given, the child sees that environment only', async () => {
    const result = success(await callAdapter(agent('echo.mjs'), request(), { ...OPTS, env: { FX_VAR: 'v1' } }));
    const seen = JSON.parse(result.response.reply) as { fxVar: string; hasPath: boolean };
    expect(seen.fxVar).toBe('v1');
    expect(seen.hasPath).toBe(false);
  });

  it('runs in the cwd given', async () => {
    const result = success(await callAdapter(agent('echo.mjs'), request(), { ...OPTS, cwd: dir }));
    expect((JSON.parse(result.response.reply) as { cwd: string }).cwd).toBe(dir);
  });

  it('a failure value is passed through with retry_after_ms, status and usage (exit 1)', async () => {
    const result = failure(await callAdapter(agent('fail.mjs', ['1']), request(), OPTS));
    expect(result.error).toEqual({ type: 'rate_limit', message: 'slow down', retry_after_ms: 1500, status: 429 });
    expect(result.usage).toEqual(USAGE);
    expect(result.exitCode).toBe(1);
  });

  it('a failure value is passed through on exit 0 too', async () => {
    const result = failure(await callAdapter(agent('fail.mjs', ['0']), request(), OPTS));
    expect(result.error.type).toBe('rate_limit');
    expect(result.error.retry_after_ms).toBe(1500);
    expect(result.exitCode).toBe(0);
  });

  it('log lines before the JSON response are accepted', async () => {
    const result = success(await callAdapter(agent('logs.mjs'), request(), OPTS));
    expect(result.response.reply).toBe('the document');
    expect(result.stdout).toContain('starting up');
  });

  it('a pretty-printed multi-line response is accepted', async () => {
    expect(success(await callAdapter(agent('pretty.mjs'), request(), OPTS)).response.reply).toBe('the document');
  });

  it('ANSI codes around the JSON are stripped before parsing', async () => {
    const result = success(await callAdapter(agent('ansi.mjs'), request(), OPTS));
    expect(result.response.reply).toBe('the document');
    // The raw stdout is kept as printed.
    expect(result.stdout).toContain('\u001b[32m');
  });

  it('non-JSON stdout with exit 0 is invalid_response', async () => {
    const result = failure(await callAdapter(agent('notjson.mjs', [], {}, 'my-agent'), request(), OPTS));
    expect(result.error.type).toBe('invalid_response');
    expect(result.error.message).toBe('my-agent printed no JSON response: a warning');
    expect(result.stdout).toBe('Here is your document, enjoy!\n');
    expect(result.stderr).toBe('a warning\n');
  });

  it('a non-zero exit without JSON is a crash, with the last stderr line (ANSI stripped) in the message', async () => {
    const result = failure(await callAdapter(agent('crash.mjs'), request(), OPTS));
    expect(result.error.type).toBe('crash');
    expect(result.error.message).toBe('fx exited with code 3 without a JSON response: TypeError: cannot read x');
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain('booting');
  });

  it('a long stderr tail is cut to 200 characters', async () => {
    const result = failure(await callAdapter(agent('longcrash.mjs'), request(), OPTS));
    expect(result.error.type).toBe('crash');
    expect(result.error.message).toBe(`fx exited with code 1 without a JSON response: ${'E'.repeat(200)}...`);
  });

  it('an adapter killed by a signal is said to be, not to have exited with code null', async () => {
    const result = failure(await callAdapter(agent('killed.mjs'), request(), OPTS));
    expect(result.error).toEqual({ type: 'crash', message: 'fx was ended by SIGKILL without a JSON response' });
    expect(result.exitCode).toBeNull();
  });

  it('a crash with an empty stderr has no dangling colon', async () => {
    const result = failure(await callAdapter(agent('silentcrash.mjs'), request(), OPTS));
    expect(result.error).toEqual({ type: 'crash', message: 'fx exited with code 4 without a JSON response' });
  });

  // What the adapter printed: line breaks, an OSC title (BEL), a clear-screen, a private CSI, a charset ESC sequence, a hyperlink (ST), NUL, NEL, an 8-bit CSI, a tab.
  const CLEAN = 'line one line two link end';

  it("an adapter's error.message reaches the runner as one line, without escape sequences or control characters", async () => {
    const result = failure(await callAdapter(agent('dirty.mjs', ['error']), request(), OPTS));
    expect(result.error).toEqual({ type: 'auth', message: CLEAN });
    // The raw stdout is kept as printed.
    expect(result.stdout).toContain('\\u001b]0;OWNED');
  });

  it('each warning is made one line the same way; one left empty is dropped', async () => {
    const result = success(await callAdapter(agent('dirty.mjs', ['warnings']), request(), OPTS));
    expect(result.response.warnings).toEqual([CLEAN, 'plain']);
    expect(result.response.reply).toBe('the document');
  });

  it('a contract breach quoting a key the adapter printed is one line too', () => {
    const result = failure(fromResponse(agent('echo.mjs'), { ok: false, error: { type: 'auth', message: 'x' }, 'k\n\u001b[2Jey': 1 }, BASE));
    expect(result.error.type).toBe('invalid_response');
    expect(result.error.message).toMatch(/^fx response breaks the adapter contract at top level: .*k ey/);
    expect(result.error.message).not.toMatch(/[\u0000-\u001f]/);
  });

  const violations: [string, string][] = [
    ['badreply.mjs', 'reply'],
    ['badstop.mjs', 'stop'],
    ['badtype.mjs', 'error.type'],
  ];
  for (const [script, path] of violations) {
    it(`a schema violation (${path}) is invalid_response naming the path`, async () => {
      const result = failure(await callAdapter(agent(script), request(), OPTS));
      expect(result.error.type).toBe('invalid_response');
      expect(result.error.message).toMatch(new RegExp(`^fx response breaks the adapter contract at ${path.replace('.', '\\.')}: `));
    });
  }

  it('an unknown key in the response breaks the contract at the top level', async () => {
    const result = failure(await callAdapter(agent('extrakey.mjs'), request(), OPTS));
    expect(result.error.type).toBe('invalid_response');
    expect(result.error.message).toContain('at top level');
    expect(result.error.message).toContain('secret');
  });

  it('a program that does not exist is not_found', async () => {
    const missing = { ...agent('echo.mjs'), command: join(dir, 'no-such-program'), args: [] };
    const result = failure(await callAdapter(missing, request(), OPTS));
    expect(result.error).toEqual({ type: 'not_found', message: `adapter program not found: ${join(dir, 'no-such-program')}` });
  });

  it('a bare name not on PATH is not_found', async () => {
    const missing = { ...agent('echo.mjs'), command: 'bounce-no-such-adapter-xyz', args: [] };
    expect(failure(await callAdapter(missing, request(), OPTS)).error.type).toBe('not_found');
  });

  it('stdout over the bound is invalid_response', async () => {
    const result = failure(await callAdapter(agent('big.mjs', ['5000']), request(), { ...OPTS, maxOutputBytes: 1000 }));
    expect(result.error).toEqual({ type: 'invalid_response', message: 'fx printed more than 1000 characters on stdout' });
  });

  it('stderr over its 64 MiB bound stops the program, and the message names stderr and that bound', async () => {
    const result = failure(await callAdapter(agent('big.mjs', [String(MAX_STDERR_BYTES + 1024 * 1024), 'stderr']), request(), OPTS));
    expect(result.error).toEqual({ type: 'invalid_response', message: 'fx printed more than 64 MiB on stderr and was stopped' });
  });

  it('stdout under the bound is read whole (and here is not JSON)', async () => {
    const result = failure(await callAdapter(agent('big.mjs', ['900']), request(), { ...OPTS, maxOutputBytes: 1000 }));
    expect(result.error.type).toBe('invalid_response');
    expect(result.stdout).toBe('x'.repeat(900));
  });
});

describe('callAdapter: deadline and interruption', () => {
  it('a deadline gives timeout', async () => {
    const result = failure(await callAdapter(agent('sleep.mjs'), request(), { ...OPTS, timeoutMs: 300 }));
    expect(result.error.type).toBe('timeout');
    expect(result.error.message).toMatch(/^fx did not answer within \d+ s; its process tree was killed$/);
  });

  it('on a deadline the adapter and the child it started are gone, even a child that ignores SIGTERM', async () => {
    const pidFile = join(dir, 'tree.pids');
    const result = failure(await callAdapter(shellAgent('tree.sh', [pidFile]), request(), { ...OPTS, timeoutMs: 300 }));
    expect(result.error.type).toBe('timeout');
    const [adapterPid, childPid] = pidsFrom(pidFile);
    expect(adapterPid).toBeGreaterThan(0);
    expect(childPid).toBeGreaterThan(0);
    expect(await gone(adapterPid!)).toBe(true);
    expect(await gone(childPid!)).toBe(true);
  });

  it('an adapter that ignores SIGTERM is killed after the grace period, with its child', async () => {
    const pidFile = join(dir, 'stubborn.pids');
    const result = failure(await callAdapter(shellAgent('stubborn.sh', [pidFile]), request(), { ...OPTS, timeoutMs: 300 }));
    expect(result.error.type).toBe('timeout');
    const [adapterPid, childPid] = pidsFrom(pidFile);
    expect(await gone(adapterPid!)).toBe(true);
    expect(await gone(childPid!)).toBe(true);
  });

  it('an adapter that answered and exited is not a timeout because a child it left behind holds stdout; the child is killed', async () => {
    // host.ts says "whatever the adapter left behind in its group goes too"; the call must
    // end when the adapter exits, not wait for the leftover until the deadline.
    const pidFile = join(dir, 'leave.pids');
    const result = await callAdapter(shellAgent('leave.sh', [pidFile]), request(), { ...OPTS, timeoutMs: 5000 });
    const [, childPid] = pidsFrom(pidFile);
    expect(result.ok ? 'ok' : `${result.error.type}: ${result.error.message}`).toBe('ok');
    expect(success(result).response.reply).toBe('the document');
    expect(result.exitCode).toBe(0);
    expect(await gone(childPid!)).toBe(true);
  });

  it('a grandchild that escaped the process group (setsid) and holds stdout does not stretch the deadline', async () => {
    const pidFile = join(dir, 'escape-hang.pids');
    const started = Date.now();
    const result = failure(await callAdapter(shellAgent('escape.sh', [pidFile, 'hang']), request(), { ...OPTS, timeoutMs: 500 }));
    const [adapterPid, grandchildPid] = pidsFrom(pidFile);
    expect(result.error.type).toBe('timeout');
    // The deadline, the adapter's SIGTERM and a short grace: not the grandchild's 60 s.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await gone(adapterPid!)).toBe(true);
    // Out of the group, it is beyond the runner's signals; it only lost its pipes.
    expect(running(grandchildPid!)).toBe(true);
  });

  it('an adapter that answered and exited while an escaped grandchild holds stdout is read at once', async () => {
    const pidFile = join(dir, 'escape-answer.pids');
    const started = Date.now();
    const result = success(await callAdapter(shellAgent('escape.sh', [pidFile, 'answer']), request(), { ...OPTS, timeoutMs: 20_000 }));
    pidsFrom(pidFile);
    expect(result.response.reply).toBe('the document');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('an abort during the call gives interrupted and kills the adapter', async () => {
    const pidFile = join(dir, 'abort.pid');
    const ctrl = new AbortController();
    const call = callAdapter(agent('sleep.mjs', [pidFile]), request(), { ...OPTS, signal: ctrl.signal });
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
    const [pid] = pidsFrom(pidFile);
    ctrl.abort();
    const result = failure(await call);
    expect(result.error).toEqual({ type: 'interrupted', message: 'interrupted' });
    expect(await gone(pid!)).toBe(true);
  });

  it('an already aborted signal gives interrupted', async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    const result = failure(await callAdapter(agent('sleep.mjs'), request(), { ...OPTS, signal: ctrl.signal }));
    expect(result.error.type).toBe('interrupted');
  });
});

describe('checkAdapter', () => {
  it('sends the options on stdin with --check and parses a multi-line pretty-printed result', async () => {
    const result = await checkAdapter(agent('check.mjs', [], { model: 'llama3.1:8b', base_url: 'http://127.0.0.1:11434/v1' }));
    expect(result).toEqual({
      ok: true,
      version: '1.2.3',
      problems: [],
      warnings: [{ kind: 'login_unverified', message: 'login not verified offline', fix: 'log in once' }],
      resolved: { model: 'llama3.1:8b', base_url: 'http://127.0.0.1:11434/v1' },
    });
  });

  it('a failed check (exit 1) in plain strings, the first contract, is read as config problems; warnings and resolved default to empty', async () => {
    expect(await checkAdapter(agent('checkfail.mjs'))).toEqual({
      ok: false,
      version: null,
      problems: [{ kind: 'config', message: 'OPENAI_API_KEY is not set' }],
      warnings: [],
      resolved: {},
    });
  });

  it('a program that does not exist is a failed check naming it', async () => {
    const missing = { ...agent('check.mjs'), command: join(dir, 'nope'), args: [] };
    const result = await checkAdapter(missing);
    expect(result.ok).toBe(false);
    expect(result.version).toBeNull();
    expect(result.problems).toMatchObject([{ kind: 'not_found', message: `adapter program not found: ${join(dir, 'nope')}` }]);
  });

  it('output that is not a check result is a failed check', async () => {
    const result = await checkAdapter(agent('notjson.mjs'));
    expect(result.ok).toBe(false);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ kind: 'no_check', message: expect.stringMatching(/^fx --check failed: /) });
  });

  it('a check result missing required fields is a failed check', async () => {
    const result = await checkAdapter(agent('checkbad.mjs'));
    expect(result.ok).toBe(false);
    expect(result.problems[0]).toMatchObject({ kind: 'no_check', message: expect.stringMatching(/^fx --check failed: /) });
  });

  it('a check that does not answer in time is a failed check', async () => {
    const result = await checkAdapter(agent('sleep.mjs'), 300);
    expect(result.ok).toBe(false);
    expect(result.problems[0]).toMatchObject({ kind: 'no_check', message: expect.stringContaining('did not answer') });
  });
});

describe('stripAnsi', () => {
  it('removes SGR colour codes', () => {
    expect(stripAnsi('\u001b[1m\u001b[31mred\u001b[0m text')).toBe('red text');
    expect(stripAnsi('\u001b[38;5;196mx\u001b[39m')).toBe('x');
  });

  it('removes cursor and erase sequences, including private ones', () => {
    expect(stripAnsi('\r\u001b[2Kline')).toBe('\rline');
    expect(stripAnsi('\u001b[?25lhidden\u001b[?25h')).toBe('hidden');
    expect(stripAnsi('a\u001b[3Ab')).toBe('ab');
  });

  it('removes OSC sequences ended by BEL or ST (hyperlinks, titles)', () => {
    expect(stripAnsi('\u001b]8;;https://example.com\u0007link\u001b]8;;\u0007')).toBe('link');
    expect(stripAnsi('\u001b]0;title\u001b\\after')).toBe('after');
  });

  it('removes CSI sequences with any parameter bytes, DCS and APC strings, and other ESC sequences', () => {
    expect(stripAnsi('a\u001b[>4;2mb\u001b[38:5:196mc')).toBe('abc');
    expect(stripAnsi('a\u001bPq#0;1\u001b\\b\u001b_Gf=1\u001b\\c')).toBe('abc');
    expect(stripAnsi('a\u001b(Bb\u001b7c\u001b=d')).toBe('abcd');
  });

  it('leaves plain text and JSON alone', () => {
    const json = '{"a":[1,2],"b":"[CONTESTED] x ~ @"}';
    expect(stripAnsi(json)).toBe(json);
    expect(stripAnsi('')).toBe('');
  });
});

describe('terminalLine', () => {
  it('makes line breaks and runs of whitespace one space, and trims', () => {
    expect(terminalLine(' a\nb\r\n\tc  d\u2028e ')).toBe('a b c d e');
  });

  it('removes escape sequences and the C0 and C1 control characters left', () => {
    expect(terminalLine('a\u001b]0;OWNED\u0007\u001b[2Jb\u0000\u0007\u001b\u007fc\u0085\u009b2J')).toBe('abc2J');
  });

  it('keeps the rest of the text whole, however long', () => {
    const long = `é ✓ "q" ${'x'.repeat(1000)}`;
    expect(terminalLine(long)).toBe(long);
  });
});
