/** runCli: a CLI run in its own process group, resolved at its exit or, when told, at its final result line. */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ANSWERED_GRACE_MS, EARLY_START_LIMIT_MS, MAX_CLI_OUTPUT_BYTES, makeTempDir, removeTempDir, runCli, runFailure } from '../../src/kit/cli-run.js';
import { FIXTURES } from '../support/cli.js';
import { waitFor } from '../support/wait-for.js';
import { running } from '../adapters/host-support.js';

/** A CLI that prints its pid, then a final result line, then stays `lingerMs` before it exits with `code`. */
function lingering(lingerMs: number, code = 0): string[] {
  return [
    '-e',
    `console.log(process.pid); console.log(JSON.stringify({ type: 'result', result: 'done' })); setTimeout(() => process.exit(${code}), ${lingerMs});`,
  ];
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function gone(pid: number, withinMs: number): Promise<boolean> {
  for (const end = Date.now() + withinMs; Date.now() < end; ) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

function call(args: string[], extra: Partial<Parameters<typeof runCli>[0]> = {}) {
  return runCli({
    program: process.execPath,
    args,
    input: '',
    env: { PATH: process.env.PATH ?? '' },
    cwd: process.cwd(),
    deadline: new Date(Date.now() + 60_000).toISOString(),
    signal: new AbortController().signal,
    stderr: () => {},
    ...extra,
  });
}

const isResult = (line: string): boolean => line.includes('"type":"result"');

describe('runCli', () => {
  it.each(['stdout', 'stderr'] as const)('a CLI that floods %s is stopped at the bound, and the failure names that stream and the bound', async (stream) => {
    const run = await call([join(FIXTURES, 'host', 'big.mjs'), String(MAX_CLI_OUTPUT_BYTES + 1024 * 1024), stream]);
    expect(run.tooLarge).toBe(stream);
    const failure = runFailure(run, 'fake', process.execPath, new Date().toISOString());
    expect(failure).toMatchObject({
      ok: false,
      error: {
        type: 'config',
        message: `fake printed more than 64 MiB on ${stream} and was stopped: turn off its debug or verbose output (in its settings or environment)`,
      },
    });
  });

  it('without a final-line test, resolves when the CLI exits, with its exit code', async () => {
    const run = await call(lingering(100, 3));
    expect(run.exitCode).toBe(3);
    expect(run.stdout).toContain('"type":"result"');
  });

  it('resolves at the final result line while the CLI winds down, which then exits by itself', async () => {
    const run = await call(lingering(1000), { answered: isResult });
    const pid = Number(run.stdout.split('\n')[0]);
    // Resolved before the exit: no exit code, the CLI still running, the whole result line in.
    expect(run.exitCode).toBeNull();
    expect(alive(pid)).toBe(true);
    expect(run.stdout).toContain('{"type":"result","result":"done"}\n');
    // exited settles only once the process has gone.
    await run.exited;
    expect(alive(pid)).toBe(false);
  });

  it('kills a CLI that stays on after its result once the grace is over', async () => {
    const run = await call(lingering(60_000), { answered: isResult });
    const pid = Number(run.stdout.split('\n')[0]);
    expect(alive(pid)).toBe(true);
    expect(await gone(pid, ANSWERED_GRACE_MS + 5000)).toBe(true);
  });

  it('kills a CLI winding down after its result at once when the run is over (release), with what it started', async () => {
    const release = new AbortController();
    // The CLI starts a child of its own that outlives it unless its group is killed.
    const args = [
      '-e',
      `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' }); console.log(process.pid + ' ' + c.pid); console.log(JSON.stringify({ type: 'result', result: 'done' })); setTimeout(() => {}, 60000);`,
    ];
    const run = await call(args, { answered: isResult, release: release.signal });
    const [pid, grandchild] = (run.stdout.split('\n')[0] ?? '').split(' ').map(Number) as [number, number];
    expect(alive(pid) && running(grandchild)).toBe(true);
    release.abort();
    // Killed, not left its grace: the exit comes long before the grace would have run out.
    const exitedFirst = await Promise.race([run.exited.then(() => true), new Promise((r) => setTimeout(() => r(false), ANSWERED_GRACE_MS - 500))]);
    expect(exitedFirst).toBe(true);
    await waitFor(() => !running(grandchild), 1000, "the CLI's child to be killed with its group");
  });

  it('leaves a CLI that exits by itself alone when the run ends (release after exit)', async () => {
    const release = new AbortController();
    const run = await call(lingering(50), { answered: isResult, release: release.signal });
    await run.exited;
    expect(() => release.abort()).not.toThrow();
  });

  it('still kills the CLI after its result when the dispatch is aborted', async () => {
    const controller = new AbortController();
    const run = await call(lingering(60_000), { answered: isResult, signal: controller.signal });
    const pid = Number(run.stdout.split('\n')[0]);
    controller.abort();
    expect(await gone(pid, ANSWERED_GRACE_MS - 500)).toBe(true);
  });

  it('removes a temp dir only after what it waits for (the exit of the CLI)', async () => {
    const dir = makeTempDir('bounce-test-cli-run-');
    let exit = (): void => {};
    removeTempDir(dir, new Promise<void>((r) => (exit = r)));
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(dir)).toBe(true);
    exit();
    for (let i = 0; i < 50 && existsSync(dir); i++) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(dir)).toBe(false);
  });

  describe('started before its prompt may go (ready)', () => {
    const dirs: string[] = [];
    afterAll(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    const logFile = (): string => {
      const dir = makeTempDir('bounce-early-');
      dirs.push(dir);
      return join(dir, 'starts');
    };
    /** A CLI that appends its pid to `log` at once, then echoes its stdin once it has all of it. */
    const echo = (log: string): string[] => [
      '-e',
      `require('node:fs').appendFileSync(${JSON.stringify(log)}, process.pid + '\\n'); let s = ''; process.stdin.on('data', (d) => (s += d)); process.stdin.on('end', () => console.log('got:' + s));`,
    ];
    const starts = (log: string): number[] => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map(Number) : []);
    const deferred = (): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } => {
      let resolve: () => void = () => {};
      let reject: (e: Error) => void = () => {};
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    };

    it('starts the CLI at once and writes the prompt only once ready settles', async () => {
      const log = logFile();
      const gate = deferred();
      const pending = call(echo(log), { input: 'the prompt', ready: gate.promise });
      await waitFor(() => starts(log).length === 1, 5000, 'the CLI to start before the prompt may go');
      gate.resolve();
      const run = await pending;
      expect(run.stdout).toBe('got:the prompt\n');
      expect(starts(log)).toHaveLength(1);
    });

    it('sends nothing and kills the CLI when ready rejects', async () => {
      const log = logFile();
      const gate = deferred();
      const pending = call(echo(log), { input: 'the prompt', ready: gate.promise });
      await waitFor(() => starts(log).length === 1, 5000, 'the CLI to start');
      gate.reject(new Error('not recorded'));
      const run = await pending;
      expect(run.stdout).toBe('');
      expect(run.spawnError).toMatch(/called off/);
      expect(await gone(starts(log)[0] ?? 0, 1000)).toBe(true);
    });

    it('drops a start that waited longer than the limit and starts the CLI again for the prompt', async () => {
      const log = logFile();
      const gate = deferred();
      const pending = call(echo(log), { input: 'late prompt', ready: gate.promise });
      await waitFor(() => starts(log).length === 1, 5000, 'the CLI to start');
      const first = starts(log)[0] ?? 0;
      await waitFor(() => !alive(first), EARLY_START_LIMIT_MS + 20_000, 'the early start to be dropped at the limit');
      gate.resolve();
      const run = await pending;
      expect(run.stdout).toBe('got:late prompt\n');
      expect(starts(log)).toHaveLength(2);
    });
  });
});
