import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { BIN, runCli, tempDir } from '../support/cli.js';

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
const pass2Pending = (): boolean => {
  const run = runs()[0];
  if (!run || !existsSync(join(dir, 'runs', run, 'run.json'))) return false;
  return manifest(run).pass_records[1]?.dispatches[0]?.status === 'pending';
};

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

describe('the launcher bin/bounce.js', () => {
  it('reads a document piped to stdin and writes the result to stdout', async () => {
    const r = await runCli(['refine', '-', '--reviewer', 'mock', '--composer', 'mock', '--out', '-'], { cwd: dir, input: DOC });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(DOC);
    expect(runs()[0]).toMatch(/^stdin-/);
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
