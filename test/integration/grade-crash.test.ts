/** A real `bounce grade --judge` process killed mid-call: the next grading reconciles the record it left pending, and the run audits again. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir } from '../support/cli.js';

const EX = join(ROOT, 'examples');

describe('bounce grade --judge killed while the agent is answering', () => {
  it('leaves a pending grader record that the next bounce grade turns to error; the run then grades and audits', async () => {
    const dir = tempDir('bounce-grade-crash-');
    const refine = await runCli(
      ['refine', join(EX, 'rfc-draft.md'), '--reviewer', `mock:${EX}/mock-script.yaml`, '--composer', `mock:${EX}/mock-script.yaml`, '--json'],
      { cwd: dir, env: cleanEnv() },
    );
    expect(refine.code, refine.stderr).toBe(0);
    const runDir: string = JSON.parse(refine.stdout).run_dir;
    const list = await runCli(['grade', 'latest', '--list', '--json'], { cwd: dir });
    const [a, b] = JSON.parse(list.stdout).findings.map((f: { id: string }) => f.id);
    const answer = `${a}: accepted\n${b}: rejected`;
    writeFileSync(join(dir, 'slow.yaml'), `steps:\n  "1": { reply: ${JSON.stringify(answer)}, delay_ms: 60000 }\n`);
    writeFileSync(join(dir, 'quick.yaml'), `steps:\n  default: ${JSON.stringify(answer)}\n`);
    const manifest = () => JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));

    const killed = await runCli(['grade', 'latest', '--judge', 'mock:slow.yaml'], {
      cwd: dir,
      env: cleanEnv(),
      onSpawn: (child) => {
        const poll = setInterval(() => {
          const m = existsSync(join(runDir, 'run.json')) ? manifest() : null;
          if (m?.side_dispatches?.some((d: { status: string }) => d.status === 'pending')) {
            clearInterval(poll);
            child.kill('SIGKILL');
          }
        }, 50);
        child.on('close', () => clearInterval(poll));
      },
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(manifest().side_dispatches.map((d: { status: string }) => d.status)).toEqual(['pending']);
    const before = await runCli(['audit', 'latest'], { cwd: dir });
    expect(before.code).not.toBe(0);
    expect(before.stdout + before.stderr).toContain('still pending');

    const graded = await runCli(['grade', 'latest', '--judge', 'mock:quick.yaml', '--json'], { cwd: dir, env: cleanEnv() });
    expect(graded.code, graded.stderr).toBe(0);
    expect(JSON.parse(graded.stdout)).toMatchObject({ graded: 2, error: null });
    const m = manifest();
    expect(m.side_dispatches.map((d: { status: string; agent: string }) => `${d.agent}:${d.status}`)).toEqual([
      'mock:slow.yaml:error',
      'mock:quick.yaml:completed',
    ]);
    expect(m.totals.dispatches).toBe(4);
    expect(readFileSync(join(runDir, 'run.log'), 'utf8')).toMatch(/reconciled 1 dispatch record\(s\) a process that stopped early left behind/);
    const after = await runCli(['audit', 'latest'], { cwd: dir });
    expect(after.code, after.stdout + after.stderr).toBe(0);
  });
});
