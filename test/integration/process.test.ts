import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { pidsIn, running } from '../adapters/host-support.js';
import { BIN, cleanEnv, FIXTURES, NODE_WARNING, ROOT, runCli, tempDir } from '../support/cli.js';
import { waitFor } from '../support/wait-for.js';
import { pass2PendingIn } from '../support/run-folders.js';

/**
 * What needs a real `bounce` process: signals, the launcher, stdin as a pipe. Everything
 * else runs in-process (test/support/run-main.ts).
 */

const DOC = '# Rollout plan\n\nWe ship the feature to every user on Monday.\n\nRollback is manual.\n';

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'plan.md'), DOC);
});

const runs = (): string[] => (existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.')) : []);
const manifest = (run: string) => JSON.parse(readFileSync(join(dir, 'runs', run, 'run.json'), 'utf8'));
/** Pass 2's call is out: run.json lists its dispatch as pending. */
const pass2Pending = (): boolean => pass2PendingIn(dir);

describe('signals', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('%s gives exit 130 and an interrupted run with completed passes kept', async (signal) => {
    writeFileSync(join(dir, 's.yaml'), 'steps:\n  "2": { action: hang }\n');
    const r = await runCli(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock:s.yaml', '--json'], {
      cwd: dir,
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (pass2Pending()) {
            clearInterval(poll);
            child.kill(signal);
          }
        }, 20);
        child.on('close', () => clearInterval(poll));
      },
    });
    expect(r.code, r.stderr).toBe(130);
    expect(JSON.parse(r.stdout).status).toBe('interrupted');
    const m = manifest(runs()[0]!);
    expect(m.status).toBe('interrupted');
    expect(m.pass_records[0].status).toBe('completed');
    expect(existsSync(join(dir, 'runs', runs()[0]!, 'pass-1-reviewer-mock.md'))).toBe(true);
  });
});

describe('a second signal', () => {
  it('while the run is stopping still ends it cleanly: adapters killed, lock released, run.json interrupted, --json printed, exit 130', async () => {
    const pidFile = join(dir, 'pids');
    let stderr = '';
    let signals = 0;
    // The composer ignores SIGTERM, as does its child: only the SIGKILL that follows 2 s later ends them.
    const composer = `cmd:${join(FIXTURES, 'adapters', 'stubborn.mjs')}`;
    const r = await runCli(['refine', 'plan.md', '--reviewer', 'mock', '--composer', composer, '--json'], {
      cwd: dir,
      env: cleanEnv({ STUBBORN_PID_FILE: pidFile }),
      onSpawn: (child) => {
        child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
        // The first signal once the composer runs; then one every 100 ms until bounce says it is stopping.
        const poll = setInterval(() => {
          if (signals === 0 && !(pass2Pending() && pidsIn(pidFile).length === 2)) return;
          if (stderr.includes('bounce: stopping')) return clearInterval(poll);
          child.kill('SIGINT');
          signals += 1;
        }, 100);
        child.on('close', () => clearInterval(poll));
      },
    });
    expect(r.code, r.stderr).toBe(130);
    expect(signals).toBeGreaterThanOrEqual(2);
    expect(r.stderr).toContain('bounce: stopping');
    expect(r.stderr).not.toContain('did not stop');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'interrupted', exit_code: 130 });
    const run = runs()[0]!;
    expect(manifest(run).status).toBe('interrupted');
    expect(existsSync(join(dir, 'runs', run, 'lock'))).toBe(false);
    const pids = pidsIn(pidFile);
    await waitFor(() => pids.every((pid) => !running(pid)), 5000, 'the adapter and its child to be gone');
  });
});

describe('a signal while bounce is starting', () => {
  it('(reading its document from a pipe still open) gives exit 130, the --json object and no run folder', async () => {
    const r = await runCli(['refine', '-', '--reviewer', 'mock', '--composer', 'mock', '--json'], {
      cwd: dir,
      stdinOpen: true,
      onSpawn: (child) => {
        // bounce waits on its stdin for as long as it stays open; well after Node's own start
        // (which no handler covers, docs/faults.md), a SIGINT comes while it waits, then the document.
        const poll = setTimeout(() => {
          child.kill('SIGINT');
          child.stdin?.end('# Plan\n\nShip it on Monday.\n');
        }, 2000);
        child.on('close', () => {
          clearTimeout(poll);
          child.stdin?.destroy();
        });
      },
    });
    expect(r.code, r.stderr).toBe(130);
    // The signal is seen once the document has been read: before the run folder is made (no
    // run) or just after (an interrupted run, resumable). Either way nothing is lost.
    const out = JSON.parse(r.stdout) as { status: string; run_dir: string | null };
    expect(out).toMatchObject({ exit_code: 130, error: { type: 'interrupted' } });
    if (out.run_dir === null) expect({ status: out.status, runs: runs() }).toEqual({ status: 'error', runs: [] });
    else expect(manifest(runs()[0]!).status).toBe('interrupted');
  });
});

describe('a signal while bounce reads a document from a pipe that never ends', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s ends it at once: exit 130, one line on stderr, the --json object, no run folder', async (signal) => {
    const r = await runCli(['refine', '-', '--reviewer', 'mock', '--composer', 'mock', '--json'], {
      cwd: dir,
      stdinOpen: true,
      // Bounded well below the helper's 60 s: without the fix bounce waits on the pipe until it is killed.
      timeoutMs: 20_000,
      onSpawn: (child) => {
        // Part of a document, and the pipe stays open: bounce is left waiting in its read when the signal comes.
        child.stdin?.write('# Plan\n\nShip it on');
        const later = setTimeout(() => child.kill(signal), 2000);
        child.on('close', () => {
          clearTimeout(later);
          child.stdin?.destroy();
        });
      },
    });
    expect({ code: r.code, signal: r.signal }, r.stderr).toEqual({ code: 130, signal: null });
    expect(r.stderr.trim().split('\n')).toEqual(['bounce: interrupted']);
    const out = JSON.parse(r.stdout) as { status: string; run_dir: string | null };
    expect(out).toMatchObject({ exit_code: 130, status: 'error', run_dir: null, error: { type: 'interrupted' } });
    expect(runs()).toEqual([]);
  });
});

/** Runs bounce with its stdout a pipe whose reader has already gone, as in `bounce scan big.md | head -1`. */
function runClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a stdout that cannot take what is written (/dev/full)', () => {
  /** Runs bounce with its stdout on /dev/full, where every write fails with ENOSPC. */
  const runFull = (args: string[]) => {
    const full = openSync('/dev/full', 'w');
    try {
      return spawnSync(process.execPath, [BIN, ...args], { cwd: dir, env: cleanEnv(), stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
    } finally {
      closeSync(full);
    }
  };
  it.runIf(existsSync('/dev/full'))("a report that is lost: one line on stderr and exit 2, no stack; nothing to write: the command's own code", () => {
    writeFileSync(join(dir, 'notes.md'), 'Text.\n[CLARIFY] Which one?\n');
    writeFileSync(join(dir, 'clean.md'), '# Clean\n\nText.\n');
    const lost = runFull(['scan', 'notes.md']);
    expect(lost.status).toBe(2);
    // The failed write is told when the stream reports it, which may come after the summary.
    expect(lost.stderr.split('\n').sort()).toEqual([
      '',
      '1 note in 1 file (1 file scanned)',
      'bounce: cannot write to stdout (ENOSPC): its output is incomplete; free space or write it elsewhere',
    ]);
    const version = runFull(['--version']);
    expect(version.status).toBe(2);
    expect(version.stderr).not.toMatch(/at |Error/);
    const clean = runFull(['scan', 'clean.md']);
    expect([clean.status, clean.stderr]).toEqual([0, 'no notes (1 file scanned)\n']);
  });
});

describe('a closed stdout', () => {
  it('is not a crash: the command ends quietly with its own exit code (scan, refine --dry-run, runs)', async () => {
    writeFileSync(join(dir, 'big.md'), Array.from({ length: 20_000 }, (_, i) => `Line ${i} [CLARIFY] which?\n\n`).join(''));
    const scan = await runClosedStdout(['scan', 'big.md']);
    expect(scan).toEqual({ code: 1, stderr: '20000 notes in 1 file (1 file scanned)\n' });
    const dry = await runClosedStdout(['refine', 'plan.md', '--dry-run', '--reviewer', 'mock', '--composer', 'mock']);
    expect(dry).toEqual({ code: 0, stderr: '' });
    expect(runs()).toEqual([]);
    const made = await runCli(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock'], { cwd: dir });
    expect(made.code, made.stderr).toBe(0);
    const list = await runClosedStdout(['runs']);
    expect(list).toEqual({ code: 0, stderr: '' });
    for (const r of [scan, dry, list]) expect(r.stderr).not.toMatch(NODE_WARNING);
  });
});

describe("V8's young generation, kept for scan's streamed report", () => {
  it('does not grow while kept, however much survives a collection, and grows again once let', () => {
    const script = `
      import { keepYoungGeneration, letYoungGenerationGrow } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/src/young-generation.js')).href)};
      import { getHeapSpaceStatistics } from 'node:v8';
      const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
      // Objects that survive a collection or two, as a report held whole makes them.
      const churn = () => { const keep = []; for (let i = 0; i < 400000; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 50000) keep.length = 0; } };
      const start = young();
      keepYoungGeneration();
      churn();
      const kept = young();
      letYoungGenerationGrow();
      churn();
      process.stdout.write(JSON.stringify({ start, kept, grown: young() }));`;
    const sizes = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as Record<string, number>;
    expect(sizes.kept!).toBeLessThanOrEqual(2 * sizes.start!);
    expect(sizes.grown!).toBeGreaterThanOrEqual(8 * sizes.kept!);
  });
});

describe('the launcher bin/bounce.js', () => {
  it('runs scan with the young generation kept small: the report byte for byte, and nothing from V8 on stdout or stderr', async () => {
    const line = '[CLARIFY] x '.repeat(5_000);
    writeFileSync(join(dir, 'line.md'), line);
    const r = await runCli(['scan', 'line.md'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(Array.from({ length: 5_000 }, (_, i) => `line.md:1:${i * 12 + 1} CLARIFY [CLARIFY] x\n`).join(''));
    expect(r.stderr).toBe('5000 notes in 1 file (1 file scanned)\n');
  });

  it('reads a document piped to stdin and writes the result to stdout', async () => {
    const r = await runCli(['refine', '-', '--reviewer', 'mock', '--composer', 'mock', '--out', '-'], { cwd: dir, input: DOC });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(DOC);
    expect(runs()[0]).toMatch(/^stdin-/);
  });

  it('as packed by npm pack runs the README mock example from another folder', async () => {
    const pack = tempDir('bounce-pack-');
    execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', pack], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = readdirSync(pack).find((n) => n.endsWith('.tgz'));
    // What `npm install <tarball>` puts in node_modules; its dependencies are this checkout's, so no registry is needed.
    const pkg = join(pack, 'node_modules', 'bounce-runner');
    mkdirSync(pkg, { recursive: true });
    execFileSync('tar', ['xzf', join(pack, tarball!), '-C', pkg, '--strip-components=1']);
    symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
    const ex = join(pkg, 'examples');
    const r = await runCli(
      ['refine', join(ex, 'rfc-draft.md'), '--reviewer', `mock:${ex}/mock-script.yaml`, '--composer', `mock:${ex}/mock-script.yaml`, '--json'],
      {
        cwd: dir,
        bin: join(pkg, 'bin', 'bounce.js'),
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'converged', evidence: 'mock', passes_run: 2 });
    expect(runs()).toHaveLength(1);
  });

  it('says how to build a copy that has no dist/', async () => {
    // The launcher as shipped, in a package folder without dist/.
    const pkg = tempDir('bounce-unbuilt-');
    mkdirSync(join(pkg, 'bin'));
    copyFileSync(BIN, join(pkg, 'bin', 'bounce.js'));
    const r = await runCli(['--version'], { cwd: dir, bin: join(pkg, 'bin', 'bounce.js') });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('bounce: this copy is not built yet: run npm run build (or npm ci) in its folder\n');
  });
});

describe('scan under the usual open-file limit', () => {
  it('scans a tree of 20,000 files with ulimit -n 1024 (files are read a few at a time)', async () => {
    const tree = join(dir, 'tree');
    for (let d = 0; d < 100; d++) {
      mkdirSync(join(tree, `d${d}`), { recursive: true });
      for (let f = 0; f < 200; f++) writeFileSync(join(tree, `d${d}`, `f${f}.md`), f === 7 && d === 42 ? 'Text.\n[CLARIFY] Which?\n' : 'Text.\n');
    }
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((res) => {
      const child = spawn('sh', ['-c', `ulimit -n 1024 && exec "${process.execPath}" "${BIN}" scan tree`], { cwd: dir, env: cleanEnv() });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.on('close', (code) => res({ code, stdout, stderr }));
    });
    expect(r.stderr).not.toMatch(/EMFILE/);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout.trim()).toBe('tree/d42/f7.md:2:1 CLARIFY [CLARIFY] Which?');
  });
});
