import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECK_OUTPUT_MAX_BYTES, runCheck } from '../../src/checks/run-check.js';
import { pidsIn, running } from '../adapters/host-support.js';

const STUBBORN = join(import.meta.dirname, '..', 'fixtures', 'host', 'stubborn.sh');
const NODE = JSON.stringify(process.execPath);

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bounce-run-check-'));
  file = join(dir, 'doc copy.md');
  writeFileSync(file, '# Title\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const place = () => ({ cwd: dir, env: { PATH: process.env.PATH ?? '', ONLY: 'this' } });

/** Whether `pid` is gone within a few seconds (a killed process leaves its pid until it is reaped). */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && running(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !running(pid);
}

describe('runCheck', () => {
  it('passes on exit 0, gets {file} as one argument, runs in its folder with the environment it is given', async () => {
    const script =
      "const fs=require('fs');if(fs.readFileSync(process.argv[1],'utf8')!=='# Title\\n'||process.cwd()!==process.argv[2]||process.env.ONLY!=='this'||process.env.HOME!==undefined)process.exit(9)";
    const run = await runCheck({ command: `${NODE} -e ${JSON.stringify(script)} {file} ${JSON.stringify(dir)}`, timeout_s: 30 }, file, place());
    expect(run).toMatchObject({ status: 'passed', exitCode: 0, output: '', droppedBytes: 0 });
    expect(run.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('fails on another exit code, keeping stdout and stderr together, colours stripped', async () => {
    const script = "process.stdout.write('\\u001b[31mline 1: bad\\u001b[0m\\n');process.stderr.write('1 error\\n');process.exitCode=3";
    const run = await runCheck({ command: `${NODE} -e ${JSON.stringify(script)} {file}`, timeout_s: 30 }, file, place());
    expect(run.status).toBe('failed');
    expect(run.exitCode).toBe(3);
    expect(run.output.split('\n').sort()).toEqual(['', '1 error', 'line 1: bad']);
  });

  it('keeps at most CHECK_OUTPUT_MAX_BYTES of output and counts the rest', async () => {
    const script = `process.stdout.write('x'.repeat(${CHECK_OUTPUT_MAX_BYTES + 1000}));process.exitCode=1`;
    const run = await runCheck({ command: `${NODE} -e ${JSON.stringify(script)} {file}`, timeout_s: 30 }, file, place());
    expect(run.output.length).toBe(CHECK_OUTPUT_MAX_BYTES);
    expect(run.droppedBytes).toBe(1000);
  });

  it('a program that does not exist did not start: a value, not a throw', async () => {
    const run = await runCheck({ command: 'no-such-check-program {file}', timeout_s: 30 }, file, place());
    expect(run).toMatchObject({ status: 'not-started', exitCode: null, output: 'no-such-check-program: no such program (not on PATH, or no such file)' });
  });

  it('at its time limit the whole process group is killed, a child that ignores SIGTERM included', async () => {
    const pids = join(dir, 'pids');
    const run = await runCheck({ command: `sh ${JSON.stringify(STUBBORN)} {file}`, timeout_s: 1 }, pids, place());
    expect(run.status).toBe('timed-out');
    expect(run.exitCode).toBeNull();
    const [leader, child] = pidsIn(pids) as [number, number];
    expect(await gone(leader)).toBe(true);
    expect(await gone(child)).toBe(true);
  });
});
