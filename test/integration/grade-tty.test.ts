/** `bounce grade` on a real pseudo-terminal (util-linux `script`): raw keys, one at a time, each verdict saved at once. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/audit/verify.js';
import { listRecordFiles, readRecord } from '../../src/store/dispatch-record.js';
import { BIN, cleanEnv, ROOT, runCli, tempDir } from '../support/cli.js';
import { waitFor } from '../support/wait-for.js';

const EX = join(ROOT, 'examples');
describe('bounce grade on a pseudo-terminal', () => {
  it('reads single keys without Enter, saves each verdict as given, and ends after the last finding', async () => {
    const dir = tempDir('bounce-grade-tty-');
    const agents = ['--reviewer', `mock:${EX}/mock-script.yaml`, '--composer', `mock:${EX}/mock-script.yaml`];
    const made = await runCli(['refine', join(EX, 'rfc-draft.md'), ...agents, '--runs-dir', 'runs', '--json'], { cwd: dir });
    expect(made.code, made.stderr).toBe(0);
    const runDir = join(dir, 'runs', JSON.parse(made.stdout).run_id);
    const grade = () => readRecord(join(runDir, listRecordFiles(runDir)[0]!)).outcome.grade;

    const command = `${process.execPath} ${BIN} grade latest --runs-dir runs --grader ana`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: dir, env: { ...cleanEnv(), TERM: 'dumb' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    try {
      await waitFor(() => screen.includes('finding 1 of 2'), 30_000, 'the first finding on the terminal');
      expect(screen).toMatch(/\[CONTESTED\] Five attempts/);
      child.stdin.write('a');
      await waitFor(() => screen.includes('finding 2 of 2'), 10_000, 'the second finding');
      // Saved already, while the session goes on.
      expect(grade()?.verdicts.map((v) => v.verdict)).toEqual(['accepted']);
      child.stdin.write('r');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    expect(grade()).toMatchObject({ grader: 'human:ana', verdicts: [{ verdict: 'accepted' }, { verdict: 'rejected' }], history: [] });
    expect(screen).toMatch(/2 of 2 findings graded/);
    expect(verifyRun(runDir).problems).toEqual([]);
  });
});
